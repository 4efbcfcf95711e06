// hp-smem, hp-global, hp-hybrid, hp-auto: the H-P idea made fast on a current GPU (beyond
// seed 004; method notes in docs/hp.md). All three concrete versions share the pipeline
//   histogram A over range  ->  one fused scan that emits the compressed runs
//   (value, end) of the non-empty bins (0-compressed H-P, Algorithm 5 lines 2-12)  ->
//   the expansion of the runs straight into y (Algorithm 5 lines 13-17 without B);
// they differ in the histogram: shared-memory privatized (range fits in shared memory),
// global atomics, or the hybrid that splits keys by their high bits first.
// With a payload the expansion cannot carry values: the histogram's exclusive prefix sums
// become bin cursors and every (key, value) pair is scattered to its bin's next slot.
// Keys are u32, i32, u64 or i64 words; offsets from minVal are 32-bit bin numbers.
// hp-auto picks one of them, or hands the input to CUB radix sort on the range's bits
// (hp_fast_rule.cpp); this file holds the launches and prepare, hp_fast_workspace.cuh the
// workspace's layout.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include "hp.hpp"
#include "hp_fast_kernels.cuh"
#include "hp_split_kernels.cuh"
#include "hp_fast_plan.hpp"
#include "hp_fast_workspace.cuh"
#include "hp_index.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::hp {
namespace {

using namespace fast;

DeviceFacts facts_of(const cudaDeviceProp& prop) {
  return {prop.multiProcessorCount, prop.sharedMemPerBlockOptin, prop.sharedMemPerMultiprocessor};
}


template <typename W>
struct Run {
  u64 n, range;
  W min_word;
  cudaStream_t stream;
  DeviceFacts device;
  unsigned scatter_threads = 0;  // the hybrid's buffered scatter's block (hybrid_scatter_threads); 0: grouped
};

// Warp-owned copies of `bins` counters that fit in the block's share of shared memory.
u32 counter_copies(u64 bins) {
  return static_cast<u32>(std::clamp<u64>(kSharedCopiesBytes / (bins * sizeof(u32)), 1, kWarpsPerHistBlock));
}

// Lets kernel use the device's opt-in shared memory per block beside its static shared memory.
// A per-device attribute: set in prepare, on the device that runs it, through its context's
// memo (which then forgets the kernel's occupancy).
template <typename Kernel>
void allow_large_shared(Kernel kernel, const DeviceFacts& d) {
  const auto* f = reinterpret_cast<const void*>(kernel);
  allow_kernel_dynamic_smem(d.context, f, d.smem_per_block - kernel_attributes(d.context, f).sharedSizeBytes);
}

// Blocks for `items` at one per thread, at most as many as the GPU holds at once (the
// occupancy from the context's memo: this runs in the timed region).
template <typename Kernel>
unsigned resident_grid(Kernel kernel, u64 items, unsigned block, std::size_t smem, const DeviceFacts& d) {
  const int per_sm =
      kernel_blocks_per_sm(d.context, reinterpret_cast<const void*>(kernel), static_cast<int>(block), smem);
  return grid_for(items, block, u64(std::max(per_sm, 1)) * d.sms);
}

template <typename W>
void hist_shared_launch(const Run<W>& r, const W* x, u32* A) {
  const u64 bands = shared_bands(r.range, shared_bins_max(r.device));
  if (bands == 2) {
    // Two bands of 32-bit counters are one of 16-bit pairs: the keys are read once, not twice
    // (docs/hp.md, two-band hp-smem).
    const auto bins = static_cast<u32>(r.range);
    const std::size_t smem = std::size_t{(bins + 1) / 2} * sizeof(u32);
    hist_shared_pairs<W><<<resident_grid(hist_shared_pairs<W>, ceil_div(r.n, 4), kHistBlock, smem, r.device),
                           kHistBlock, smem, r.stream>>>(x, r.n, r.min_word, bins, A);
    SB_CUDA_CHECK_LAUNCH();
    return;
  }
  for (u64 band = 0; band < bands; ++band) {
    u64 lo, hi;
    part_bounds(r.range, bands, band, 1, lo, hi);
    const auto bins = static_cast<u32>(hi - lo);
    const u32 copies = counter_copies(bins);
    const std::size_t smem = std::size_t{bins} * copies * sizeof(u32);
    hist_shared<W><<<resident_grid(hist_shared<W>, ceil_div(r.n, 4), kHistBlock, smem, r.device), kHistBlock, smem,
                     r.stream>>>(x, r.n, r.min_word, bins, copies, static_cast<u32>(lo), A);
    SB_CUDA_CHECK_LAUNCH();
  }
}

// Each part's keys counted by bucket (offset >> low_bits), bucket-major: the hybrid's buckets,
// or two levels' super-buckets.
template <typename W>
void count_parts_launch(const Run<W>& r, const W* x, unsigned low_bits, u32 buckets, unsigned parts, u32* counts) {
  const u32 copies = counter_copies(buckets);
  bucket_count<W><<<parts, kPartBlock, std::size_t{buckets} * copies * sizeof(u32), r.stream>>>(
      x, r.n, r.min_word, low_bits, buckets, copies, counts);
  SB_CUDA_CHECK_LAUNCH();
}

static_assert(kScatterThreadsPaired == kSplitBlock, "the paired buffered scatter is the split's block");

// The buffered scatter at the run's block (Run::scatter_threads) over offsets of width P.
template <typename W, typename P>
void buffered_scatter_launch(const Run<W>& r, const W* x, unsigned parts, u32 buckets, unsigned low_bits,
                             const P* offsets, std::uint16_t* low) {
  const bool alone = r.scatter_threads == kScatterThreadsAlone;
  auto* scatter = alone ? bucket_scatter_buffered<W, kScatterThreadsAlone, P>
                        : bucket_scatter_buffered<W, kScatterThreadsPaired, P>;
  scatter<<<parts, alone ? kScatterThreadsAlone : kScatterThreadsPaired, scatter_shared_bytes<P>(buckets), r.stream>>>(
      x, r.n, r.min_word, low_bits, buckets, offsets, low);
  SB_CUDA_CHECK_LAUNCH();
}

// Step 3 of the hybrid: buckets [first, end)'s histograms into A, in 16-bit pairs where a
// bucket's 32-bit counters pass a block's shared memory (2^16 bins, hybrid_low_bits).
template <typename W, typename Count, typename P>
void bucket_hist_launch(const Run<W>& r, const FastArrays<W, Count>& a, const P* offsets, const std::uint16_t* low,
                        u32 first, u32 end) {
  const std::size_t bins = std::size_t{1} << a.low_bits;
  const bool pairs = bins * sizeof(u32) > r.device.smem_per_block;
  const std::size_t smem = pairs ? bins / 2 * sizeof(u32) : bins * sizeof(u32);
  auto* hist = pairs ? bucket_hist<Count, P, true> : bucket_hist<Count, P, false>;
  hist<<<resident_grid(hist, r.n, kHistBlock, smem, r.device), kHistBlock, smem, r.stream>>>(
      low, r.n, offsets, static_cast<u32>(a.parts), static_cast<u32>(a.buckets), a.low_bits, a.A, first, end);
  SB_CUDA_CHECK_LAUNCH();
}

// The hybrid: bucket counts, their scan into each (bucket, part)'s offset, the scatter of the low
// bits, the buckets' histograms into A: all buckets at once, or with `order` (4-byte counts,
// hp::histogram's) the buckets that each of its bin ranges reaches in turn, order->done(k) after
// range k's. Count u64 (2^32 keys or more): the offsets are scanned into 64-bit words and the
// scatter is the buffered one.
template <typename W, typename Count>
void hist_hybrid_launch(const Run<W>& r, const FastArrays<W, Count>& a, const W* x, std::uint16_t* low,
                        const BinOrder* order = nullptr) {
  const auto parts = static_cast<unsigned>(a.parts);
  const auto buckets = static_cast<u32>(a.buckets);
  count_parts_launch(r, x, a.low_bits, buckets, parts, a.counts);
  std::size_t temp_bytes = a.temp_bytes;
  auto count_in_order = [&](const auto* offsets) {
    if (!order) return bucket_hist_launch(r, a, offsets, low, 0, buckets);
    std::vector<bool> counted(buckets, false);
    for (std::size_t k = 0; k < order->bins.size(); ++k) {
      count_buckets_of(order->bins[k].first, order->bins[k].second, a.low_bits, counted,
                       [&](u32 first, u32 end) { bucket_hist_launch(r, a, offsets, low, first, end); });
      if constexpr (std::is_same_v<Count, u32>) order->done(k, a.A);
    }
  };
  if constexpr (std::is_same_v<Count, u64>) {
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, WideCounts(a.counts, WidenCount{}),
                                                a.wide_offsets, static_cast<std::int64_t>(a.parts * a.buckets),
                                                r.stream));
    buffered_scatter_launch(r, x, parts, buckets, a.low_bits, a.wide_offsets, low);
    count_in_order(a.wide_offsets);
  } else {
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.counts, a.counts,
                                                static_cast<std::int64_t>(a.parts * a.buckets), r.stream));
    if (r.scatter_threads) {
      buffered_scatter_launch(r, x, parts, buckets, a.low_bits, a.counts, low);
    } else {
      bucket_scatter<W><<<parts, kSplitBlock, split_shared_bytes(buckets), r.stream>>>(x, r.n, r.min_word, a.low_bits,
                                                                                    buckets, a.counts, low);
      SB_CUDA_CHECK_LAUNCH();
    }
    count_in_order(a.counts);
  }
}

