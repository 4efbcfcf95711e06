// Energy per sort from NVML's total-energy counter (JouleSort's records per joule, for GPU
// sorts): the counter counts millijoules and updates a few times a second, so one sort is far
// below its resolution; a batch of back-to-back sorts of at least a second is (the input
// restored before each, L2 not flushed). The restore copies are measured as a batch of their
// own and subtracted. The idle power over an interval of the batch's length, taken just
// before it, is reported beside it; joules per sort are the whole board's, idle included, as
// a wall-socket JouleSort figure is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "sortbench/timing/summary.hpp"

namespace sb {

inline constexpr double kEnergyBatchS = 1.0;

struct EnergyBatch {
  double joules = 0;
  double seconds = 0;
  std::uint64_t runs = 0;
  double power_w() const { return seconds > 0 ? joules / seconds : 0; }
};

struct EnergyFigures {
  double joules_per_sort = 0;
  double keys_per_joule = 0;
  double power_w = 0;       // average over the sort batch
  double idle_power_w = 0;  // average over the idle interval
};

// Joules per sort = batch joules / sorts - restore joules / restores. nullopt when that is not
// positive (the counter's resolution swamped the difference) or a batch is empty.
std::optional<EnergyFigures> energy_figures(const EnergyBatch& sorts, const EnergyBatch& restores,
                                            const EnergyBatch& idle, std::uint64_t n);
void summarize_energy(const EnergyFigures& e, const EnergyBatch& sorts, Summaries& s);

// Runs `step` back to back for at least min_s: in chunks that double until one takes 50 ms,
// `wait` after each chunk; `energy_j` is read before the first step and after the last wait.
EnergyBatch run_energy_batch(const std::function<void()>& step, const std::function<void()>& wait,
                             const std::function<double()>& energy_j, double min_s);
// The counter over `seconds` of doing nothing.
EnergyBatch idle_energy(const std::function<double()>& energy_j, double seconds);

}  // namespace sb
