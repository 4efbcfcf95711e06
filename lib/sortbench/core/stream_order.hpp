// Ordering one CUDA stream after another's queued work with an event, so that neither the host
// nor the rest of the device waits (a caller's producer stream and a placement's own stream;
// issue 39, device arrays).
#pragma once

#include <cuda_runtime_api.h>

#include "sortbench/core/cuda_check.hpp"

namespace sb {

// later waits for what is queued on earlier now.
inline void stream_waits_for(cudaStream_t later, cudaStream_t earlier) {
  if (later == earlier) return;
  cudaEvent_t done;
  SB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  SB_CUDA_CHECK(cudaEventRecord(done, earlier));
  SB_CUDA_CHECK(cudaStreamWaitEvent(later, done, 0));
  SB_CUDA_CHECK(cudaEventDestroy(done));
}

}  // namespace sb
