// sortbench tune's measurements and fits (tune.hpp).
#include "sortbench/suite/tune.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

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

std::vector<DistScale> fit_dist_scales(const std::vector<DistPoint>& points) {
  std::map<std::tuple<int, bool, std::string>, std::vector<double>> ratios;
  for (const DistPoint& p : points)
    if (p.measured_ms > 0 && p.predicted_ms > 0)
      ratios[{p.world, p.payload != Payload::none, p.way}].push_back(p.measured_ms / p.predicted_ms);
  std::vector<DistScale> out;
  for (auto& [key, r] : ratios) {
    std::sort(r.begin(), r.end());
    const std::size_t h = r.size() / 2;
    const double median = r.size() % 2 ? r[h] : (r[h - 1] + r[h]) / 2;
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), median});
  }
  return out;
}

StreamChunkCost fit_stream_chunk(const StreamPoint& p, const std::string& algorithm) {
  StreamChunkCost c;
  c.algorithm = algorithm;
  c.chunk_bytes = p.chunk_bytes;
  const double gib = double(std::uint64_t{1} << 30);
  const double per_byte = (p.large_ms - p.small_ms) / (double(p.large_bytes) - double(p.small_bytes));
  c.ms_per_gib = per_byte * gib;
  c.fill_ms = std::max(0.0, p.small_ms - per_byte * double(p.small_bytes));
  return c;
}

DistCheck judge_dist_points(const std::vector<DistPoint>& points, const ChoiceProfile& profile, double tie) {
  DistCheck c;
  if (points.empty()) return c;
  c.world = points.front().world;
  c.payload = points.front().payload;
  c.n = points.front().n;
  double predicted = 0, fastest = 0, predicted_measured = 0;
  for (const DistPoint& p : points) {
    const double scaled =
        p.predicted_ms * dist_scale(profile, p.world, p.payload != Payload::none, p.way).value_or(1.0);
    if (c.predicted.empty() || scaled < predicted)
      c.predicted = p.way, predicted = scaled, predicted_measured = p.measured_ms;
    if (c.fastest.empty() || p.measured_ms < fastest) c.fastest = p.way, fastest = p.measured_ms;
  }
  c.agrees = predicted_measured <= (1 + tie) * fastest;
  return c;
}

