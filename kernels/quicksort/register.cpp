// The quicksort family (seed 002, Kimura 2016): P-Quick with Dynamic Parallelism in the
// paper's Partition variants and noDP forms, its DP merge sort, and quick-fast.
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "quicksort.hpp"
#include "quicksort_index.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/core/types.hpp"

namespace sb {
namespace {

constexpr long kDefaultArity = 4;  // the paper's choice (figure 3)
// Most launches that may wait at once; launches past it fall back to the launching block.
constexpr std::uint64_t kPendingLaunchCap = std::uint64_t{1} << 18;
constexpr std::uint64_t kPendingLaunchFloor = 2048;  // CUDA's default
// One thread partitions the whole input first: the cap keeps a sort within a few seconds
// (docs/quicksort.md, "Caps").
constexpr std::uint64_t kSeqMaxN = std::uint64_t{1} << 22;

int arity_of(const SortProblem& p) { return static_cast<int>(p.param_int("arity", kDefaultArity)); }

// quick-fast's grid threshold (log2 of elements), chosen on an H200 (docs/quicksort.md). Its
// shared-memory threshold is the largest whose leaf buffers fit 64 KiB (2^13 for 4-byte keys,
// as chosen there), at most 128 KiB when set: both follow the element's bytes.
constexpr long kFastGridLog2 = 16;

// Bytes of one element of the problem: key plus payload value.
int element_bytes(const SortProblem& p) {
  return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [](auto k, auto v) {
    using V = decltype(v);
    return int(sizeof k) + (std::is_same_v<V, NoValue> ? 0 : int(sizeof(V)));
  });
}
// quick-sample's grids per level, pivots/count/place/plan in microseconds: "12/85/140/4 30/80/120/6".
std::string grid_times(const qs::SampleReport& r) {
  std::string s;
  for (const auto& l : r.stage_us) s += fmt::format("{}{:.0f}/{:.0f}/{:.0f}/{:.0f}", s.empty() ? "" : " ", l[0], l[1], l[2], l[3]);
  return s;
}

int fast_smem_log2_default(const SortProblem& p) {
  return qs::leaf_smem_log2_within(qs::kLeafBuffersDefaultBytes, element_bytes(p));
}
int fast_smem_log2_max(const SortProblem& p) {
  return qs::leaf_smem_log2_within(qs::kLeafBuffersMaxBytes, element_bytes(p));
}

qs::FastOptions fast_options(const SortProblem& p) {
  return {arity_of(p), static_cast<int>(p.param_int("smem_log2", fast_smem_log2_default(p))),
          static_cast<int>(p.param_int("grid_log2", kFastGridLog2))};
}

std::optional<std::string> arity_problem(const SortProblem& p) {
  if (!qs::valid_arity(p.param_int("arity", kDefaultArity))) return std::string("--param arity must be 2, 4 or 8");
  return std::nullopt;
}

template <typename F>
void with_keys(const SortProblem& p, const DeviceBuffers& b, F&& f) {
  dispatch_key<Keys32>(p.shape.key, [&](auto k) {
    using K = decltype(k);
    if constexpr (!std::is_same_v<K, Row4>) {
      K* const keys[2] = {static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1])};
      f(keys);
    }
  });
}

Algorithm base(std::string name, std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "quicksort";
  a.backend = Backend::gpu;
  declare_types<Keys32, KeysOnly>(a);
  a.stable = false;
  a.source = std::move(source);
  a.params = {"arity"};
  a.unsupported = arity_problem;
  a.details = [](const SortProblem& p) { return Details{{"arity", std::to_string(arity_of(p))}}; };
  return a;
}