// group_tiles over x and its values (group_key_tiles without a payload), persistent blocks
// as many as fit.
template <typename W, typename Count, typename V = NoValue, bool Stable = false>
void group_tiles_launch(const Run<W>& r, const FastArrays<W, Count>& a, const W* x, std::uint16_t* low,
                        const V* vals = nullptr, V* grouped_vals = nullptr) {
  const u64 tiles = ceil_div(r.n, kTile);
  const auto buckets = static_cast<u32>(a.buckets);
  if constexpr (std::is_same_v<V, NoValue>) {
    const std::size_t smem = group_key_shared_bytes(buckets);
    auto* kernel = group_key_tiles<W>;
    kernel<<<resident_grid(kernel, tiles * kTileBlock, kTileBlock, smem, r.device), kTileBlock, smem, r.stream>>>(
        x, r.n, r.min_word, a.low_bits, buckets, a.seg_start, low);
  } else {
    const std::size_t smem = group_shared_bytes<V, Stable>(buckets);
    auto* kernel = group_tiles<W, V, Stable>;
    kernel<<<resident_grid(kernel, tiles * kTileBlock, kTileBlock, smem, r.device), kTileBlock, smem, r.stream>>>(
        x, r.n, r.min_word, a.low_bits, buckets, a.seg_start, low, vals, grouped_vals);
  }
  SB_CUDA_CHECK_LAUNCH();
}

