// An owning device allocation (cudaMalloc / cudaFree), for host code outside timed regions.
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime_api.h>

#include "sortbench/core/cuda_check.hpp"

namespace sb {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (!bytes_) return;
    if (const cudaError_t err = cudaMalloc(&ptr_, bytes_); err != cudaSuccess)
      throw_device_allocation_error(err, bytes_, __FILE__, __LINE__);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { reset(); }

  void reset() {
    if (ptr_) cudaFree(ptr_);
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

// Owns a stream, so a constructor that throws part-way still releases it.
struct OwnedStream {
  cudaStream_t handle{};
  OwnedStream() { SB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking)); }
  ~OwnedStream() { cudaStreamDestroy(handle); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
};

}  // namespace sb