void add_paper_variant(Registry& r, const std::string& name, qs::Method m, bool dp, const std::string& what) {
  Algorithm a = base(name, "seed 002 (Kimura 2016) section 4: " + what + (dp ? ", Dynamic Parallelism" : ", noDP"));
  a.role = AlgorithmRole::reproduction;
  a.pick_when = "the paper's P-Quick, " + what.substr(0, what.find(' ')) + " partition, " +
                (dp ? "Dynamic Parallelism" : "host launches (noDP)") + ": to set beside the paper";
  a.constraints = "split arity K = --param arity (2, 4, 8; default 4)";
  if (m == qs::Method::seq) {
    a.constraints += "; n <= 2^22";
    a.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
      if (p.n() > kSeqMaxN) return std::string("n above 2^22: one-thread partition of the whole input (20 s at 2^24)");
      return arity_problem(p);
    };
  }
  if (dp) {
    a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
    a.prepare = [](const SortProblem& p, const DeviceContext& d) {
      qs::raise_pending_launches(d, qs::pending_launch_bound(p.n(), qs::kSelectionBelow, kPendingLaunchFloor,
                                                             kPendingLaunchCap));
    };
    a.release = [](const SortProblem&, const DeviceContext& d) { qs::release_pending_launches(d); };
    a.run_device = [m](const SortProblem& p, const DeviceBuffers& b) {
      with_keys(p, b, [&](auto keys) { qs::launch_quick_dp(m, keys, p.n(), arity_of(p), b.stream); });
      return 0;
    };
  } else {
    a.workspace_bytes = [](const SortProblem& p) { return qs::nodp_workspace_bytes(p.n()); };
    a.run_device = [m](const SortProblem& p, const DeviceBuffers& b) {
      with_keys(p, b, [&](auto keys) { qs::run_quick_nodp(m, keys, p.n(), arity_of(p), b.workspace, b.stream); });
      return 0;
    };
  }
  r.add(a);
}

// quick-sample (DP) and quick-sample-nodp (the host drives the levels, as the paper's noDP forms).
void add_sample_variant(Registry& r, const std::string& name, bool device_launches) {
  Algorithm sample = base(name, std::string("beyond seed 002 (issue 18): sample sort, up to 255 pivots a split from a "
                                            "sorted sample, all segments of a level split by one set of grids ") +
                                    (device_launches ? "launched from the device (Dynamic Parallelism)"
                                                     : "launched by the host (noDP: one synchronization a level past the first)") +
                                    ", leaves by CUB BlockRadixSort");
  sample.constraints = "not stable";
  sample.pick_when = device_launches
                         ? "quick-sample-nodp's grids launched by the device (DP): to measure what device launches cost"
                         : "a comparison sort of any scalar key and value column: faster than cub-merge, not stable";
  sample.params = {};
  sample.unsupported = nullptr;
  sample.details = nullptr;
  sample.workspace_bytes = [](const SortProblem& p) {
    return qs::sample_workspace_bytes(p.n(), int(key_bytes(p.shape.key)), int(payload_bytes(p.shape.payload)));
  };
  set_device_run<ScalarKeys, AllValues>(sample, [device_launches](auto b, const SortProblem& p) {
    qs::launch_quick_sample(b.keys, b.vals, p.n(), device_launches, b.workspace, b.workspace_bytes, b.stream,
                            b.device);
    return 0;
  });
  sample.observed = [](const SortProblem&, const DeviceBuffers& b) {
    const qs::SampleReport r = qs::read_sample_report(b.workspace, b.stream);
    auto join = [](const std::vector<std::uint64_t>& v) {
      std::string s;
      for (std::uint64_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
      return s;
    };
    return Details{{"levels", std::to_string(r.segments.size())},
                   {"segments", join(r.segments)},
                   {"blocks", join(r.blocks)},
                   {"leaves", std::to_string(r.sort_leaves)},
                   {"copies", std::to_string(r.copy_leaves)},
                   {"bitonic_parts", std::to_string(r.bitonic_leaves)},
                   {"device_launches", std::to_string(r.launches)},
                   {"refused", std::to_string(r.refused)},
                   {"grid_us", grid_times(r)},
                   {"tree_us", fmt::format("{:.1f}", r.tree_us)},
                   {"leaf_us", fmt::format("{:.1f}", r.leaf_us)}};
  };
  sample.stable = false;
  r.add(sample);
}

}  // namespace