// Groups of tiles a bucket's histogram is counted in (bucket_groups at the segment_hist blocks
// the GPU holds at once).
template <typename W>
u64 segment_groups(const Run<W>& r, u64 buckets, u64 tiles, std::size_t hist_smem) {
  const int per_sm = kernel_blocks_per_sm(r.device.context, reinterpret_cast<const void*>(segment_hist<2>),
                                          static_cast<int>(kSegBlock), hist_smem);
  return bucket_groups(buckets, tiles, u64(std::max(per_sm, 1)) * r.device.sms, r.n, r.range, kKeysPerFlushedBin,
                       kSegKeysPerBlock);
}

// Calls f with segment_lanes' count as a compile-time constant (segment_hist, segment_runs).
template <typename F>
void with_segment_lanes(u64 buckets, F&& f) {
  if (segment_lanes(buckets, kTile) == 4) f(std::integral_constant<unsigned, 4>{});
  else f(std::integral_constant<unsigned, 2>{});
}

// hp-tiled in two levels: the partition by super-bucket into the padded array (counts, the
// offsets and padding, the scatter), group_key_tiles over it with each tile's fine buckets,
// and each fine bucket's histogram over its super-bucket's tiles into A.
template <typename W, typename Count>
void hist_split_launch(const Run<W>& r, const FastArrays<W, Count>& a, const W* x, std::uint16_t* low) {
  const SplitPlan& plan = a.split;
  const auto parts = static_cast<unsigned>(a.parts);
  const auto supers = static_cast<u32>(plan.supers);
  count_parts_launch(r, x, plan.super_bits, supers, parts, a.counts);
  split_totals<<<supers, kSplitOffsetsBlock, 0, r.stream>>>(a.counts, parts, a.split_totals);
  SB_CUDA_CHECK_LAUNCH();
  split_offsets<<<supers, kSplitOffsetsBlock, 0, r.stream>>>(a.counts, parts, a.split_totals, plan, a.split_tiles,
                                                             a.split_offsets, a.tile_first, a.xpart);
  SB_CUDA_CHECK_LAUNCH();
  split_scatter<W><<<parts, kTileBlock, split_scatter_shared_bytes(supers), r.stream>>>(x, r.n, r.min_word, plan,
                                                                                      a.split_offsets, a.xpart);
  SB_CUDA_CHECK_LAUNCH();
  const u64 tiles = a.split_tiles, padded_n = tiles * kTile;
  const auto buckets = static_cast<u32>(a.buckets);
  const std::size_t group_smem = group_key_shared_bytes(buckets);
  group_key_tiles<u32><<<resident_grid(group_key_tiles<u32>, tiles * kTileBlock, kTileBlock, group_smem, r.device),
                         kTileBlock, group_smem, r.stream>>>(a.xpart, padded_n, 0u, plan.low_bits, buckets,
                                                             a.seg_start, low);
  SB_CUDA_CHECK_LAUNCH();
  const std::size_t hist_smem = segment_hist_bytes(plan.low_bits);
  const u64 fine = u64{plan.fine_per_super} * plan.supers;
  const u64 groups = segment_groups(r, fine, ceil_div(tiles, plan.supers), hist_smem);
  if (groups > 1) SB_CUDA_CHECK(cudaMemsetAsync(a.A, 0, r.range * sizeof(Count), r.stream));
  with_segment_lanes(plan.fine_per_super, [&](auto lanes) {
    split_segment_hist<lanes, Count><<<static_cast<unsigned>(fine * groups), kSegBlock, hist_smem, r.stream>>>(
        low, padded_n, a.seg_start, tiles, a.tile_first, plan, r.range, static_cast<u32>(groups), a.A);
  });
  SB_CUDA_CHECK_LAUNCH();
}

