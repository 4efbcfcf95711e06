// The GPU half of the harness: cold samples timed with CUDA events (see harness.hpp).
#include <chrono>

#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/harness.hpp"

namespace sb {
namespace {

// Evicts the previous sample's data from L2 by writing a buffer of the L2's size
// (nvbench detail/l2flush.cuh).
class L2Flusher {
 public:
  L2Flusher() {
    int device = 0, bytes = 0;
    SB_CUDA_CHECK(cudaGetDevice(&device));
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
    if (bytes > 0) buffer_ = DeviceBuffer(static_cast<std::size_t>(bytes));
  }
  void flush(cudaStream_t stream) {
    if (buffer_.bytes()) SB_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
  }

 private:
  DeviceBuffer buffer_;
};

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
  double elapsed_ms() const {
    SB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace

DeviceTiming time_device(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input,
                         const DeviceBuffers& work, const MeasureSettings& settings) {
  using clock = std::chrono::steady_clock;
  const cudaStream_t stream = work.stream;
  const std::size_t key_size = problem.n() * key_bytes(problem.spec.key);
  const std::size_t val_size = problem.n() * payload_bytes(problem.spec.payload);
  auto reset = [&] {
    if (key_size)
      SB_CUDA_CHECK(cudaMemcpyAsync(work.keys[0], input.keys, key_size, cudaMemcpyDeviceToDevice, stream));
    if (input.vals && work.vals[0] && val_size)
      SB_CUDA_CHECK(cudaMemcpyAsync(work.vals[0], input.vals, val_size, cudaMemcpyDeviceToDevice, stream));
  };
  L2Flusher l2;
  EventPair events;
  DeviceTiming timing;
  for (int i = 0; i < settings.warmup; ++i) {
    reset();
    timing.result = algo.run_device(problem, work);
    SB_CUDA_CHECK_LAUNCH();
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  SampleNoise noise;
  const auto begin = clock::now();
  do {
    reset();
    if (settings.flush_l2) l2.flush(stream);
    SB_CUDA_CHECK(cudaEventRecord(events.start(), stream));
    timing.result = algo.run_device(problem, work);
    SB_CUDA_CHECK(cudaEventRecord(events.stop(), stream));
    SB_CUDA_CHECK_LAUNCH();
    timing.samples_ms.push_back(events.elapsed_ms());
    noise.add(timing.samples_ms.back());
  } while (!enough_samples(noise, std::chrono::duration<double>(clock::now() - begin).count(), settings));
  return timing;
}

}  // namespace sb
