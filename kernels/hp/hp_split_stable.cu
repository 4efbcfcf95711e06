// hp-split-stable (issue 40, beyond seed 004): the launches, workspace and registration of the
// stable key-value H-P sort whose kernels are in hp_split_stable_kernels.cuh (design, bytes and
// instructions a key: docs/hp.md, "Stable key-value H-P"). Departs from hp-tiled-stable, whose
// structure it does not share: the pairs are partitioned by bucket into contiguous regions
// (one counting pass over the keys first, as a radix pass does), so that the second ranking
// reads whole chunks instead of walking each tile's segments, and both rankings use per-warp
// peer masks instead of a ballot per digit bit.
#include <algorithm>

#include <cub/device/device_scan.cuh>
#include <fmt/format.h>

#include "hp.hpp"
#include "hp_fast_plan.hpp"
#include "hp_index.hpp"
#include "hp_split_index.hpp"
#include "hp_split_stable.hpp"
#include "hp_split_stable_kernels.cuh"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::hp {
namespace {

using fast::DeviceFacts;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Buckets of 2^12..2^14 bins, the narrowest of at most kSplitRankDigits (one ranking pass in
// the partition): ranges up to 2^22. Wider ones: hp-tiled-stable, hp-stable.
constexpr unsigned kSplitLowBitsMin = 12;
constexpr unsigned kSplitLowBitsMax = 14;
constexpr std::uint64_t kSplitMaxRange = std::uint64_t{kSplitRankDigits} << kSplitLowBitsMax;
// Persistent partition blocks: two an SM (one with 8-byte values, which takes two waves of equal
// parts). Chunks a bucket: enough blocks for kSplitWaves waves of the resident ones (a chunk's
// bucket varies in size, so several waves even out the tail), the groups' counts (groups *
// range words) at most a word per kSplitKeysPerCountWord keys.
constexpr std::uint64_t kSplitPartsPerSm = 2;
constexpr std::uint64_t kSplitWaves = 3;
constexpr std::uint64_t kSplitKeysPerCountWord = 2;
constexpr unsigned kCountBlock = 512;
constexpr std::size_t kCountCopiesBytes = 48 * 1024;

unsigned split_low_bits(const SortProblem& p) {
  if (p.params.count("low_bits")) {
    const long bits = p.param_int("low_bits", kSplitLowBitsMin);
    if (bits < long{kSplitLowBitsMin} || bits > long{kSplitLowBitsMax})
      throw UsageError(fmt::format("hp-split-stable: low_bits={} out of range; use {}..{}", bits, kSplitLowBitsMin,
                                   kSplitLowBitsMax));
    return static_cast<unsigned>(bits);
  }
  const unsigned w = split_stable_low_bits(problem_range(p), kSplitLowBitsMin, kSplitLowBitsMax, kSplitRankDigits);
  return w ? w : kSplitLowBitsMax;
}

// The run's shape: bucket width and count, the partition's parts, the chunks a bucket.
struct SplitShape {
  u64 n = 0, range = 0;
  unsigned low_bits = 0;
  u32 buckets = 0;
  u64 parts = 0, groups = 1;
};
SplitShape shape_of(const SortProblem& p, const DeviceFacts& d) {
  SplitShape s;
  s.n = p.n();
  s.range = problem_range(p);
  s.low_bits = split_low_bits(p);
  s.buckets = static_cast<u32>(buckets_for(s.range, s.low_bits));
  const u64 tiles = ceil_div(s.n ? s.n : 1, fast::kTile);
  const u64 per_sm = payload_bytes(p.shape.payload) > 4 ? 1 : 2;
  s.parts = min_u64(tiles, kSplitPartsPerSm * u64(d.sms));
  s.groups = pair_groups(s.buckets, tiles, per_sm * d.sms, kSplitWaves, s.n, s.range, kSplitKeysPerCountWord);
  return s;
}

std::size_t scan_temp_bytes(u64 items) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<u32*>(nullptr), static_cast<u32*>(nullptr),
                                              static_cast<std::int64_t>(items)));
  return bytes;
}

