// hp-auto's rule, the fast H-P versions' support checks, and their registration (beyond seed
// 004; method notes in docs/hp.md): host arithmetic over the problem and the device's facts;
// the launches are in hp_fast.cu.
#include <algorithm>

#include <fmt/format.h>

#include "hp.hpp"
#include "hp_fast_plan.hpp"
#include "hp_auto_rule.hpp"
#include "hp_index.hpp"
#include "hp_scatter_index.hpp"
#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/core/errors.hpp"

namespace sb::hp {
namespace fast {

unsigned low_bits_of(const SortProblem& p, unsigned fallback, const char* who, unsigned max_bits) {
  const long bits = p.param_int("low_bits", fallback);
  if (bits < long{kLowBitsMin} || bits > long{max_bits})
    throw UsageError(fmt::format("{}: low_bits={} out of range; use {}..{}", who, bits, kLowBitsMin, max_bits));
  return static_cast<unsigned>(bits);
}

// hp-tiled with a payload: place_pairs pays for every bin of its bucket in each batch (a
// scan, the cursors' update), so the buckets are the narrowest whose count hp-tiled takes
// (docs/hp.md, tiled_pair_width), and they must leave room for a batch of values in shared
// memory; 0 where --param low_bits asks for buckets too wide for that.
unsigned tiled_pair_width(const SortProblem& p, bool stable) {
  const unsigned widest = widest_pair_width(p, stable);
  if (p.params.count("low_bits")) {
    const unsigned w = low_bits_of(p, kTiledLowBits, tiled_name(stable));
    return w <= widest ? w : 0;
  }
  unsigned w = kLowBitsMin;
  while (w < kTiledLowBits && buckets_for(problem_range(p), w) > kTiledMaxBuckets) ++w;
  return std::min(w, widest);
}

namespace {
unsigned tiled_param_low_bits(const SortProblem& p) {
  return p.params.count("low_bits") ? low_bits_of(p, kTiledLowBits, "hp-tiled") : kTiledLowBits;
}
}  // namespace

unsigned tiled_levels(const SortProblem& p) {
  if (p.has_payload()) return 1;
  if (p.params.count("levels")) {
    const long levels = p.param_int("levels", 1);
    if (levels != 1 && levels != 2)
      throw UsageError(fmt::format("hp-tiled: levels={} is not 1 or 2; use 1 (group in place) or 2 (partition first)",
                                   levels));
    return static_cast<unsigned>(levels);
  }
  return buckets_for(problem_range(p), tiled_param_low_bits(p)) > kTiledOneLevelMaxBuckets ? 2 : 1;
}

SplitPlan tiled_split(const SortProblem& p) {
  if (tiled_levels(p) != 2) return {};
  const long fine_bits =
      p.param_int("fine_bits", balanced_fine_bits(problem_range(p), tiled_param_low_bits(p), kSplitMinFineBits));
  if (fine_bits < 1 || fine_bits > 10)
    throw UsageError(fmt::format("hp-tiled: fine_bits={} out of range; use 1..10 (at least 2^fine_bits buckets a super-bucket)",
                                 fine_bits));
  return split_plan(problem_range(p), tiled_param_low_bits(p), kSplitMaxSupers, static_cast<unsigned>(fine_bits));
}

unsigned count_bits_of(const SortProblem& p) {
  const bool wide = p.n() >= (std::uint64_t{1} << 32);
  if (!p.params.count("count_bits")) return wide ? 64 : 32;
  const long bits = p.param_int("count_bits", 32);
  if (bits != 32 && bits != 64)
    throw UsageError(fmt::format("count_bits={} is not 32 or 64; use 64 to force 64-bit counts", bits));
  if (bits == 32 && wide) throw UsageError("count_bits=32 cannot count 2^32 keys or more; use 64");
  if (bits == 64 && p.has_payload()) throw UsageError("count_bits=64 is for keys alone; drop it with a payload");
  return static_cast<unsigned>(bits);
}

bool expansion_is_dense(const SortProblem& p) {
  if (auto it = p.params.find("expansion"); it != p.params.end()) {
    if (it->second == "dense") return true;
    if (it->second == "runs") return false;
    throw UsageError(fmt::format("--param expansion={} is not dense or runs", it->second));
  }
  return dense_expansion(p.n(), problem_range(p), p.facts.len);
}

namespace {
// The buffered scatter's shared memory for `buckets` buffers, at 64-bit positions where wide.
std::size_t scatter_bytes(std::uint64_t buckets, bool wide) {
  return wide ? scatter_shared_bytes<std::uint64_t>(buckets) : scatter_shared_bytes<std::uint32_t>(buckets);
}
// The same for p's buckets of 2^low_bits bins, at its positions' width.
std::size_t hybrid_scatter_bytes(const SortProblem& p, unsigned low_bits) {
  return scatter_bytes(buckets_for(problem_range(p), low_bits), wide_counts(Histogram::hybrid, p));
}
// Whether kBufferedScatterBlocksPerSm buffered scatter blocks of `bytes` share an SM of d.
bool scatter_blocks_pair(std::size_t bytes, const DeviceFacts& d) {
  return kBufferedScatterBlocksPerSm * (bytes + kReservedSharedPerBlock) <= d.smem_per_sm;
}
}  // namespace

unsigned hybrid_low_bits(const SortProblem& p) {
  if (p.params.count("low_bits")) return low_bits_of(p, kLowBits, "hp-hybrid", kHybridMaxLowBits);
  const DeviceFacts d = device_facts(p);
  const bool wider_pairs = !scatter_blocks_pair(hybrid_scatter_bytes(p, kLowBits), d) &&
                           scatter_blocks_pair(hybrid_scatter_bytes(p, kHybridMaxLowBits), d);
  return wider_pairs ? kHybridMaxLowBits : kLowBits;
}

bool hybrid_scatter_buffered(const SortProblem& p, const DeviceFacts& d) {
  const unsigned low_bits = hybrid_low_bits(p);
  const std::uint64_t buckets = buckets_for(problem_range(p), low_bits);
  const bool fits = hybrid_scatter_bytes(p, low_bits) <= d.smem_per_block;
  if (auto it = p.params.find("scatter"); it != p.params.end()) {
    if (it->second == "grouped") return false;  // hybrid_unsupported declines it with 64-bit counts
    if (it->second == "buffered") return fits;  // hybrid_unsupported names the shortfall
    throw UsageError(fmt::format("--param scatter={} is not grouped or buffered", it->second));
  }
  return fits && (buckets >= kBufferedScatterMinBuckets || wide_counts(Histogram::hybrid, p));
}

unsigned hybrid_scatter_threads(const SortProblem& p, const DeviceFacts& d) {
  if (!hybrid_scatter_buffered(p, d)) return 0;
  if (p.params.count("scatter_threads")) {
    const long threads = p.param_int("scatter_threads", kScatterThreadsPaired);
    if (threads != kScatterThreadsPaired && threads != kScatterThreadsAlone)
      throw UsageError(fmt::format("hp-hybrid: scatter_threads={} is not {} or {}", threads, kScatterThreadsPaired,
                                   kScatterThreadsAlone));
    return static_cast<unsigned>(threads);
  }
  return scatter_blocks_pair(hybrid_scatter_bytes(p, hybrid_low_bits(p)), d) ? kScatterThreadsPaired
                                                                             : kScatterThreadsAlone;
}

std::uint64_t buffered_hybrid_max_range(const DeviceFacts& d, bool wide) {
  const std::size_t per_block = d.smem_per_sm / kBufferedScatterBlocksPerSm;
  const std::size_t room = std::min(per_block > kReservedSharedPerBlock ? per_block - kReservedSharedPerBlock : 0,
                                    d.smem_per_block);
  const std::size_t fixed = scatter_bytes(0, wide), per_bucket = scatter_bytes(1, wide) - fixed;
  const std::uint64_t buckets = room > fixed ? (room - fixed) / per_bucket : 0;
  return std::min<std::uint64_t>(buckets, kMaxBuckets) << kHybridMaxLowBits;
}

Details fast_details(Histogram h, const SortProblem& p) {
  const bool keys_tiled = tiles(h) && !p.has_payload();
  const unsigned count_bits = wide_counts(h, p) ? 64 : 32;
  Details d{{"count_bits", std::to_string(count_bits)}};
  TrafficInput traffic;
  traffic.count_bytes = count_bits / 8;
  if (!p.has_payload()) {
    traffic.dense = expansion_is_dense(p);
    d.emplace_back("expansion", traffic.dense ? "dense" : "runs");
  }
  TrafficPath path = h == Histogram::hybrid ? TrafficPath::hybrid : TrafficPath::shared;
  if (h == Histogram::hybrid) {
    const unsigned threads = hybrid_scatter_threads(p, device_facts(p));
    d.emplace_back("low_bits", std::to_string(hybrid_low_bits(p)));
    d.emplace_back("scatter", threads ? "buffered" : "grouped");
    if (threads) d.emplace_back("scatter_threads", std::to_string(threads));
  }
  if (keys_tiled) {
    const SplitPlan split = tiled_split(p);
    d.emplace_back("levels", split.supers ? "2" : "1");
    if (split.supers) d.emplace_back("supers", std::to_string(split.supers));
    path = split.supers ? TrafficPath::tiled_split : TrafficPath::tiled;
  } else if (p.has_payload()) {
    path = tiles(h) ? TrafficPath::tiled_pairs : TrafficPath::scatter_pairs;
    traffic.scattered_hybrid = h == Histogram::hybrid;
  }
  d.push_back(traffic_detail(path, p, traffic));
  return d;
}

}  // namespace fast

namespace {

using namespace fast;

// hp-auto's thresholds (see auto_choice): measured crossovers on an H200, not derived (the
// measurements: docs/hp.md, hp-auto's thresholds). The hybrid and the global histogram from 4
// keys a bin, where they beat CUB.
constexpr std::uint64_t kAutoDenseKeysPerBin = 4;
constexpr std::uint64_t kAutoSparseKeysPerBin = 4;
// hp-tiled from one key a bin and a distinct value, where it was the fastest H-P variant and
// beat CUB; past one band of hp-smem's counters while fewer than 8 bins a distinct value are in
// the range: it won at 4 and lost at 16.
constexpr std::uint64_t kAutoTiledKeysPerBin = 1;
constexpr std::uint64_t kAutoTiledKeysPerValue = 1;
constexpr std::uint64_t kAutoPairBandBinsPerValue = 8;
// With a payload, hp-tiled where it beat cub-radix-bits: 16 keys a bin and 16 bins a distinct
// value (sigma >= 50, delta >= 16) over 2^16..2^22 bins; not where a batch holds a few keys of
// each present bin (its stores are then short runs), not with 4 keys a bin (docs/hp.md,
// hp-auto with a payload).
constexpr std::uint64_t kAutoPairsKeysPerBin = 16;
constexpr std::uint64_t kAutoPairsBinsPerValue = 16;
constexpr std::uint64_t kAutoPairsMinRange = std::uint64_t{1} << 16;
constexpr std::uint64_t kAutoPairsMaxRange = std::uint64_t{1} << 22;
// hp-tiled in two levels (keys alone) from this many keys a bin, or from one where each distinct
// value has 16 keys: the partition adds 12 bytes a key, the range's counters and runs 12 bytes a
// bin. At n = 2^28 (H100) it beat CUB by 24-50 % at delta = 2, by 13-17 % at delta = 1 with sigma
// 50 and 1,024, by 6 % at sigma 4, and lost 11 % at sigma 1 and 18-43 % at delta 0.5 (docs/hp.md,
// hp-auto).
constexpr std::uint64_t kAutoSplitKeysPerBin = 2;
constexpr std::uint64_t kAutoSplitKeysPerValue = 16;

std::optional<std::string> shared_unsupported(const SortProblem& p) {
  if (auto why = common_limits(p)) return why;
  const DeviceFacts d = device_facts(p);
  if (problem_range(p) > shared_range_max(d))
    return fmt::format("range {} above {} bins: the histogram must fit in shared memory in {} bands of {} bins",
                       problem_range(p), shared_range_max(d), kSmemMaxBands, shared_bins_max(d));
  return std::nullopt;
}

std::optional<std::string> tiled_unsupported(const SortProblem& p, bool stable) {
  // Keys alone: 64-bit counts past 2^32 keys, two levels past one level's buckets.
  if (auto why = p.has_payload() ? common_limits(p) : range_limit(p)) return why;
  unsigned low_bits = low_bits_of(p, kTiledLowBits, tiled_name(stable));
  count_bits_of(p);  // a UsageError for a width that cannot count this input
  if (tiled_levels(p) == 2) return std::nullopt;
  if (p.has_payload()) {
    const unsigned pair_bits = tiled_pair_width(p, stable);
    if (!pair_bits)
      return fmt::format("low_bits={} leaves no room for a batch of {}-byte values in shared memory; use {} or less",
                         low_bits, payload_bytes(p.shape.payload), low_bits - 1);
    low_bits = pair_bits;
  }
  if (buckets_for(problem_range(p), low_bits) > kTiledMaxBuckets)
    return fmt::format("range {} above {} buckets of 2^{} bins in one level{}", problem_range(p), kTiledMaxBuckets,
                       low_bits, p.has_payload() ? " (with a payload)" : "; use levels=2");
  return std::nullopt;
}

std::optional<std::string> hybrid_unsupported(const SortProblem& p) {
  // Keys alone: 64-bit counts and positions past 2^32 keys.
  if (auto why = p.has_payload() ? common_limits(p) : range_limit(p)) return why;
  count_bits_of(p);  // a UsageError for a width that cannot count this input
  // Without --param low_bits the limit is 2^15-bin buckets' (hybrid_low_bits may widen them).
  const unsigned low_bits = low_bits_of(p, kLowBits, "hp-hybrid", kHybridMaxLowBits);
  const std::uint64_t buckets = buckets_for(problem_range(p), low_bits);
  if (buckets > kMaxBuckets)
    return fmt::format("range {} above {} buckets of 2^{} bins", problem_range(p), kMaxBuckets, low_bits);
  const bool wide = wide_counts(Histogram::hybrid, p);
  const auto scatter = p.params.find("scatter");
  const bool asks_grouped = scatter != p.params.end() && scatter->second == "grouped";
  if (wide && asks_grouped) return std::string("scatter=grouped counts in 32 bits; drop it for 2^32 keys or more");
  if (wide || (scatter != p.params.end() && scatter->second == "buffered")) {
    const unsigned width = hybrid_low_bits(p);
    const std::size_t room = device_facts(p).smem_per_block, bytes = hybrid_scatter_bytes(p, width);
    if (bytes > room)
      return fmt::format("scatter=buffered needs {} KiB of shared memory a block for {} buckets{}, this GPU has {} KiB; "
                         "use {}low_bits={}",
                         ceil_div(bytes, 1024), buckets_for(problem_range(p), width),
                         wide ? " at 64-bit positions" : "", room / 1024, wide ? "hp-tiled or " : "scatter=grouped or ",
                         kHybridMaxLowBits);
  }
  return std::nullopt;
}

// ---- hp-auto ----

using Choice = AutoChoice;
const char* choice_name(Choice c) {
  switch (c) {
    case Choice::smem: return "hp-smem";
    case Choice::hybrid: return "hp-hybrid";
    case Choice::global: return "hp-global";
    case Choice::tiled: return "hp-tiled";
    case Choice::cub: break;
  }
  return "cub-radix-bits";
}

// hp-auto's whole rule on this device: the thresholds above and the device's shared memory.
AutoRule full_rule(const SortProblem& p) {
  const unsigned pair_bits = widest_pair_width(p, false);
  return AutoRule{shared_range_max(device_facts(p)), kMaxBuckets << kLowBits, kAutoDenseKeysPerBin,
                  kAutoSparseKeysPerBin, kMaxRange, kAutoTiledKeysPerBin,
                  kAutoTiledKeysPerValue, shared_bins_max(device_facts(p)), kAutoPairBandBinsPerValue,
                  std::min(kAutoPairsMaxRange, kTiledMaxBuckets << pair_bits), kAutoPairsKeysPerBin,
                  kAutoPairsBinsPerValue, kAutoPairsMinRange, kTiledOneLevelMaxBuckets << kTiledLowBits,
                  kAutoSplitKeysPerBin, kAutoSplitKeysPerValue,
                  buffered_hybrid_max_range(device_facts(p), wide_counts(Histogram::hybrid, p))};
}

Choice choose(const SortProblem& p) {
  const bool integer_keys =
      dispatch_key<ScalarKeys>(p.shape.key, [](auto k) { return !KeyTraits<decltype(k)>::is_float; });
  const AutoInput in{p.n(), problem_range(p), integer_keys, p.has_payload(), p.facts.len};
  const AutoRule rule = full_rule(p);
  const Choice built = auto_choice(in, rule);
  if (!p.device || !p.device->profile || in.range == 0) return built;
  const double distinct = static_cast<double>(in.len ? in.len : std::min(in.n, in.range));
  const double sigma = static_cast<double>(in.range) / std::max(distinct, 1.0);
  // The pairs crossover was measured with 4-byte values; 8-byte ones keep the built-in rule.
  const bool pairs = p.has_payload();
  if (pairs && payload_bytes(p.shape.payload) != 4) return built;
  const auto min_delta =
      pairs ? pairs_min_delta(*p.device->profile, sigma) : tiled_min_delta(*p.device->profile, sigma);
  if (!min_delta) return built;
  // hp-tiled's support check only where the profile would hand it an input the rule did not.
  const Choice measured = pairs ? measured_pairs_choice(built, in, rule, *min_delta)
                                : measured_tiled_choice(built, in, *min_delta, true);
  if (measured == Choice::tiled && built != Choice::tiled && tiled_unsupported(p, false)) return built;
  return measured;
}

Algorithm fast_member(std::string name, Histogram h, std::string source) {
  Algorithm a = family_base(std::move(name), Backend::gpu, std::move(source));
  declare_types<FastKeys, FastValues>(a);
  a.unsupported = common_limits;
  a.workspace_bytes = [h](const SortProblem& p) { return fast_bytes(h, p); };
  a.prepare = [h](const SortProblem& p, const DeviceContext& device) { prepare_fast(h, p, device); };
  a.run_device = [h](const SortProblem& p, const DeviceBuffers& b) { return run_fast_any(h, p, b); };
  a.details = [h](const SortProblem& p) { return fast_details(h, p); };
  a.params = {"expansion"};
  return a;
}

}  // namespace

namespace fast {

// The histogram another family reuses (dist-hp) for n of the problem's keys: --param
// histogram=shared|hybrid|tiled|global when given, else the variant hp-auto's whole rule picks
// for n keys of this range (hp-tiled, in two levels past one level's buckets, where hp-auto
// sorts with it), the global one where it would hand over to CUB.
Histogram histogram_for(const SortProblem& p, u64 n) {
  if (auto it = p.params.find("histogram"); it != p.params.end()) {
    if (it->second == "shared") return Histogram::shared;
    if (it->second == "hybrid") return Histogram::hybrid;
    if (it->second == "global") return Histogram::global;
    if (it->second == "tiled") return Histogram::tiled;
    throw UsageError(fmt::format("--param histogram={} is not shared, hybrid, tiled or global", it->second));
  }
  switch (auto_choice(AutoInput{n, problem_range(p), true, false, p.facts.len}, full_rule(p))) {
    case Choice::smem: return Histogram::shared;
    case Choice::hybrid: return Histogram::hybrid;
    case Choice::tiled: return Histogram::tiled;
    default: return Histogram::global;
  }
}

}  // namespace fast

const char* histogram_name(const SortProblem& p, std::uint64_t n) {
  switch (histogram_for(p, n)) {
    case Histogram::shared: return "shared";
    case Histogram::hybrid: return "hybrid";
    case Histogram::tiled:
    case Histogram::tiled_stable: return "tiled";
    case Histogram::global: break;
  }
  return "global";
}

unsigned histogram_levels(const SortProblem& p, std::uint64_t n) {
  return histogram_for(p, n) == Histogram::tiled ? tiled_levels(p) : 1;
}

std::optional<std::string> histogram_unsupported(const SortProblem& p, std::uint64_t n) {
  switch (histogram_for(p, n)) {
    case Histogram::shared: return shared_unsupported(p);
    case Histogram::hybrid: return hybrid_unsupported(p);
    case Histogram::tiled: return tiled_unsupported(p, false);
    case Histogram::tiled_stable: return tiled_unsupported(p, true);
    case Histogram::global: break;
  }
  return common_limits(p);
}

void add_fast(Registry& r) {
  Algorithm smem = fast_member("hp-smem", Histogram::shared,
                               "beyond seed 004: shared-memory privatized histogram, fused binarize/scan/compress, "
                               "run expansion with coalesced stores");
  smem.constraints = fmt::format(
      "range fits in shared memory in at most {} bands of 32-bit bins (about 56K each on Hopper; two are counted as "
      "16-bit pairs)",
      kSmemMaxBands);
  smem.unsupported = shared_unsupported;
  r.add(smem);

  r.add(fast_member("hp-global", Histogram::global,
                    "beyond seed 004: global-atomic (L2) histogram, fused binarize/scan/compress, run expansion"));

  Algorithm hybrid = fast_member("hp-hybrid", Histogram::hybrid,
                                 "beyond seed 004: split by high bits (2-byte low bits per key), shared-memory "
                                 "histogram per bucket, fused scan/compress, run expansion");
  hybrid.constraints = fmt::format("range at most {} buckets of 2^low_bits bins", kMaxBuckets);
  hybrid.unsupported = hybrid_unsupported;
  hybrid.params = {"low_bits", "expansion", "scatter", "scatter_threads", "count_bits"};
  r.add(hybrid);

  Algorithm tiled = fast_member(tiled_name(false), Histogram::tiled,
                                "beyond seed 004: each 8192-key tile grouped by high bits in place (no counting "
                                "pass), shared-memory histogram per bucket over its tile segments, fused "
                                "scan/compress, run expansion; with a payload, groups' cursors and batches "
                                "counting-sorted in shared memory");
  auto tiled_constraints = [](const char* pair_width) {
    return fmt::format(
        "keys alone: any range up to 2^32 and any n (two levels past {} buckets of 2^{} bins, 64-bit counts from 2^32 "
        "keys); with a payload: range at most {} buckets of 2^low_bits bins, the narrowest that covers the range{}, "
        "n below 2^32 (low_bits {}..{}; default {}..{} by n and range)",
        kTiledOneLevelMaxBuckets, kTiledLowBits, kTiledMaxBuckets, pair_width, kLowBitsMin, kLowBits, kLowBitsMin,
        kTiledLowBits);
  };
  tiled.constraints = tiled_constraints(", at most 2^13 with 8-byte values on Hopper");
  tiled.unsupported = [](const SortProblem& p) { return tiled_unsupported(p, false); };
  tiled.params = {"low_bits", "levels", "count_bits", "fine_bits", "expansion"};
  r.add(tiled);

  Algorithm tiled_stable = fast_member(tiled_name(true), Histogram::tiled_stable,
                                       "beyond seed 004: hp-tiled whose key-value path ranks in input order (tiles "
                                       "grouped and batches sorted by bin, each warp counting its own keys in "
                                       "order and a scan ordering the warps); keys alone as hp-tiled");
  tiled_stable.stable = true;
  tiled_stable.constraints = tiled_constraints("");
  tiled_stable.unsupported = [](const SortProblem& p) { return tiled_unsupported(p, true); };
  tiled_stable.params = {"low_bits", "levels", "count_bits", "fine_bits", "expansion"};
  r.add(tiled_stable);

  Algorithm aut = family_base("hp-auto", Backend::gpu,
                              "picks hp-smem, hp-tiled, hp-hybrid, hp-global or CUB radix sort on the range's bits "
                              "from n, range and distinct count (with a payload hp-tiled or CUB)");
  // Every scalar key and payload: what the H-P variants cannot take goes to CUB.
  declare_types<ScalarKeys, AllValues>(aut);
  aut.workspace_bytes = [](const SortProblem& p) {
    switch (choose(p)) {
      case Choice::smem: return fast_bytes(Histogram::shared, p);
      case Choice::hybrid: return fast_bytes(Histogram::hybrid, p);
      case Choice::global: return fast_bytes(Histogram::global, p);
      case Choice::tiled: return fast_bytes(Histogram::tiled, p);
      case Choice::cub: break;
    }
    return range_radix_sort_bytes(p);
  };
  aut.prepare = [](const SortProblem& p, const DeviceContext& device) {
    switch (choose(p)) {
      case Choice::smem: return prepare_fast(Histogram::shared, p, device);
      case Choice::hybrid: return prepare_fast(Histogram::hybrid, p, device);
      case Choice::tiled: return prepare_fast(Histogram::tiled, p, device);
      case Choice::global:
      case Choice::cub: break;
    }
  };
  aut.run_device = [](const SortProblem& p, const DeviceBuffers& b) {
    switch (choose(p)) {
      case Choice::smem: return run_fast_any(Histogram::shared, p, b);
      case Choice::hybrid: return run_fast_any(Histogram::hybrid, p, b);
      case Choice::global: return run_fast_any(Histogram::global, p, b);
      case Choice::tiled: return run_fast_any(Histogram::tiled, p, b);
      case Choice::cub: break;
    }
    return range_radix_sort(p, b);
  };
  aut.details = [](const SortProblem& p) {
    Details d{{"variant", choice_name(choose(p))}};
    const Choice c = choose(p);
    if (c == Choice::cub)
      for (auto& kv : range_radix_sort_details(p)) d.push_back(std::move(kv));
    else
      for (auto& kv : fast_details(c == Choice::tiled    ? Histogram::tiled
                                   : c == Choice::hybrid ? Histogram::hybrid
                                   : c == Choice::global ? Histogram::global
                                                         : Histogram::shared,
                                   p))
        d.push_back(std::move(kv));
    return d;
  };
  r.add(aut);
}

}  // namespace sb::hp