// hp-tiled: group_tiles, then the buckets' histograms. Where `runs` is asked for (keys only),
// every bucket is one segment_hist group and a thread counts at most kRunsMaxTilesPerThread
// tiles, segment_runs writes the runs itself (no A, no scan) and this returns true; otherwise
// segment_hist fills A and this returns false. In two levels, hist_split_launch.
template <typename W, typename Count>
bool hist_tiled_launch(const Run<W>& r, const FastArrays<W, Count>& a, const W* x, std::uint16_t* low, bool runs) {
  if (a.split.supers) {
    hist_split_launch(r, a, x, a.split_low ? a.split_low : low);
    return false;
  }
  const auto buckets = static_cast<u32>(a.buckets);
  const u64 tiles = ceil_div(r.n, kTile);
  group_tiles_launch(r, a, x, low);
  const std::size_t hist_smem = segment_hist_bytes(a.low_bits);
  const u64 groups = segment_groups(r, buckets, tiles, hist_smem);
  if constexpr (std::is_same_v<Count, u32>) {
    if (runs && groups == 1 && tiles <= kRunsMaxTilesPerThread * kSegBlock) {
      BucketScanState state;
      SB_CUDA_CHECK(state.Init(static_cast<int>(buckets), a.bucket_scan, a.bucket_scan_bytes));
      init_bucket_scan<<<grid_for(buckets + 32, 256), 256, 0, r.stream>>>(state, buckets);
      SB_CUDA_CHECK_LAUNCH();
      with_segment_lanes(buckets, [&](auto lanes) {
        segment_runs<W, lanes><<<buckets, kSegBlock, hist_smem, r.stream>>>(
            low, r.n, a.seg_start, tiles, a.low_bits, r.min_word, state, a.run_end, a.run_val, a.len);
      });
      SB_CUDA_CHECK_LAUNCH();
      return true;
    }
  }
  // One group stores every bin of its bucket; several add into a zeroed A.
  if (groups > 1) SB_CUDA_CHECK(cudaMemsetAsync(a.A, 0, r.range * sizeof(Count), r.stream));
  with_segment_lanes(buckets, [&](auto lanes) {
    segment_hist<lanes, Count><<<static_cast<unsigned>(buckets * groups), kSegBlock, hist_smem, r.stream>>>(
        low, r.n, a.seg_start, tiles, buckets, a.low_bits, r.range, static_cast<u32>(groups), a.A);
  });
  SB_CUDA_CHECK_LAUNCH();
  return false;
}

