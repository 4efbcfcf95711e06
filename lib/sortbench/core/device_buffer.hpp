// An owning device allocation (cudaMalloc / cudaFree), for host code outside timed regions.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/owned_allocation.hpp"

namespace sb {

struct CudaFree {
  void operator()(void* p) const noexcept { cudaFree(p); }
};

// cudaMalloc of bytes (null for 0); out of memory throws Error(device_memory) with the bytes.
inline void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (!bytes) return p;
  if (const cudaError_t err = cudaMalloc(&p, bytes); err != cudaSuccess)
    throw_device_allocation_error(err, bytes, __FILE__, __LINE__);
  return p;
}

class DeviceBuffer : public OwnedAllocation<CudaFree> {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : OwnedAllocation(device_alloc(bytes), bytes) {}
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
