// The SM clock watch and throttle filter, after nvbench's measure_cold (detail/measure_cold.cu,
// its --throttle-threshold and --throttle-recovery-delay): after each sample the SM clock is
// read; a sample taken while the clock is below threshold x the clock at the start of the
// measurement (read right after the warm-up, when the GPU is busy) is discarded, counted, and
// retaken after the loop's recovery pause. nvbench compares against the device's default
// clock; issue 16 asks for the run's own starting clock, which also holds under locked clocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "sortbench/timing/measure.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/timing/summary.hpp"

namespace sb {

inline constexpr double kDefaultThrottleThreshold = 0.75;

class ThrottleFilter {
 public:
  explicit ThrottleFilter(double threshold) : threshold_(threshold) {}
  void set_reference(unsigned sm_mhz) { reference_mhz_ = sm_mhz; }
  // False (and counted) for a sample whose clock is below threshold x the reference; a clock
  // NVML did not answer (0) or a missing reference never discards.
  bool accept(unsigned sm_mhz);
  std::size_t discarded() const { return discarded_; }
  unsigned reference_mhz() const { return reference_mhz_; }

 private:
  double threshold_;
  unsigned reference_mhz_ = 0;
  std::size_t discarded_ = 0;
};

// Reads the clocks after each sample through `read` (NvmlDevice::read_clocks, or a series in
// tests) and filters samples by the SM clock.
class ClockCollector final : public SampleCollector {
 public:
  ClockCollector(std::function<ClockReading()> read, double threshold)
      : read_(std::move(read)), filter_(threshold) {}
  void begin() override { filter_.set_reference(read_().sm_mhz); }
  bool accept(double ms) override;
  void record(double) override { kept_.push_back(last_); }

  const ThrottleFilter& filter() const { return filter_; }
  const std::vector<ClockReading>& kept() const { return kept_; }
  std::uint64_t reasons_seen() const { return reasons_; }
  // clocks.* summaries: SM and memory clock min/median over the kept samples, the highest
  // temperature, the median power, the discarded count and the reasons seen (as a mask).
  void summarize(Summaries& s) const;

 private:
  std::function<ClockReading()> read_;
  ThrottleFilter filter_;
  ClockReading last_;
  std::vector<ClockReading> kept_;
  std::uint64_t reasons_ = 0;
};

}  // namespace sb