// hp-tiled with a payload: the tiles grouped with their values, each group's counts, the
// scan that makes them the groups' cursors, and the groups placing their pairs (Stable: in
// input order). The sorted pairs land in keys[0] and vals[0] (the grouped low bits and values
// use keys[1], vals[1]).
template <typename W, typename V, bool Stable>
void tiled_pairs_launch(const Run<W>& r, const FastArrays<W>& a, const W* x, const V* vals, std::uint16_t* low,
                        V* grouped_vals, W* keys_out, V* vals_out) {
  const auto buckets = static_cast<u32>(a.buckets);
  const auto groups = static_cast<u32>(a.groups);
  const u64 tiles = ceil_div(r.n, kTile);
  group_tiles_launch<W, u32, V, Stable>(r, a, x, low, vals, grouped_vals);
  const unsigned grid = buckets * groups;
  SB_CUDA_CHECK(cudaMemsetAsync(a.bin_total, 0, r.range * sizeof(u32), r.stream));
  with_segment_lanes(buckets, [&](auto lanes) {
    segment_hist<lanes><<<grid, kSegBlock, segment_hist_bytes(a.low_bits), r.stream>>>(
        low, r.n, a.seg_start, tiles, buckets, a.low_bits, r.range, groups, a.A, a.bin_total);
  });
  SB_CUDA_CHECK_LAUNCH();
  std::size_t temp_bytes = a.temp_bytes;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.bin_total, a.bin_total,
                                              static_cast<std::int64_t>(r.range), r.stream));
  if (groups > kInlineCursorGroups) {
    spread_cursors<<<grid_for(r.range, 256, u64(r.device.sms) * 16), 256, 0, r.stream>>>(a.A, r.range, groups,
                                                                                         a.bin_total);
    SB_CUDA_CHECK_LAUNCH();
  }
  place_pairs<W, V, Stable><<<grid, kPlaceBlock, place_shared_bytes(a.low_bits, sizeof(V), Stable), r.stream>>>(
      low, grouped_vals, a.seg_start, tiles, buckets, a.low_bits, r.range, groups, a.A, a.bin_total, r.min_word,
      keys_out, vals_out);
  SB_CUDA_CHECK_LAUNCH();
}

// Counts x[0, r.n) into A (zeroed first where the variant adds into it) with histogram
// variant h. With `runs` (keys only) hp-tiled may write the runs instead (hist_tiled_launch):
// returns whether it did. 64-bit counts: hp-tiled and the hybrid. The hybrid counts in `order`
// where one is given (hist_hybrid_launch).
template <typename W, typename Count>
bool launch_histogram(Histogram h, const Run<W>& r, const FastArrays<W, Count>& a, const W* x, std::uint16_t* low,
                      bool runs = false, const BinOrder* order = nullptr) {
  if (tiles(h)) return hist_tiled_launch(r, a, x, low, runs);
  SB_CUDA_CHECK(cudaMemsetAsync(a.A, 0, r.range * sizeof(Count), r.stream));
  if (h == Histogram::hybrid) {
    hist_hybrid_launch(r, a, x, low, order);
  } else if constexpr (std::is_same_v<Count, u32>) {
    if (h == Histogram::shared) {
      hist_shared_launch(r, x, a.A);
    } else {
      hist_global<W><<<grid_for(ceil_div(r.n, 4), 256, u64(r.device.sms) * 16), 256, 0, r.stream>>>(
          x, r.n, r.min_word, a.A);
      SB_CUDA_CHECK_LAUNCH();
    }
  }
  return false;
}

