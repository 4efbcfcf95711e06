// The timing harness, after nvbench's cold measurement (detail/measure_cold.cu): before
// each sample the pristine input is copied into the work buffers and L2 is flushed (both
// untimed); CUDA events bracket only the sort. Samples continue until their relative
// standard deviation is under max_noise or the time budget is spent, and at least min_reps.
#pragma once

#include <cstdint>
#include <vector>

#include "sortbench/algorithm.hpp"

namespace sb {

struct MeasureSettings {
  int warmup = 1;
  int min_reps = 10;
  int max_reps = 100000;
  double max_noise = 0.01;  // relative standard deviation target
  double budget_s = 2.0;    // wall-clock budget per algorithm, after min_reps
  bool flush_l2 = true;
};

struct TimingStats {
  std::size_t samples = 0;
  double min_ms = 0, median_ms = 0, mean_ms = 0, max_ms = 0, stddev_ms = 0, rel_stddev = 0;
};

TimingStats summarize_times(std::vector<double> ms);

// Welford's running mean and variance: the stopping rule costs O(1) per sample, however
// many thousand samples a fast sort takes.
class SampleNoise {
 public:
  void add(double x);
  std::size_t count() const { return count_; }
  double rel_stddev() const;  // sample stddev / mean, as summarize_times computes it

 private:
  std::size_t count_ = 0;
  double mean_ = 0, m2_ = 0;
};

bool enough_samples(const SampleNoise& noise, double elapsed_s, const MeasureSettings& s);
bool enough_samples(const std::vector<double>& ms, double elapsed_s, const MeasureSettings& s);

// Pristine input on the device; never written by a sort.
struct DeviceInput {
  const void* keys = nullptr;
  const void* vals = nullptr;
};

struct DeviceTiming {
  std::vector<double> samples_ms;
  // With --range measured, for an algorithm that reads key facts: the part of each sample
  // spent discovering them (a min/max pass and its copy to the host); empty otherwise.
  std::vector<double> discovery_ms;
  int result = 0;  // which of the work buffers holds the last sample's output
};

// work.workspace must already hold workspace_bytes(problem). With problem.range measured and
// algo.reads_key_facts, each sample discovers min/max from work.keys[0] (key_facts.hpp)
// between the start event and the sort, and the sort reads what was discovered.
DeviceTiming time_device(const Algorithm& algo, const SortProblem& problem, const DeviceInput& input,
                         const DeviceBuffers& work, const MeasureSettings& settings);

// Host: work_keys/work_vals are overwritten from the pristine input before each sample.
// Range discovery as time_device; its share of each sample goes to discovery_ms when given.
std::vector<double> time_host(const Algorithm& algo, const SortProblem& problem, const void* keys,
                              const void* vals, void* work_keys, void* work_vals,
                              const MeasureSettings& settings, std::vector<double>* discovery_ms = nullptr);

}  // namespace sb
