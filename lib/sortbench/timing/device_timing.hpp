// What a timed GPU sample needs besides the work: a pair of CUDA events around it
// (core/event_pair.hpp) and an L2 flush before it. The one-GPU harness (harness_device.cu) and
// the distributed ranks share them.
#pragma once

#include <cuda_runtime_api.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/event_pair.hpp"

namespace sb {

// Evicts the previous sample's data from L2 by writing a buffer of the L2's size
// (nvbench detail/l2flush.cuh), on the current device. The buffer is allocated at the first
// flush: a run that never flushes (a single sample) allocates and frees nothing.
class L2Flusher {
 public:
  void flush(cudaStream_t stream) {
    if (!allocated_) {
      int device = 0, bytes = 0;
      SB_CUDA_CHECK(cudaGetDevice(&device));
      SB_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
      if (bytes > 0) buffer_ = DeviceBuffer(static_cast<std::size_t>(bytes));
      allocated_ = true;
    }
    if (buffer_.bytes()) SB_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
  }

 private:
  bool allocated_ = false;
  DeviceBuffer buffer_;
};

}  // namespace sb
