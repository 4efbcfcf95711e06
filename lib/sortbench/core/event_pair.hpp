// A pair of CUDA events around a piece of GPU work on one stream, timed as nvbench's
// cuda_timer does: the one-GPU harness, the distributed ranks and the fabric measurement
// (algo/fabric_rates.cu) share it.
#pragma once

#include <cuda_runtime_api.h>

#include "sortbench/core/cuda_check.hpp"

namespace sb {

class EventPair {
 public:
  EventPair() {
    SB_CUDA_CHECK(cudaEventCreate(&start_));
    SB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }
  // From this pair's start to another event recorded after it (and already complete).
  double elapsed_ms_to(cudaEvent_t other) const {
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, other));
    return ms;
  }
  double elapsed_ms() const {
    SB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace sb
