// sortbench tune's measurements and fits (tune.hpp).
#include "sortbench/suite/tune.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sortbench/algo/registry.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/session/session.hpp"

namespace sb {

double fit_tiled_crossover(std::vector<TunePoint> points) {
  std::sort(points.begin(), points.end(), [](const TunePoint& a, const TunePoint& b) { return a.delta < b.delta; });
  double crossover = kNeverTiled;
  // From the largest delta down, while hp-tiled keeps winning.
  for (auto it = points.rbegin(); it != points.rend() && it->tiled_wins(); ++it) crossover = it->delta;
  return crossover;
}

namespace {

// Both sorts on one generated input; a row that failed verification stops the tune (its
// crossover would rest on a wrong sort).
TunePoint measure_point(const TuneRequest& request, double sigma, double delta) {
  RunPlan plan;
  plan.request.n = request.n;
  plan.request.delta = delta;
  plan.request.sigma = sigma;
  plan.algorithms = {&registry().named("hp-tiled"), &registry().named("cub-radix-bits")};
  plan.settings = request.settings;
  TunePoint p;
  p.sigma = sigma;
  p.delta = delta;
  for (const ResultRow& row : run_benchmark(plan)) {
    if (row.status == RowStatus::verify_failed || row.status == RowStatus::error)
      throw Error(ExitCode::verification_failed,
                  fmt::format("tune: {} failed at delta {} sigma {} ({}); nothing was written", row.algorithm, delta,
                              sigma, row.reason));
    if (row.status != RowStatus::ok) continue;  // unsupported: hp-tiled cannot take this range
    (row.algorithm == "hp-tiled" ? p.tiled_ms : p.cub_ms) = row.median_ms();
  }
  if (p.cub_ms <= 0)
    throw Error(ExitCode::internal, fmt::format("tune: cub-radix-bits did not run at delta {} sigma {}", delta, sigma));
  return p;
}

}  // namespace

TuneOutcome tune_crossovers(const TuneRequest& request, const std::function<void(const TunePoint&)>& progress) {
  TuneOutcome out;
  for (double sigma : request.sigmas) {
    std::vector<TunePoint> at_sigma;
    for (double delta : request.deltas) {
      if (delta * sigma < 1) continue;  // more distinct values than keys: no such input
      at_sigma.push_back(measure_point(request, sigma, delta));
      if (progress) progress(at_sigma.back());
    }
    out.profile.hp_tiled_min_delta.push_back({sigma, fit_tiled_crossover(at_sigma)});
    out.points.insert(out.points.end(), at_sigma.begin(), at_sigma.end());
  }
  nlohmann::json measured = nlohmann::json::array();
  for (const TunePoint& p : out.points)
    measured.push_back({{"n", request.n}, {"sigma", p.sigma}, {"delta", p.delta}, {"hp-tiled_ms", p.tiled_ms},
                        {"cub-radix-bits_ms", p.cub_ms}});
  out.profile.measured = measured.dump();
  return out;
}

TuneCheckPoint judge_point(const TunePoint& p, double min_delta, double tie) {
  TuneCheckPoint c;
  c.point = p;
  c.predicted_tiled = p.delta >= min_delta;
  const bool close = p.tiled_ms > 0 && std::abs(p.tiled_ms - p.cub_ms) <= tie * std::min(p.tiled_ms, p.cub_ms);
  c.agrees = close || c.predicted_tiled == p.tiled_wins();
  return c;
}

std::vector<TuneCheckPoint> check_crossovers(const ChoiceProfile& profile, const TuneRequest& request, double tie,
                                             const std::function<void(const TunePoint&)>& progress) {
  std::vector<TuneCheckPoint> out;
  std::vector<double> ladder = request.deltas;
  std::sort(ladder.begin(), ladder.end());
  for (const TiledCrossover& c : profile.hp_tiled_min_delta) {
    if (c.min_delta >= kNeverTiled) continue;
    // The ladder's delta below the crossover and the one at or above it.
    const auto at = std::lower_bound(ladder.begin(), ladder.end(), c.min_delta);
    std::vector<double> beside;
    if (at != ladder.begin()) beside.push_back(*(at - 1));
    if (at != ladder.end()) beside.push_back(*at);
    for (double delta : beside) {
      if (delta * c.sigma < 1) continue;
      const TunePoint p = measure_point(request, c.sigma, delta);
      if (progress) progress(p);
      out.push_back(judge_point(p, c.min_delta, tie));
    }
  }
  return out;
}

}  // namespace sb
