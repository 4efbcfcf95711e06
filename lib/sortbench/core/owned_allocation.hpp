// One allocation and its size, freed with its owner (docs/architecture.md, "The house": core/'s
// owning buffers): the one shape of DeviceBuffer (cudaMalloc, device_buffer.hpp) and
// PinnedBuffer (cudaMallocHost, host_memory.hpp), which differ only in how they allocate and free.
#pragma once

#include <cstddef>
#include <utility>

namespace sb {

// Free: a function object that releases a non-null pointer and never throws.
template <typename Free>
class OwnedAllocation {
 public:
  OwnedAllocation() = default;
  OwnedAllocation(void* ptr, std::size_t bytes) : ptr_(ptr), bytes_(bytes) {}
  OwnedAllocation(const OwnedAllocation&) = delete;
  OwnedAllocation& operator=(const OwnedAllocation&) = delete;
  OwnedAllocation(OwnedAllocation&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  OwnedAllocation& operator=(OwnedAllocation&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~OwnedAllocation() { reset(); }

  void reset() noexcept {
    if (ptr_) Free{}(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace sb