void register_quicksort(Registry& r) {
  add_paper_variant(r, "quick-seq-nodp", qs::Method::seq, false, "Sequential (one-thread Partition)");
  add_paper_variant(r, "quick-seq", qs::Method::seq, true, "Sequential (one-thread Partition)");
  add_paper_variant(r, "quick-prefix-nodp", qs::Method::prefix, false, "Prefix (one warp, shuffle prefix sum)");
  add_paper_variant(r, "quick-prefix", qs::Method::prefix, true, "Prefix (one warp, shuffle prefix sum)");
  add_paper_variant(r, "quick-pprefix", qs::Method::pprefix, true, "P-Prefix (round r splits 2^r parts with 2^r warps)");
  add_paper_variant(r, "quick-direct", qs::Method::direct, true, "Direct-Prefix (one-pass K-way split, two prefix sums)");

  Algorithm merge = base("merge-dp", "seed 002 (Kimura 2016) section 5: Merge, merge sort with Dynamic Parallelism");
  merge.role = AlgorithmRole::reproduction;
  merge.pick_when = "the paper's merge sort with Dynamic Parallelism: to set beside the paper; cub-merge is faster";
  merge.params = {};
  merge.unsupported = nullptr;
  merge.details = nullptr;
  merge.constraints = "halves by DP children, merge by a tail launch";
  merge.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  merge.prepare = [](const SortProblem& p, const DeviceContext& d) {
    qs::raise_pending_launches(d, qs::pending_launch_bound(p.n(), qs::kSelectionBelow / 2, kPendingLaunchFloor,
                                                           kPendingLaunchCap));
  };
  merge.release = [](const SortProblem&, const DeviceContext& d) { qs::release_pending_launches(d); };
  merge.run_device = [](const SortProblem& p, const DeviceBuffers& b) {
    with_keys(p, b, [&](auto keys) { qs::launch_merge_dp(keys, p.n(), b.stream); });
    return 0;
  };
  r.add(merge);

  Algorithm fast = base("quick-fast", "beyond seed 002: DP quicksort, grid-wide K-way splits of big segments, "
                                      "smaller parts sorted by one leaf grid (a block per part, splits in "
                                      "shared memory, CUB BlockRadixSort up to 4096 4-byte keys)");
  fast.constraints = "split arity K = --param arity (2, 4, 8; default 4); --param smem_log2 (11 to the largest "
                     "whose two leaf buffers fit 128 KiB: 14 for 4-byte elements, 13 for 8, 12 for 12 and 16; "
                     "default: theirs fit 64 KiB), --param grid_log2 (smem_log2-24, default " +
                     std::to_string(kFastGridLog2) + ")";
  fast.pick_when = "a quicksort whose recursion the GPU launches itself (DP), made fast: to study DP launch costs";
  fast.params = {"arity", "smem_log2", "grid_log2"};
  fast.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (auto why = arity_problem(p)) return why;
    const qs::FastOptions o = fast_options(p);
    const int smem_max = fast_smem_log2_max(p);
    if (o.smem_log2 < qs::kLeafSmemLog2Min || o.smem_log2 > smem_max)
      return "--param smem_log2 must be " + std::to_string(qs::kLeafSmemLog2Min) + " to " + std::to_string(smem_max) +
             " for this element (two buffers of 2^smem_log2 elements in at most 128 KiB of shared memory)";
    if (o.grid_log2 < o.smem_log2 || o.grid_log2 > 24)
      return std::string("--param grid_log2 must be smem_log2 to 24");
    return std::nullopt;
  };
  fast.details = [](const SortProblem& p) {
    const qs::FastOptions o = fast_options(p);
    return Details{{"arity", std::to_string(o.arity)},
                   {"smem_log2", std::to_string(o.smem_log2)},
                   {"grid_log2", std::to_string(o.grid_log2)}};
  };
  fast.workspace_bytes = [](const SortProblem& p) {
    return qs::fast_workspace_bytes(p.n(), fast_options(p).grid_log2);
  };
  fast.prepare = [](const SortProblem& p, const DeviceContext& d) {
    qs::raise_pending_launches(d, qs::pending_launch_bound(p.n(), 4096, kPendingLaunchFloor, kPendingLaunchCap));
  };
  fast.release = [](const SortProblem&, const DeviceContext& d) { qs::release_pending_launches(d); };
  // Every scalar key with every payload; splits claim slots with atomics, so not stable.
  set_device_run<ScalarKeys, AllValues>(fast, [](auto b, const SortProblem& p) {
    qs::launch_quick_fast(b.keys, b.vals, p.n(), fast_options(p), b.workspace, b.workspace_bytes, b.stream, b.device);
    return 0;
  });
  fast.stable = false;
  r.add(fast);

  add_sample_variant(r, "quick-sample", true);
  add_sample_variant(r, "quick-sample-nodp", false);
}

}  // namespace sb
