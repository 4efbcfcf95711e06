// The GPU half of the harness: cold samples timed with CUDA events (see harness.hpp); pinned words
// through core/host_memory.hpp (issue 37), as every pinned allocation.
#include <chrono>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/timing/device_timing.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/facts/key_discovery.hpp"

namespace sb {
namespace {

// Two 64-bit words of pinned host memory (allocated only when asked for).
class PinnedWords {
 public:
  explicit PinnedWords(bool wanted) {
    if (wanted) words_ = pinned_alloc(2 * sizeof(std::uint64_t), "the discovered range's bounds");
  }
  ~PinnedWords() { pinned_free(words_); }
  PinnedWords(const PinnedWords&) = delete;
  PinnedWords& operator=(const PinnedWords&) = delete;
  std::uint64_t* get() const { return static_cast<std::uint64_t*>(words_); }

 private:
  void* words_ = nullptr;
};


// CUDA events around the sample on the sort's stream.
class CudaEventTimer final : public SampleTimer {
 public:
  explicit CudaEventTimer(cudaStream_t stream) : stream_(stream) {}
  void start() override { SB_CUDA_CHECK(cudaEventRecord(events_.start(), stream_)); }
  void stop() override {
    SB_CUDA_CHECK(cudaEventRecord(events_.stop(), stream_));
    SB_CUDA_CHECK_LAUNCH();
  }
  double elapsed_ms() override { return events_.elapsed_ms(); }
  void wait_idle() override { SB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  const EventPair& events() const { return events_; }

 private:
  cudaStream_t stream_;
  EventPair events_;
};

// One sort's steps on the device, shared by the timed samples and the energy batch: restore
// the pristine input into the work buffers (and flush L2 when asked), then sort. Range
// discovery (--range measured): facts found on the device, read back through two pinned
// words, then handed to the sort; all of it inside the sort step (between the events).
class DeviceSort {
 public:
  DeviceSort(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input, const DeviceBuffers& work)
      : algo_(algo),
        problem_(problem),
        run_problem_(problem),
        input_(input),
        work_(work),
        key_size_(problem.n() * key_bytes(problem.shape.key)),
        val_size_(problem.n() * payload_bytes(problem.shape.payload)),
        discover_(problem.range == RangeMode::measured && algo.reads_key_facts),
        d_facts_(discover_ ? 2 * sizeof(std::uint64_t) : 0),
        h_facts_(discover_) {
    run_problem_.facts.discovered = discover_;
  }

  // A single run on the placed input itself (input and work buffers are one) restores nothing.
  void restore(bool flush_l2) {
    const cudaStream_t stream = work_.stream;
    if (key_size_ && input_.keys != work_.keys[0])
      SB_CUDA_CHECK(cudaMemcpyAsync(work_.keys[0], input_.keys, key_size_, cudaMemcpyDeviceToDevice, stream));
    if (input_.vals && work_.vals[0] && val_size_ && input_.vals != work_.vals[0])
      SB_CUDA_CHECK(cudaMemcpyAsync(work_.vals[0], input_.vals, val_size_, cudaMemcpyDeviceToDevice, stream));
    if (flush_l2) l2_.flush(stream);
  }

  // timed: record the end of range discovery, for its share of the sample.
  void sort(bool timed) {
    if (discover_) {
      discover_key_facts_device(problem_.shape.key, work_.keys[0], problem_.n(), d_facts_.as<std::uint64_t>(),
                                h_facts_.get(), work_.stream);
      if (timed) SB_CUDA_CHECK(cudaEventRecord(discovered_.stop(), work_.stream));
      apply_key_facts(run_problem_.facts, problem_.shape.key, OrderedBounds{h_facts_.get()[0], h_facts_.get()[1]});
    }
    result_ = algo_.run_device(run_problem_, work_);
    if (!timed) SB_CUDA_CHECK_LAUNCH();
  }

  // An output buffer the sort never wrote must not pass as sorted: the scratch buffers start
  // poisoned rather than holding the previous algorithm's sorted output of the same input.
  void poison_scratch() {
    if (work_.keys[1] && key_size_) SB_CUDA_CHECK(cudaMemsetAsync(work_.keys[1], 0xA5, key_size_, work_.stream));
    if (work_.vals[1] && val_size_) SB_CUDA_CHECK(cudaMemsetAsync(work_.vals[1], 0xA5, val_size_, work_.stream));
  }

  void wait() const { SB_CUDA_CHECK(cudaStreamSynchronize(work_.stream)); }
  bool discovers() const { return discover_; }
  const EventPair& discovered() const { return discovered_; }
  int result() const { return result_; }

 private:
  const Algorithm& algo_;
  const SortProblem& problem_;
  SortProblem run_problem_;
  DeviceInput input_;
  DeviceBuffers work_;
  std::size_t key_size_, val_size_;
  bool discover_;
  DeviceBuffer d_facts_;
  PinnedWords h_facts_;
  EventPair discovered_;
  L2Flusher l2_;
  int result_ = 0;
};

}  // namespace

SortTiming time_device(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input,
                       const DeviceBuffers& work, const MeasureSettings& settings,
                       const std::vector<SampleCollector*>& collectors) {
  DeviceSort sort(algo, problem, input, work);
  SampleSteps steps;
  steps.prepare = [&] { sort.restore(settings.flush_l2); };
  steps.run = [&](bool timed) { sort.sort(timed); };
  sort.poison_scratch();
  SortTiming timing;
  CudaEventTimer timer(work.stream);
  DiscoveryRecorder recorder([&] { return timer.events().elapsed_ms_to(sort.discovered().stop()); },
                             timing.discovery_ms);
  MeasureResult m = measure(settings, timer, steps, with_recorder(collectors, sort.discovers() ? &recorder : nullptr));
  timing.samples_ms = std::move(m.samples_ms);
  timing.discarded = m.discarded;
  timing.result = sort.result();
  return timing;
}

EnergyBatch energy_batch_device(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input,
                                const DeviceBuffers& work, bool restores_only,
                                const std::function<double()>& energy_j, double min_s) {
  DeviceSort sort(algo, problem, input, work);
  auto step = [&] {
    sort.restore(false);
    if (!restores_only) sort.sort(false);
  };
  return run_energy_batch(step, [&] { sort.wait(); }, energy_j, min_s);
}

}  // namespace sb