// The fused scan of A into runs; 64-bit counts as one word each where they fit (wide_pack_shift).
template <typename W, typename Count>
void runs_scan(const Run<W>& r, const FastArrays<W, Count>& a) {
  std::size_t temp_bytes = a.temp_bytes;
  if constexpr (std::is_same_v<Count, u64>) {
    if (const unsigned shift = wide_pack_shift(r.n, r.range)) {
      SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
          a.temp, temp_bytes, PackedRunsIn(thrust::counting_iterator<u64>(0), PackWideBin{a.A, shift}),
          PackedRunsOut<W>(EmitPackedRun<W>{a.A, a.run_end, a.run_val, a.len, r.range, r.min_word, shift}),
          static_cast<std::int64_t>(r.range), r.stream));
      return;
    }
  }
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
      a.temp, temp_bytes, RunsIn<Count>(thrust::counting_iterator<u64>(0), PackBin<Count>{a.A}),
      RunsOut<W, Count>(EmitRun<W, Count>{a.A, a.run_end, a.run_val, a.len, r.range, r.min_word}),
      static_cast<std::int64_t>(r.range), r.stream));
}

// Keys only: the histogram, the fused scan into runs, the expansion into y (keys[0] for the
// variants that split, whose low bits are in keys[1]; keys[1] for the others).
// Dense (dense_expansion): A scanned in place is the runs, one a bin.
template <typename W, typename Count>
int sort_keys(Histogram h, const SortProblem& p, const Run<W>& r, void* workspace, void* const* keys) {
  const bool dense = expansion_is_dense(p);
  FastArrays<W, Count> a(static_cast<char*>(workspace), r.n, r.range, low_bits_for(h, p), false, r.device, tiles(h), 0,
                         h == Histogram::tiled_stable, tiles(h) ? tiled_split(p) : SplitPlan{}, dense);
  const W* x = reinterpret_cast<const W*>(keys[0]);
  auto* low = reinterpret_cast<std::uint16_t*>(keys[1]);
  W* y = reinterpret_cast<W*>(keys[splits(h) ? 0 : 1]);
  std::size_t temp_bytes = a.temp_bytes;
  if (dense) {
    launch_histogram(h, r, a, x, low);
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(a.temp, temp_bytes, a.A, a.A, static_cast<std::int64_t>(r.range),
                                                r.stream));
  } else if (!launch_histogram(h, r, a, x, low, true)) {
    runs_scan(r, a);
  }
  const Count* run_end = dense ? a.A : a.run_end;
  const u64 tiles = ceil_div(r.n, kExpandTile);
  locate_tiles<<<grid_for(tiles * kLocateThreadsPerTile, 256), 256, 0, r.stream>>>(run_end, a.len, r.range, r.n,
                                                                                  a.window);
  SB_CUDA_CHECK_LAUNCH();
  auto* expand = dense ? expand_runs<W, Count, true> : expand_runs<W, Count>;
  expand<<<static_cast<unsigned>(tiles), kExpandBlock, 0, r.stream>>>(run_end, a.run_val, r.min_word, a.window, r.n, y);
  SB_CUDA_CHECK_LAUNCH();
  return splits(h) ? 0 : 1;
}

