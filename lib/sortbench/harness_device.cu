// The GPU half of the harness: cold samples timed with CUDA events (see harness.hpp).
#include <chrono>

#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/harness.hpp"
#include "sortbench/key_facts.hpp"

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

// Two 64-bit words of pinned host memory (allocated only when asked for).
class PinnedWords {
 public:
  explicit PinnedWords(bool wanted) {
    if (wanted) SB_CUDA_CHECK(cudaMallocHost(&words_, 2 * sizeof(std::uint64_t)));
  }
  ~PinnedWords() {
    if (words_) cudaFreeHost(words_);
  }
  PinnedWords(const PinnedWords&) = delete;
  PinnedWords& operator=(const PinnedWords&) = delete;
  std::uint64_t* get() const { return static_cast<std::uint64_t*>(words_); }

 private:
  void* words_ = nullptr;
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
  // Range discovery (--range measured): facts found on the device, read back through two
  // pinned words, then handed to the sort; all of it between the start and stop events.
  const bool discover = problem.range == RangeMode::measured && algo.reads_key_facts;
  SortProblem run_problem = problem;
  DeviceBuffer d_facts(discover ? 2 * sizeof(std::uint64_t) : 0);
  PinnedWords h_facts(discover);
  EventPair discovered;
  auto sort_once = [&](bool timed) {
    if (discover) {
      discover_key_facts_device(problem.spec.key, work.keys[0], problem.n(), d_facts.as<std::uint64_t>(),
                                h_facts.get(), stream);
      if (timed) SB_CUDA_CHECK(cudaEventRecord(discovered.stop(), stream));
      apply_key_facts(run_problem.realized, problem.spec.key, KeyFacts{h_facts.get()[0], h_facts.get()[1]});
    }
    return algo.run_device(run_problem, work);
  };
  L2Flusher l2;
  EventPair events;
  DeviceTiming timing;
  for (int i = 0; i < settings.warmup; ++i) {
    reset();
    timing.result = sort_once(false);
    SB_CUDA_CHECK_LAUNCH();
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  SampleNoise noise;
  const auto begin = clock::now();
  do {
    reset();
    if (settings.flush_l2) l2.flush(stream);
    SB_CUDA_CHECK(cudaEventRecord(events.start(), stream));
    timing.result = sort_once(true);
    SB_CUDA_CHECK(cudaEventRecord(events.stop(), stream));
    SB_CUDA_CHECK_LAUNCH();
    timing.samples_ms.push_back(events.elapsed_ms());
    if (discover) timing.discovery_ms.push_back(events.elapsed_ms_to(discovered.stop()));
    noise.add(timing.samples_ms.back());
  } while (!enough_samples(noise, std::chrono::duration<double>(clock::now() - begin).count(), settings));
  return timing;
}

}  // namespace sb