// The workspace (base == nullptr: sizes only): the parts' bucket counts (their scan: the
// partition's offsets), the chunks' bin counts H (groups x range), the bins' totals (their
// scan: each bin's first slot), the chunks' cursors by bin C (groups x range: used where a
// bucket holds more present bins than one ranking pass takes) and CUB's scan storage.
struct SplitArrays {
  u32 *counts, *H, *bin_total, *C;
  void* temp;
  std::size_t temp_bytes, bytes;
  SplitArrays(char* base, const SplitShape& s) {
    Carve c;
    counts = reinterpret_cast<u32*>(base + c.take(s.parts * s.buckets * sizeof(u32)));
    H = reinterpret_cast<u32*>(base + c.take(s.groups * s.range * sizeof(u32)));
    bin_total = reinterpret_cast<u32*>(base + c.take(s.range * sizeof(u32)));
    C = reinterpret_cast<u32*>(base + c.take(s.groups * s.range * sizeof(u32)));
    temp_bytes = std::max(scan_temp_bytes(s.parts * s.buckets), scan_temp_bytes(s.range));
    temp = base + c.take(temp_bytes);
    bytes = c.used;
  }
};

template <typename Kernel>
void allow_shared(Kernel kernel, const DeviceFacts& d) {
  const auto* f = reinterpret_cast<const void*>(kernel);
  allow_kernel_dynamic_smem(d.context, f, d.smem_per_block - kernel_attributes(d.context, f).sharedSizeBytes);
}

template <typename K, typename V>
int run_typed(const SortProblem& p, const Buffers<K, V>& b) {
  if constexpr (!Buffers<K, V>::has_values) {
    return 0;  // keys alone go to hp-tiled (run_split_stable)
  } else {
    using namespace fast;
    using W = typename KeyTraits<K>::Ordered;
    const DeviceFacts d = device_facts(b.device);
    const SplitShape s = shape_of(p, d);
    if (s.n < 2) return 0;
    const W min_word = min_word_of<K>(p.facts.min_ordered);
    SplitArrays a(static_cast<char*>(b.workspace), s);
    const W* x = reinterpret_cast<const W*>(b.keys[0]);
    auto* low = reinterpret_cast<std::uint16_t*>(b.keys[1]);  // 2 bytes a key: fits in the key buffer
    const auto parts = static_cast<unsigned>(s.parts);
    const u32 copies =
        static_cast<u32>(std::clamp<u64>(kCountCopiesBytes / (u64{s.buckets} * sizeof(u32)), 1, kCountBlock / 32));
    bucket_count<W><<<parts, kCountBlock, std::size_t{s.buckets} * copies * sizeof(u32), b.stream>>>(
        x, s.n, min_word, s.low_bits, s.buckets, copies, a.counts);
    SB_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = a.temp_bytes;
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.counts, a.counts,
                                                static_cast<std::int64_t>(s.parts * s.buckets), b.stream));
    stable_partition<W, V><<<parts, kTileBlock, stable_partition_bytes<V>(s.buckets), b.stream>>>(
        x, b.vals[0], s.n, min_word, s.low_bits, s.buckets, a.counts, low, b.vals[1]);
    SB_CUDA_CHECK_LAUNCH();
    const auto groups = static_cast<u32>(s.groups);
    const unsigned grid = s.buckets * groups;
    SB_CUDA_CHECK(cudaMemsetAsync(a.bin_total, 0, s.range * sizeof(u32), b.stream));
    bucket_chunk_hist<><<<grid, kChunkHistBlock, chunk_hist_bytes(s.low_bits), b.stream>>>(
        low, s.n, a.counts, parts, s.buckets, s.low_bits, s.range, groups, a.H, a.bin_total);
    SB_CUDA_CHECK_LAUNCH();
    temp_bytes = a.temp_bytes;
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.bin_total, a.bin_total,
                                                static_cast<std::int64_t>(s.range), b.stream));
    if (groups > kInlineCursorGroups) {
      spread_cursors<<<grid_for(s.range, 256, u64(d.sms) * 16), 256, 0, b.stream>>>(a.H, s.range, groups,
                                                                                  a.bin_total);
      SB_CUDA_CHECK_LAUNCH();
    }
    place_bucket_chunks<W, V><<<grid, kTileBlock, place_chunks_bytes<V>(s.low_bits), b.stream>>>(
        low, b.vals[1], s.n, a.counts, parts, s.buckets, s.low_bits, s.range, groups, a.H, a.bin_total, a.C, min_word,
        reinterpret_cast<W*>(b.keys[0]), b.vals[0]);
    SB_CUDA_CHECK_LAUNCH();
    return 0;
  }
}

}  // namespace

