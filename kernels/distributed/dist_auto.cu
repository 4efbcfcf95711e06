// dist-auto (issue 38): the distributed sort a user should have picked. When the ranks have met
// it measures their fabric (algo/fabric_rates.hpp: the copy rate, the all-to-all rate, the
// latencies), predicts dist-hp, dist-sample-sort and one GPU with the rule of dist_cost_model.hpp
// (CPU-tested), scales each prediction by what the GPU's profile measured of that way (`tune
// --gpus N`, issue 50), and runs the fastest; the row records the choice (details.variant) and
// the predictions beside the measured rates. "One GPU" gathers every slice on rank 0, which sorts
// the whole input with CUB on the range's bits (cub-radix-bits): the choice for inputs so small
// that collectives cost more than the sort. `--param variant=WAY` runs one way whatever the rule
// says (tune measures each way so).
#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "../hp/hp.hpp"
#include "dist_cost_model.hpp"
#include "distributed.hpp"
#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/random.hpp"
#include "sortbench/algo/fabric_rates.hpp"

namespace sb::dist {
namespace {

using u64 = std::uint64_t;

// One GPU: rank 0 receives every other slice behind its own (slices are in rank order) and
// sorts the whole input; the other ranks end empty.
RankAlgorithm one_gpu_ranks() {
  RankAlgorithm ranks;
  ranks.phases = {"local", "gather", "sort"};
  ranks.capacity = [](const SortProblem&, u64 n, int) { return n; };
  ranks.workspace_bytes = [](const SortProblem& p, const RankSlice&, u64, const DeviceContext& d) -> std::size_t {
    return d.rank == 0 ? range_radix_sort_bytes(p) : 0;
  };
  ranks.run = [](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                 const PhaseMarks& marks) -> RankResult {
    const cudaStream_t stream = rank.stream();
    const int world = rank.world(), me = rank.rank();
    const std::size_t kb = key_bytes(p.shape.key), vb = p.has_payload() ? payload_bytes(p.shape.payload) : 0;
    marks.mark(0, stream);
    if (world > 1) {
      // Keys, then values where there are: every slice lands at its global position.
      std::vector<PeerTransfer> transfers;
      for (const auto& [column, width] : {std::pair<void*, std::size_t>{b.keys[0], kb}, {b.values[0], vb}}) {
        if (!width) continue;
        if (me == 0) {
          for (int q = 1; q < world; ++q)
            transfers.push_back({q, nullptr, 0, static_cast<char*>(column) + slice_begin(q, s.n, world) * width,
                                 slice_size(q, s.n, world) * width});
        } else {
          transfers.push_back({0, column, s.count * width, nullptr, 0});
        }
      }
      rank.exchange(transfers);
    }
    marks.mark(1, stream);
    if (me != 0) {
      marks.mark(2, stream);
      return {0, 0};
    }
    DeviceBuffers whole;
    whole.keys[0] = b.keys[0];
    whole.keys[1] = b.keys[1];
    whole.vals[0] = b.values[0];
    whole.vals[1] = b.values[1];
    whole.workspace = b.workspace;
    whole.workspace_bytes = b.workspace_bytes;
    whole.stream = stream;
    whole.device = &rank.ctx();
    const int sorted = s.n ? range_radix_sort(p, whole) : 0;
    marks.mark(2, stream);
    return {sorted, s.n};
  };
  return ranks;
}

// Bits a radix sort of the realized range sorts (every bit of a float key).
unsigned range_bits_of(const SortProblem& p) {
  const bool is_float = dispatch_key<ScalarKeys>(p.shape.key, [](auto k) { return KeyTraits<decltype(k)>::is_float; });
  const unsigned width = unsigned(key_bytes(p.shape.key) * 8);
  if (is_float) return width;
  return bit_width64(p.facts.max_ordered - p.facts.min_ordered);
}

struct Members {
  Algorithm hp, sample_sort;
  std::shared_ptr<const RankAlgorithm> one_gpu = std::make_shared<const RankAlgorithm>(one_gpu_ranks());
};

DistShape shape_of(const SortProblem& p, const Members& m, int world, const FabricRates& rates) {
  DistShape s;
  s.n = p.n();
  s.world = world;
  s.key_bytes = unsigned(key_bytes(p.shape.key));
  s.value_bytes = unsigned(payload_bytes(p.shape.payload));
  s.range_bits = range_bits_of(p);
  s.key_bits = s.key_bytes * 8;
  const u64 slice = slice_size(0, p.n(), world);
  const SortProblem local = slice_keys_problem(p, slice);
  s.hp = !m.hp.why_unsupported(p) && std::string(hp::histogram_name(local, slice)) != "global";
  if (s.hp) {
    s.range = hp::problem_range(p);
    s.distinct = p.facts.len;
    s.hp_levels = hp::histogram_levels(local, slice);
    s.count_bytes = p.n() >= (u64{1} << 32) ? 8 : 4;
  }
  s.one_gpu = double(s.n) * (s.key_bytes + s.value_bytes) <= rates.l2_bytes;
  s.l2_bytes = rates.l2_bytes;
  return s;
}

DistRates rates_of(const FabricRates& f) { return {f.copy_gbs, f.exchange_gbs, f.latency_s, f.launch_s}; }

constexpr DistChoice kWays[] = {DistChoice::one_gpu, DistChoice::hp, DistChoice::sample_sort};

// The profile's scales of the ways for this world and payload (1 where it measured none), the
// same on every rank: the largest any rank's profile gives, so that ranks whose GPUs read
// different profiles still choose alike.
DistScales agreed_scales(const SortProblem& p, const Rank& rank) {
  double scale[3] = {1, 1, 1};
  if (const auto& profile = rank.ctx().profile)
    for (int i = 0; i < 3; ++i)
      scale[i] = dist_scale(*profile, rank.world(), p.has_payload(), dist_choice_name(kWays[i])).value_or(1.0);
  agree_max(rank, scale, 3);
  return {scale[0], scale[1], scale[2]};
}

// --param variant=WAY, where given: the way to run whatever the rule says. UsageError for a name
// that is not a way, or dist-hp where it does not take the input (`hp_takes_it`).
std::optional<DistChoice> forced_way(const SortProblem& p, bool hp_takes_it) {
  const auto it = p.params.find("variant");
  if (it == p.params.end()) return std::nullopt;
  for (DistChoice c : kWays)
    if (it->second == dist_choice_name(c)) {
      if (c == DistChoice::hp && !hp_takes_it)
        throw UsageError("dist-auto: --param variant=dist-hp, but dist-hp does not take this input (it needs integer "
                         "keys whose range an H-P histogram counts); drop the variant or pick another");
      return c;
    }
  throw UsageError(
      fmt::format("dist-auto: --param variant={} is not one-gpu, dist-hp or dist-sample-sort", it->second));
}

// Where plan recorded the choice; before it (the harness's first look at the memory a rank
// needs), the sample sort, which takes every input.
const RankAlgorithm& chosen(const SortProblem& p, const Members& m) {
  const auto it = p.params.find("variant");
  if (it == p.params.end() || it->second == dist_choice_name(DistChoice::sample_sort)) return *m.sample_sort.ranks;
  if (it->second == dist_choice_name(DistChoice::hp))  // one forced where dist-hp cannot go: plan refuses it
    return m.hp.why_unsupported(p) ? *m.sample_sort.ranks : *m.hp.ranks;
  if (it->second == dist_choice_name(DistChoice::one_gpu)) return *m.one_gpu;
  return *m.sample_sort.ranks;
}

}  // namespace

Algorithm make_dist_auto(const Algorithm& hp, const Algorithm& sample_sort) {
  auto m = std::make_shared<const Members>(Members{hp, sample_sort});
  RankAlgorithm ranks;
  ranks.phases = {"local", "exchange", "final"};
  ranks.plan = [m](SortProblem& p, const Rank& rank) {
    const FabricRates f = measure_fabric(rank);
    const DistShape shape = shape_of(p, *m, rank.world(), f);
    const DistRates r = rates_of(f);
    const DistScales scales = agreed_scales(p, rank);
    const std::optional<DistChoice> forced = forced_way(p, shape.hp);
    p.params["variant"] = dist_choice_name(forced ? *forced : dist_choice(shape, r, scales));
    // The model's predictions as they are (tune divides measured times by them); the scales beside.
    p.params["predicted_sample_sort_ms"] = fmt::format("{:.4f}", dist_sample_sort_s(shape, r) * 1e3);
    if (shape.hp) p.params["predicted_hp_ms"] = fmt::format("{:.4f}", dist_hp_s(shape, r) * 1e3);
    if (shape.one_gpu) p.params["predicted_one_gpu_ms"] = fmt::format("{:.4f}", dist_one_gpu_s(shape, r) * 1e3);
    for (DistChoice c : kWays)
      if (scales.of(c) != 1.0)
        p.params[fmt::format("scale_{}", dist_choice_name(c))] = fmt::format("{:.3f}", scales.of(c));
    for (const auto& [name, value] : fabric_details(f)) p.params[name] = value;
  };
  ranks.capacity = [m](const SortProblem& p, u64 n, int world) { return chosen(p, *m).capacity(p, n, world); };
  ranks.workspace_bytes = [m](const SortProblem& p, const RankSlice& s, u64 capacity, const DeviceContext& d) {
    return chosen(p, *m).workspace_bytes(p, s, capacity, d);
  };
  ranks.prepare = [m](const SortProblem& p, const DeviceContext& d) {
    if (const auto& prepare = chosen(p, *m).prepare) prepare(p, d);
  };
  ranks.run = [m](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                  const PhaseMarks& marks) { return chosen(p, *m).run(p, s, b, rank, marks); };
  ranks.details = [m](const SortProblem& p, int world) {
    const RankAlgorithm& member = chosen(p, *m);
    Details d{{"variant", p.params.count("variant") ? p.params.at("variant") : "dist-sample-sort"}};
    std::string phases;
    for (const auto& ph : member.phases) phases += (phases.empty() ? "" : ",") + ph;
    d.emplace_back("variant_phases", phases);
    if (member.details)
      for (auto& kv : member.details(p, world)) d.push_back(std::move(kv));
    for (const char* name : {"predicted_hp_ms", "predicted_sample_sort_ms", "predicted_one_gpu_ms", "scale_one-gpu",
                             "scale_dist-hp", "scale_dist-sample-sort", "fabric_copy_gbs", "fabric_exchange_gbs",
                             "fabric_latency_us", "fabric_launch_us"})
      if (p.params.count(name)) d.emplace_back(name, p.params.at(name));
    return d;
  };
  Algorithm a = distributed_algorithm(
      "dist-auto",
      "issue 38: dist-hp, dist-sample-sort or one GPU, chosen by a rule over the fabric rates measured on the ranks "
      "(copy, all-to-all, latency) and the bytes each way moves (dist_cost_model.hpp)",
      std::move(ranks));
  a.constraints = "every scalar key type (dist-hp only where it takes the input)";
  a.params = sample_sort.params;
  a.params.push_back("variant");
  for (const auto& name : hp.params)
    if (std::find(a.params.begin(), a.params.end(), name) == a.params.end()) a.params.push_back(name);
  declare_types<ScalarKeys, AllValues>(a);
  // A bad --param variant: a usage error before any rank starts.
  a.unsupported = [m](const SortProblem& p) -> std::optional<std::string> {
    forced_way(p, !m->hp.why_unsupported(p));
    return std::nullopt;
  };
  a.stable = true;  // each way is, with a payload: dist-hp and dist-sample-sort (their notes), CUB on one GPU
  return a;
}

}  // namespace sb::dist