// Runs one fast version; returns the buffer holding y (and the values).
template <typename K, typename V>
int run_fast(Histogram h, const SortProblem& p, const Buffers<K, V>& b) {
  using W = typename KeyTraits<K>::Ordered;
  constexpr bool pairs = Buffers<K, V>::has_values;
  const DeviceFacts d = device_facts(b.device);
  const Run<W> r{p.n(),    problem_range(p), min_word_of<K>(p.facts.min_ordered), b.stream, d,
                 h == Histogram::hybrid ? hybrid_scatter_threads(p, d) : 0};
  if (r.n == 0) return 0;
  if constexpr (pairs) {
    FastArrays<W> a(static_cast<char*>(b.workspace), r.n, r.range, low_bits_for(h, p), pairs, r.device, tiles(h),
                    payload_bytes(p.shape.payload), h == Histogram::tiled_stable);
    const W* x = reinterpret_cast<const W*>(b.keys[0]);
    // The split's low bits (2 bytes a key) live in keys[1] until the scan.
    auto* low = reinterpret_cast<std::uint16_t*>(b.keys[1]);
    if (tiles(h)) {
      auto* launch = h == Histogram::tiled_stable ? tiled_pairs_launch<W, V, true> : tiled_pairs_launch<W, V, false>;
      launch(r, a, x, b.vals[0], low, b.vals[1], reinterpret_cast<W*>(b.keys[0]), b.vals[0]);
      return 0;
    }
    launch_histogram(h, r, a, x, low);
    std::size_t temp_bytes = a.temp_bytes;
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.A, a.A, static_cast<std::int64_t>(r.range),
                                                r.stream));
    scatter_pairs<W, V><<<grid_for(r.n, 256, u64(r.device.sms) * 8), 256, 0, r.stream>>>(
        x, b.vals[0], r.n, r.min_word, a.A, reinterpret_cast<W*>(b.keys[1]), b.vals[1]);
    SB_CUDA_CHECK_LAUNCH();
    return 1;
  } else {
    void* keys[2] = {b.keys[0], b.keys[1]};
    if (wide_counts(h, p)) return sort_keys<W, u64>(h, p, r, b.workspace, keys);
    return sort_keys<W, u32>(h, p, r, b.workspace, keys);
  }
}

}  // namespace

namespace fast {

DeviceFacts device_facts(const DeviceContext* device) {
  if (!device) return facts_of(current_device_context(nullptr).props);
  DeviceFacts d = facts_of(device->props);
  d.context = device;
  return d;
}
DeviceFacts device_facts(const SortProblem& p) { return device_facts(p.device); }

// The widest buckets place_pairs holds in shared memory beside a batch of p's values.
unsigned widest_pair_width(const SortProblem& p, bool stable) {
  const std::size_t vb = payload_bytes(p.shape.payload);
  unsigned w = kTiledLowBits;
  while (w > kLowBitsMin && place_shared_total(w, vb, stable) > device_facts(p).smem_per_block) --w;
  return w;
}

int run_fast_any(Histogram h, const SortProblem& p, const DeviceBuffers& b) {
  return dispatch_element<FastKeys, FastValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    return run_fast(h, p, typed_buffers<decltype(k), decltype(v)>(b));
  });
}

std::size_t fast_bytes(Histogram h, const SortProblem& p) {
  const unsigned low_bits = low_bits_for(h, p);
  const bool keys_tiled = tiles(h) && !p.has_payload();
  const SplitPlan split = keys_tiled ? tiled_split(p) : SplitPlan{};
  return dispatch_key<FastKeys>(p.shape.key, [&](auto k) {
    using W = typename KeyTraits<decltype(k)>::Ordered;
    const bool dense = !p.has_payload() && expansion_is_dense(p);
    if (wide_counts(h, p))
      return FastArrays<W, u64>(nullptr, p.n(), problem_range(p), low_bits, false, device_facts(p), tiles(h), 0,
                                h == Histogram::tiled_stable, split, dense)
          .bytes;
    return FastArrays<W>(nullptr, p.n(), problem_range(p), low_bits, p.has_payload(), device_facts(p), tiles(h),
                         payload_bytes(p.shape.payload), h == Histogram::tiled_stable, split, dense)
        .bytes;
  });
}

