// sortbench tune (issue 50 item 1; docs/architecture.md, "Choices and profiles"): measures on the
// GPU at hand the crossovers the automatic choices depend on and fits a profile
// (core/choice_profile.hpp) from them. Today it measures hp-auto's boundary between hp-tiled and
// CUB on the range's bits (cub-radix-bits, where hp-auto hands an input over), for u32 keys
// alone over a ladder of delta at several sigma; `--check` re-measures the points beside each
// crossover and says whether the profile still predicts the winner.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sortbench/core/choice_profile.hpp"
#include "sortbench/timing/measure.hpp"

namespace sb {

// One measured point: both sorts' medians on one generated input (every row verified).
struct TunePoint {
  double sigma = 1;
  double delta = 1;
  double tiled_ms = 0;  // 0: hp-tiled did not run there (unsupported), so CUB is the winner
  double cub_ms = 0;
  bool tiled_wins() const { return tiled_ms > 0 && tiled_ms < cub_ms; }
};

// A crossover past every measured delta: hp-tiled never won at that sigma.
constexpr double kNeverTiled = 1e30;

// The crossover of one sigma's points: the smallest measured delta from which hp-tiled beat CUB
// at every larger delta measured; kNeverTiled where it did not win at the largest.
double fit_tiled_crossover(std::vector<TunePoint> points);

struct TuneRequest {
  std::uint64_t n = std::uint64_t{1} << 27;
  std::vector<double> sigmas{1, 5, 60, 900};
  std::vector<double> deltas{0.25, 0.5, 0.75, 1, 1.5, 2, 3, 6, 24};
  MeasureSettings settings;
};

struct TuneOutcome {
  ChoiceProfile profile;  // the GPU and build fields are the caller's to fill
  std::vector<TunePoint> points;
};

// Measures every (sigma, delta) of the request on the current GPU and fits one crossover a
// sigma. progress(point) is called after each point.
TuneOutcome tune_crossovers(const TuneRequest& request, const std::function<void(const TunePoint&)>& progress);

// --check: the measured points beside each finite crossover of `profile` (the largest ladder
// delta below it and the smallest at or above it) and whether the profile predicted each winner.
struct TuneCheckPoint {
  TunePoint point;
  bool predicted_tiled = false;
  // The profile's winner won, or the two were within `tie` of each other (a tie predicts nothing).
  bool agrees = false;
};
std::vector<TuneCheckPoint> check_crossovers(const ChoiceProfile& profile, const TuneRequest& request, double tie,
                                             const std::function<void(const TunePoint&)>& progress);
// The check's verdict for one point (used by check_crossovers; CPU-tested).
TuneCheckPoint judge_point(const TunePoint& p, double min_delta, double tie);

}  // namespace sb