std::optional<std::string> split_stable_unsupported(const SortProblem& p) {
  if (!p.has_payload()) return range_limit(p);  // keys alone: hp-tiled, any range up to 2^32
  if (auto why = common_limits(p)) return why;
  const unsigned low_bits = split_low_bits(p);
  const std::uint64_t range = problem_range(p);
  if (buckets_for(range, low_bits) > kSplitRankDigits)
    return fmt::format("range {} above {} buckets of 2^{} bins (hp-tiled-stable or hp-stable take it)", range,
                       kSplitRankDigits, low_bits);
  const std::size_t vb = payload_bytes(p.shape.payload);
  const u32 buckets = static_cast<u32>(buckets_for(range, low_bits));
  const std::size_t need = std::max(vb > 4 ? fast::stable_partition_bytes<std::uint64_t>(buckets)
                                           : fast::stable_partition_bytes<std::uint32_t>(buckets),
                                    vb > 4 ? fast::place_chunks_bytes<std::uint64_t>(low_bits)
                                           : fast::place_chunks_bytes<std::uint32_t>(low_bits)) +
                           sizeof(fast::TileScan::TempStorage);
  const std::size_t have = fast::device_facts(p).smem_per_block;
  if (need > have)
    return fmt::format("a batch of {}-byte values and 2^{}-bin buckets need {} bytes of shared memory a block; "
                       "the device has {}",
                       vb, low_bits, need, have);
  return std::nullopt;
}

std::size_t split_stable_bytes(const SortProblem& p) {
  if (!p.has_payload()) return fast::fast_bytes(fast::Histogram::tiled, p);
  return SplitArrays(nullptr, shape_of(p, fast::device_facts(p))).bytes;
}

void prepare_split_stable(const SortProblem& p, const DeviceContext& device) {
  if (!p.has_payload()) return fast::prepare_fast(fast::Histogram::tiled, p, device);
  const DeviceFacts d = fast::device_facts(&device);
  dispatch_element<IntegerKeys, TypeList<std::uint32_t, std::uint64_t>>(
      p.shape.key, p.shape.payload, [&](auto k, auto v) {
        using W = typename KeyTraits<decltype(k)>::Ordered;
        using V = decltype(v);
        allow_shared(fast::stable_partition<W, V>, d);
        allow_shared(fast::place_bucket_chunks<W, V>, d);
        allow_shared(fast::bucket_chunk_hist<>, d);
      });
}

int run_split_stable(const SortProblem& p, const DeviceBuffers& b) {
  if (!p.has_payload()) return fast::run_fast_any(fast::Histogram::tiled, p, b);
  return dispatch_element<IntegerKeys, TypeList<std::uint32_t, std::uint64_t>>(
      p.shape.key, p.shape.payload,
      [&](auto k, auto v) { return run_typed(p, typed_buffers<decltype(k), decltype(v)>(b)); });
}

Details split_stable_details(const SortProblem& p) {
  if (!p.has_payload()) return fast::fast_details(fast::Histogram::tiled, p);  // hp-tiled's keys path
  Details d{{"count_bits", "32"}, traffic_detail(TrafficPath::split_pairs, p)};
  const SplitShape s = shape_of(p, fast::device_facts(p));
  d.emplace_back("low_bits", std::to_string(s.low_bits));
  d.emplace_back("buckets", std::to_string(s.buckets));
  d.emplace_back("groups", std::to_string(s.groups));
  return d;
}

void add_split_stable(Registry& r) {
  Algorithm a = family_base("hp-split-stable", Backend::gpu,
                            "issue 40, beyond seed 004: a stable partition of the pairs by bucket (a counting pass, "
                            "then 8192-pair tiles ranked by bucket with per-warp peer masks), then each bucket's "
                            "chunks counted by bin and placed 8192 pairs at a time in input order from the bins' "
                            "prefix sums; keys alone as hp-tiled");
  declare_types<IntegerKeys, AllValues>(a);
  a.stable = true;
  a.constraints = fmt::format("with a payload: range at most {} buckets of 2^low_bits bins (low_bits {}..{}, the "
                              "narrowest that covers it: ranges up to 2^{}), n below 2^32",
                              kSplitRankDigits, kSplitLowBitsMin, kSplitLowBitsMax,
                              bits_for_range(kSplitMaxRange));
  a.unsupported = split_stable_unsupported;
  a.workspace_bytes = split_stable_bytes;
  a.prepare = prepare_split_stable;
  a.run_device = run_split_stable;
  a.details = split_stable_details;
  a.params = {"low_bits"};
  r.add(a);
}

}  // namespace sb::hp
