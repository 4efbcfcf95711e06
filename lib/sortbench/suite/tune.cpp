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

int fit_radix_crossover(std::vector<RadixPoint> points, int key_digits) {
  std::sort(points.begin(), points.end(), [](const RadixPoint& a, const RadixPoint& b) { return a.digits < b.digits; });
  int crossover = key_digits;
  for (auto it = points.rbegin(); it != points.rend() && it->whole_wins(); ++it) crossover = it->digits;
  return crossover;
}

namespace {

// A row that failed verification stops the tune (a crossover would rest on a wrong sort).
void require_verified(const ResultRow& row, const std::string& where) {
  if (row.status == RowStatus::verify_failed || row.status == RowStatus::error)
    throw Error(ExitCode::verification_failed,
                fmt::format("tune: {} failed at {} ({}); nothing was written", row.algorithm, where, row.reason));
}

// Both CUB sorts of `key` keys over a range of `digits` 8-bit digits, [2^(w-3), 2^(w-3) + 2^(8
// digits) - 1) for a key of w bits: away from 0, so that cub-radix-bits maps them to offsets
// (an unsigned range from 0 would sort on its own bits, with no mapping to pay for).
RadixPoint measure_radix_point(const TuneRequest& request, KeyType key, int digits) {
  const int width = static_cast<int>(key_bytes(key) * 8);
  const wide_t base = wide_t{1} << (width - 3);
  RunPlan plan;
  plan.request.n = request.radix_bytes / key_bytes(key);
  plan.request.key = key;
  plan.request.min_val = base;
  plan.request.max_val = base + (wide_t{1} << (8 * digits)) - 1;
  plan.algorithms = {&registry().named("cub-radix"), &registry().named("cub-radix-bits")};
  plan.settings = request.settings;
  RadixPoint p;
  p.key = key;
  p.digits = digits;
  const std::string where = fmt::format("{} keys over {} digits", to_string(key), digits);
  for (const ResultRow& row : run_benchmark(plan)) {
    require_verified(row, where);
    if (row.status == RowStatus::ok) (row.algorithm == "cub-radix" ? p.whole_ms : p.bits_ms) = row.median_ms();
  }
  if (p.whole_ms <= 0 || p.bits_ms <= 0)
    throw Error(ExitCode::internal, fmt::format("tune: a CUB sort did not run on {}", where));
  return p;
}

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
    require_verified(row, fmt::format("delta {} sigma {}", delta, sigma));
    if (row.status != RowStatus::ok) continue;  // unsupported: hp-tiled cannot take this range
    (row.algorithm == "hp-tiled" ? p.tiled_ms : p.cub_ms) = row.median_ms();
  }
  if (p.cub_ms <= 0)
    throw Error(ExitCode::internal, fmt::format("tune: cub-radix-bits did not run at delta {} sigma {}", delta, sigma));
  return p;
}

}  // namespace

TuneOutcome tune_crossovers(const TuneRequest& request, const std::function<void(const TunePoint&)>& progress,
                            const std::function<void(const RadixPoint&)>& radix_progress) {
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
  for (KeyType key : request.radix_keys) {
    const int key_digits = static_cast<int>(key_bytes(key));
    std::vector<RadixPoint> of_key;
    for (int digits = 1; digits < key_digits; ++digits) {
      of_key.push_back(measure_radix_point(request, key, digits));
      if (radix_progress) radix_progress(of_key.back());
      const RadixPoint& p = of_key.back();
      measured.push_back({{"n", request.radix_bytes / key_bytes(key)}, {"key", std::string(to_string(key))},
                          {"digits", digits}, {"cub-radix_ms", p.whole_ms}, {"cub-radix-bits_ms", p.bits_ms}});
    }
    out.profile.radix_whole_from_digits.push_back({key, fit_radix_crossover(of_key, key_digits)});
    out.radix_points.insert(out.radix_points.end(), of_key.begin(), of_key.end());
  }
  out.profile.measured = measured.dump();
  return out;
}

RadixCheckPoint judge_radix_point(const RadixPoint& p, int whole_from_digits, double tie) {
  RadixCheckPoint c;
  c.point = p;
  c.predicted_whole = p.digits >= whole_from_digits;
  const bool close = std::abs(p.whole_ms - p.bits_ms) <= tie * std::min(p.whole_ms, p.bits_ms);
  c.agrees = close || c.predicted_whole == p.whole_wins();
  return c;
}

std::vector<RadixCheckPoint> check_radix_crossovers(const ChoiceProfile& profile, const TuneRequest& request,
                                                    double tie,
                                                    const std::function<void(const RadixPoint&)>& progress) {
  std::vector<RadixCheckPoint> out;
  for (const RadixCrossover& c : profile.radix_whole_from_digits) {
    const int key_digits = static_cast<int>(key_bytes(c.key));
    for (int digits : {c.whole_from_digits - 1, c.whole_from_digits}) {
      if (digits < 1 || digits >= key_digits) continue;  // the built-in rule's side: nothing measured
      const RadixPoint p = measure_radix_point(request, c.key, digits);
      if (progress) progress(p);
      out.push_back(judge_radix_point(p, c.whole_from_digits, tie));
    }
  }
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