// Raises the shared-memory limit of the histogram kernels variant h launches, on `device`.
void prepare_fast(Histogram h, const SortProblem& p, const DeviceContext& device) {
  const DeviceFacts d = device_facts(&device);
  dispatch_key<FastKeys>(p.shape.key, [&](auto k) {
    using W = typename KeyTraits<decltype(k)>::Ordered;
    if (h == Histogram::shared) {
      allow_large_shared(hist_shared<W>, d);
      allow_large_shared(hist_shared_pairs<W>, d);
    }
    if (h == Histogram::hybrid) {
      allow_large_shared(bucket_count<W>, d);
      allow_large_shared(bucket_scatter<W>, d);
      allow_large_shared(bucket_scatter_buffered<W, kScatterThreadsPaired, u32>, d);
      allow_large_shared(bucket_scatter_buffered<W, kScatterThreadsAlone, u32>, d);
      allow_large_shared(bucket_scatter_buffered<W, kScatterThreadsPaired, u64>, d);
      allow_large_shared(bucket_scatter_buffered<W, kScatterThreadsAlone, u64>, d);
      allow_large_shared(bucket_hist<u32, u32, false>, d);
      allow_large_shared(bucket_hist<u32, u32, true>, d);
      allow_large_shared(bucket_hist<u64, u64, false>, d);
      allow_large_shared(bucket_hist<u64, u64, true>, d);
    }
  });
  if (tiles(h))
    dispatch_element<FastKeys, FastValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      using W = typename KeyTraits<decltype(k)>::Ordered;
      using V = decltype(v);
      allow_large_shared(segment_hist<2>, d);
      allow_large_shared(segment_hist<4>, d);
      if constexpr (std::is_same_v<V, NoValue>) {
        allow_large_shared(group_key_tiles<W>, d);
        allow_large_shared(segment_runs<W, 2>, d);
        allow_large_shared(segment_runs<W, 4>, d);
        allow_large_shared(segment_hist<2, u64>, d);
        allow_large_shared(segment_hist<4, u64>, d);
        allow_large_shared(group_key_tiles<u32>, d);
        allow_large_shared(split_scatter<W>, d);
        allow_large_shared(split_segment_hist<2, u32>, d);
        allow_large_shared(split_segment_hist<4, u32>, d);
        allow_large_shared(split_segment_hist<2, u64>, d);
        allow_large_shared(split_segment_hist<4, u64>, d);
      } else if (h == Histogram::tiled_stable) {
        allow_large_shared(group_tiles<W, V, true>, d);
        allow_large_shared(place_pairs<W, V, true>, d);
      } else {
        allow_large_shared(group_tiles<W, V>, d);
        allow_large_shared(place_pairs<W, V>, d);
      }
    });
}

}  // namespace fast

// The histogram's workspace: the key-value layout (A, the hybrid's counters, hp-tiled's table
// and its two levels' arrays), without the runs.
template <typename W>
FastArrays<W> histogram_arrays(const SortProblem& p, std::uint64_t n, Histogram h, void* workspace,
                               const DeviceFacts& d) {
  return FastArrays<W>(static_cast<char*>(workspace), n, problem_range(p), low_bits_for(h, p), true, d, tiles(h), 0,
                       false, tiles(h) ? tiled_split(p) : SplitPlan{});
}

std::size_t histogram_bytes(const SortProblem& p, std::uint64_t n) {
  const Histogram h = histogram_for(p, n);
  return dispatch_key<FastKeys>(p.shape.key, [&](auto k) {
    using W = typename KeyTraits<decltype(k)>::Ordered;
    return histogram_arrays<W>(p, n, h, nullptr, device_facts(p)).bytes;
  });
}

void prepare_histogram(const SortProblem& p, std::uint64_t n, const DeviceContext& device) {
  prepare_fast(histogram_for(p, n), p, device);
}

std::uint32_t* histogram(const SortProblem& p, const void* keys, std::uint64_t n, void* low, void* workspace,
                         const DeviceContext& device, const BinOrder* order) {
  const Histogram h = histogram_for(p, n);
  return dispatch_key<FastKeys>(p.shape.key, [&](auto k) {
    using K = decltype(k);
    using W = typename KeyTraits<K>::Ordered;
    const DeviceFacts d = device_facts(&device);
    const Run<W> r{n, problem_range(p), min_word_of<K>(p.facts.min_ordered), device.stream, d,
                   h == Histogram::hybrid ? hybrid_scatter_threads(p, d) : 0};
    FastArrays<W> a = histogram_arrays<W>(p, n, h, workspace, r.device);
    if (n) launch_histogram(h, r, a, static_cast<const W*>(keys), static_cast<std::uint16_t*>(low), false, order);
    else SB_CUDA_CHECK(cudaMemsetAsync(a.A, 0, r.range * sizeof(u32), r.stream));
    const bool done_in_order = n && h == Histogram::hybrid;  // the hybrid called done as it went
    if (order && !done_in_order)
      for (std::size_t k = 0; k < order->bins.size(); ++k) order->done(k, a.A);
    return a.A;
  });
}

}  // namespace sb::hp
