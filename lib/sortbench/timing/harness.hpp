// The timing harness: a sort's samples through the one measurement loop (measure.hpp), after
// nvbench's cold measurement (detail/measure_cold.cu): before each sample the pristine input
// is copied into the work buffers and L2 is flushed (both untimed); CUDA events (GPU) or the
// steady clock (CPU) bracket only the sort.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/timing/energy.hpp"
#include "sortbench/timing/measure.hpp"

namespace sb {

// Pristine input on the device; never written by a sort.
struct DeviceInput {
  const void* keys = nullptr;
  const void* vals = nullptr;
};

struct SortTiming {
  std::vector<double> samples_ms;
  std::size_t discarded = 0;  // samples a collector refused (measure.hpp)
  // With --range measured, for an algorithm that reads key facts: the part of each sample
  // spent discovering them (a min/max pass and its copy to the host); empty otherwise.
  std::vector<double> discovery_ms;
  int result = 0;  // GPU: which of the work buffers holds the last sample's output
};

// Keeps the range-discovery share of each kept sample, so a refused sample's share goes with it.
class DiscoveryRecorder final : public SampleCollector {
 public:
  DiscoveryRecorder(std::function<double()> read_last_ms, std::vector<double>& out)
      : read_(std::move(read_last_ms)), out_(out) {}
  void record(double) override { out_.push_back(read_()); }

 private:
  std::function<double()> read_;
  std::vector<double>& out_;
};

// Collectors plus, when discovering, the recorder (first, so it reads before anything waits).
std::vector<SampleCollector*> with_recorder(const std::vector<SampleCollector*>& collectors,
                                            DiscoveryRecorder* recorder);

// work.workspace must already hold workspace_bytes(problem); work.keys[1] and work.vals[1]
// are poisoned (0xA5 bytes) before the first run. With problem.range measured and
// algo.reads_key_facts, each sample discovers min/max from work.keys[0] (key_facts.hpp)
// between the start event and the sort, and the sort reads what was discovered.
SortTiming time_device(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input,
                       const DeviceBuffers& work, const MeasureSettings& settings,
                       const std::vector<SampleCollector*>& collectors = {});

// A batch of back-to-back sorts of at least min_s on time_device's steps, L2 not flushed, with
// NVML's energy counter read around it (energy.hpp); restores_only runs just the input
// restores, whose energy energy_figures subtracts. work as for time_device.
EnergyBatch energy_batch_device(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input,
                                const DeviceBuffers& work, bool restores_only,
                                const std::function<double()>& energy_j, double min_s);

// One sample through the same loop, no warm-up, no L2 flush (tests run a sort once this way).
MeasureSettings single_sample_settings();

// Host: work_keys/work_vals are overwritten from the pristine input before each sample.
// Range discovery as time_device.
SortTiming time_host(const Algorithm& algo, const SortProblem& problem, const void* keys, const void* vals,
                     void* work_keys, void* work_vals, const MeasureSettings& settings,
                     const std::vector<SampleCollector*>& collectors = {});

}  // namespace sb