namespace {

// A row that failed verification stops the tune (a crossover would rest on a wrong sort).
void require_verified(const ResultRow& row, const std::string& where) {
  if (row.status == RowStatus::verify_failed || row.status == RowStatus::error)
    throw Error(ExitCode::verification_failed,
                fmt::format("tune: {} failed at {} ({}); nothing was written", row.algorithm, where, row.reason));
}

// The one row of a plan of one algorithm, which must have run and been verified.
ResultRow the_row_that_ran(const std::vector<ResultRow>& rows, const std::string& way, const std::string& where) {
  if (rows.size() != 1 || rows.front().status != RowStatus::ok) {
    if (!rows.empty()) require_verified(rows.front(), where);
    throw Error(ExitCode::internal, fmt::format("tune: {} did not run at {}{}", way, where,
                                                rows.empty() ? "" : ": " + rows.front().reason));
  }
  require_verified(rows.front(), where);
  return rows.front();
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

// Both sorts on one generated input (u32 keys, with u32 values for the pairs ladder); a row
// that failed verification stops the tune (its crossover would rest on a wrong sort).
TunePoint measure_point(const TuneRequest& request, Payload payload, double sigma, double delta) {
  RunPlan plan;
  plan.request.n = payload == Payload::none ? request.n : request.pair_n;
  plan.request.delta = delta;
  plan.request.sigma = sigma;
  plan.request.payload = payload;
  plan.algorithms = {&registry().named("hp-tiled"), &registry().named("cub-radix-bits")};
  plan.settings = request.settings;
  TunePoint p;
  p.payload = payload;
  p.sigma = sigma;
  p.delta = delta;
  const std::string where =
      fmt::format("delta {} sigma {}{}", delta, sigma, payload == Payload::none ? "" : " with u32 values");
  for (const ResultRow& row : run_benchmark(plan)) {
    require_verified(row, where);
    if (row.status != RowStatus::ok) continue;  // unsupported: hp-tiled cannot take this range
    (row.algorithm == "hp-tiled" ? p.tiled_ms : p.cub_ms) = row.median_ms();
  }
  if (p.cub_ms <= 0) throw Error(ExitCode::internal, fmt::format("tune: cub-radix-bits did not run at {}", where));
  return p;
}

// One ladder (keys alone or pairs): its points, sigma by sigma, and one crossover a sigma.
std::vector<TiledCrossover> measure_ladder(const TuneRequest& request, Payload payload,
                                           const std::function<void(const TunePoint&)>& progress,
                                           std::vector<TunePoint>& points) {
  const bool pairs = payload != Payload::none;
  std::vector<TiledCrossover> crossovers;
  for (double sigma : pairs ? request.pair_sigmas : request.sigmas) {
    std::vector<TunePoint> at_sigma;
    for (double delta : pairs ? request.pair_deltas : request.deltas) {
      if (delta * sigma < 1) continue;  // more distinct values than keys: no such input
      at_sigma.push_back(measure_point(request, payload, sigma, delta));
      if (progress) progress(at_sigma.back());
    }
    crossovers.push_back({sigma, fit_tiled_crossover(at_sigma)});
    points.insert(points.end(), at_sigma.begin(), at_sigma.end());
  }
  return crossovers;
}

// The distributed points of one n and payload on the request's devices: every one of dist-auto's
// ways that takes the input, beside its prediction.
std::vector<DistPoint> measure_dist_points(const TuneRequest& request, Payload payload, std::uint64_t n) {
  const std::string where = fmt::format("dist-auto's ways on {} GPUs, n = {}{}", request.devices.size(), n,
                                        payload == Payload::none ? "" : " with u32 values");
  // dist-auto runs each way by --param variant; its details hold every way's prediction.
  auto run_way = [&](const std::string& algorithm, const std::string& way) {
    RunPlan plan;
    plan.request.n = n;
    plan.request.delta = 50;
    plan.request.sigma = 50;
    plan.request.payload = payload;
    plan.algorithms = {&registry().named(algorithm)};
    if (algorithm == "dist-auto") plan.params["variant"] = way;
    plan.devices = request.devices;
    plan.settings = request.settings;
    return the_row_that_ran(run_benchmark(plan), way, where);
  };
  auto detail = [](const ResultRow& row, const char* name) {
    for (const auto& [key, value] : row.details)
      if (key == name) return std::stod(value);
    return 0.0;
  };
  std::vector<DistPoint> out;
  const int world = static_cast<int>(request.devices.size());
  const ResultRow sample_sort = run_way("dist-auto", "dist-sample-sort");
  out.push_back({world, payload, n, "dist-sample-sort", sample_sort.median_ms(),
                 detail(sample_sort, "predicted_sample_sort_ms")});
  if (const double predicted = detail(sample_sort, "predicted_hp_ms"); predicted > 0)
    out.push_back({world, payload, n, "dist-hp", run_way("dist-hp", "dist-hp").median_ms(), predicted});
  // One GPU only where dist-auto may gather (its details hold that prediction only there).
  if (const double predicted = detail(sample_sort, "predicted_one_gpu_ms"); predicted > 0)
    out.push_back({world, payload, n, "one-gpu", run_way("dist-auto", "one-gpu").median_ms(), predicted});
  return out;
}

// ooc-hp's median on u32 keys, delta = 64, with chunks of at most chunk_mib MiB.
double measure_stream_run(const TuneRequest& request, std::uint64_t n, std::uint64_t chunk_mib) {
  RunPlan plan;
  plan.request.n = n;
  plan.request.delta = 64;
  plan.algorithms = {&registry().named("ooc-hp")};
  plan.params = {{"chunk_mib", std::to_string(chunk_mib)}};
  plan.settings = request.settings;
  // From host memory, as ooc-hp runs: on the GPU its row would say it streams only from there.
  plan.placement = PlacementKind::streamed;
  const std::string where = fmt::format("n {} with {} MiB chunks", n, chunk_mib);
  return the_row_that_ran(run_benchmark(plan), "ooc-hp", where).median_ms();
}

// The inputs the distributed points are measured on: keys alone and with u32 values, each n.
std::vector<std::pair<Payload, std::uint64_t>> dist_inputs(const TuneRequest& request) {
  std::vector<std::pair<Payload, std::uint64_t>> out;
  if (request.devices.size() < 2) return out;
  for (const Payload payload : {Payload::none, Payload::u32})
    for (const std::uint64_t n : request.dist_ns) out.emplace_back(payload, n);
  return out;
}

}  // namespace

TuneOutcome tune_crossovers(const TuneRequest& request, const std::function<void(const TunePoint&)>& progress,
                            const std::function<void(const RadixPoint&)>& radix_progress,
                            const std::function<void(const DistPoint&)>& dist_progress,
                            const std::function<void(const StreamPoint&)>& stream_progress) {
  TuneOutcome out;
  out.profile.hp_tiled_min_delta = measure_ladder(request, Payload::none, progress, out.points);
  out.profile.hp_pairs_min_delta = measure_ladder(request, Payload::u32, progress, out.points);
  nlohmann::json measured = nlohmann::json::array();
  for (const TunePoint& p : out.points) {
    const bool pairs = p.payload != Payload::none;
    measured.push_back({{"n", pairs ? request.pair_n : request.n}, {"payload", std::string(to_string(p.payload))},
                        {"sigma", p.sigma}, {"delta", p.delta}, {"hp-tiled_ms", p.tiled_ms},
                        {"cub-radix-bits_ms", p.cub_ms}});
  }
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
  for (const std::uint64_t mib : request.stream_chunk_mib) {
    StreamPoint p;
    p.chunk_bytes = mib << 20;
    p.small_bytes = request.stream_small_n * 4;
    p.large_bytes = request.stream_large_n * 4;
    p.small_ms = measure_stream_run(request, request.stream_small_n, mib);
    p.large_ms = measure_stream_run(request, request.stream_large_n, mib);
    if (stream_progress) stream_progress(p);
    out.stream_points.push_back(p);
    out.profile.stream_chunks.push_back(fit_stream_chunk(p, "ooc-hp"));
    measured.push_back({{"algorithm", "ooc-hp"}, {"delta", 64}, {"chunk_bytes", p.chunk_bytes},
                        {"n", {request.stream_small_n, request.stream_large_n}},
                        {"ms", {p.small_ms, p.large_ms}}});
  }
  for (const auto& [payload, n] : dist_inputs(request))
    for (const DistPoint& p : measure_dist_points(request, payload, n)) {
      if (dist_progress) dist_progress(p);
      out.dist_points.push_back(p);
      measured.push_back({{"n", p.n}, {"gpus", p.world}, {"payload", std::string(to_string(p.payload))},
                          {"delta", 50}, {"sigma", 50}, {"way", p.way}, {"measured_ms", p.measured_ms},
                          {"predicted_ms", p.predicted_ms}});
    }
  out.profile.dist_scales = fit_dist_scales(out.dist_points);
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
  for (const Payload payload : {Payload::none, Payload::u32}) {
    const bool pairs = payload != Payload::none;
    std::vector<double> ladder = pairs ? request.pair_deltas : request.deltas;
    std::sort(ladder.begin(), ladder.end());
    for (const TiledCrossover& c : pairs ? profile.hp_pairs_min_delta : profile.hp_tiled_min_delta) {
      if (c.min_delta >= kNeverTiled) continue;
      // The ladder's delta below the crossover and the one at or above it.
      const auto at = std::lower_bound(ladder.begin(), ladder.end(), c.min_delta);
      std::vector<double> beside;
      if (at != ladder.begin()) beside.push_back(*(at - 1));
      if (at != ladder.end()) beside.push_back(*at);
      for (double delta : beside) {
        if (delta * c.sigma < 1) continue;
        const TunePoint p = measure_point(request, payload, c.sigma, delta);
        if (progress) progress(p);
        out.push_back(judge_point(p, c.min_delta, tie));
      }
    }
  }
  return out;
}

std::vector<DistCheck> check_dist_points(const ChoiceProfile& profile, const TuneRequest& request, double tie,
                                         const std::function<void(const DistPoint&)>& progress) {
  std::vector<DistCheck> out;
  for (const auto& [payload, n] : dist_inputs(request)) {
    const std::vector<DistPoint> points = measure_dist_points(request, payload, n);
    if (progress)
      for (const DistPoint& p : points) progress(p);
    out.push_back(judge_dist_points(points, profile, tie));
  }
  return out;
}

}  // namespace sb
