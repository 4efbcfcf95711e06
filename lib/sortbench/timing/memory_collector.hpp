// Device memory a row used: what the algorithm declared (workspace_bytes), what the harness
// holds for it (the pristine input and two work buffers), and the peak measured with
// cudaMemGetInfo while its samples ran (read once a sample's sort is enqueued, so memory an
// algorithm keeps beyond its run, in a cache or a static, is seen; memory it allocates and
// frees inside one run is not, since cudaFree waits for the device), above what was in use
// before the run allocated anything. The driver hands out memory in pages, so the measured
// peak is at least the declared total.
#pragma once

#include <cstdint>
#include <functional>

#include "sortbench/timing/measure.hpp"
#include "sortbench/timing/summary.hpp"

namespace sb {

struct MemoryAccount {
  std::uint64_t workspace_bytes = 0;  // declared by the algorithm
  std::uint64_t buffer_bytes = 0;     // the placement's own copies and work buffers (keys and values)
  std::uint64_t baseline_used = 0;    // device memory in use before the run's buffers
  std::uint64_t peak_used = 0;        // highest device memory in use seen during the samples
  std::uint64_t peak_bytes() const { return peak_used > baseline_used ? peak_used - baseline_used : 0; }
  // memory.* summaries; bytes per key is the measured peak over n.
  void summarize(Summaries& s, std::uint64_t n) const;
};

// Reads the device memory in use (total - free) through `used_bytes` when each sample is
// enqueued and keeps the highest.
class MemoryCollector final : public SampleCollector {
 public:
  MemoryCollector(std::function<std::uint64_t()> used_bytes, MemoryAccount& account)
      : used_(std::move(used_bytes)), account_(account) {}
  void begin() override { launched(); }
  void launched() override;

 private:
  std::function<std::uint64_t()> used_;
  MemoryAccount& account_;
};

}  // namespace sb
