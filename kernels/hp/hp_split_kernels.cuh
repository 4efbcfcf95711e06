// hp-tiled's first level for ranges of thousands of buckets (beyond seed 004; method notes in
// docs/hp.md, "two levels"): the keys partitioned by super-bucket into a padded array whose
// tiles each belong to one super-bucket (split_plan in hp_index.hpp), and the per-bucket
// histograms over the tiles of a bucket's super-bucket only. Between the two, the grouping
// of hp-tiled (group_key_tiles) runs unchanged on the partitioned array.
#pragma once

#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "hp_hist_kernels.cuh"
#include "hp_segment_kernels.cuh"

namespace sb::hp::fast {

// ---- step 1: super-bucket counts of each part (bucket_count with the super-buckets' bits) ----

// ---- step 2: where each (super-bucket, part) starts in the padded array ----
constexpr unsigned kSplitOffsetsBlock = 1024;
using SplitOffsetReduce = cub::BlockReduce<u64, kSplitOffsetsBlock>;
using SplitOffsetScan = cub::BlockScan<u64, kSplitOffsetsBlock>;

// The keys of each super-bucket (block s sums its parts' counts).
static __global__ void __launch_bounds__(kSplitOffsetsBlock) split_totals(const u32* counts, u32 parts,
                                                                           u64* totals) {
  __shared__ SplitOffsetReduce::TempStorage s_reduce;
  u64 sum = 0;
  for (u32 p = threadIdx.x; p < parts; p += blockDim.x) sum += counts[u64{blockIdx.x} * parts + p];
  sum = SplitOffsetReduce(s_reduce).Sum(sum);
  if (threadIdx.x == 0) totals[blockIdx.x] = sum;
}

// Block s: its super-bucket's first tile (the padded tiles of those before it), its parts'
// offsets (an exclusive scan of its row from there), and the padding after its keys; the
// last block also pads the tiles past the last super-bucket up to the bound the launches
// were sized for (split_tiles_bound), so that the grouping reads no stale words there.
static __global__ void __launch_bounds__(kSplitOffsetsBlock)
    split_offsets(const u32* counts, u32 parts, const u64* totals, SplitPlan plan, u64 bound_tiles, u64* offsets,
                  u64* tile_first, u32* xpart) {
  __shared__ union {
    SplitOffsetReduce::TempStorage reduce;
    SplitOffsetScan::TempStorage scan;
  } s_temp;
  __shared__ u64 s_first_tile;
  const u64 s = blockIdx.x;
  u64 before = 0;
  for (u64 q = threadIdx.x; q < s; q += blockDim.x) before += padded_tiles(totals[q], kTile);
  before = SplitOffsetReduce(s_temp.reduce).Sum(before);
  if (threadIdx.x == 0) s_first_tile = before;
  __syncthreads();
  const u64 first_tile = s_first_tile;
  const u64 start = first_tile * kTile, keys = totals[s], end = start + padded_tiles(keys, kTile) * kTile;
  if (threadIdx.x == 0) {
    tile_first[s] = first_tile;
    if (s + 1 == plan.supers) tile_first[s + 1] = end / kTile;
  }
  u64 running = start;
  for (u32 p0 = 0; p0 < parts; p0 += blockDim.x) {
    const u32 p = p0 + threadIdx.x;
    const u64 c = p < parts ? counts[s * parts + p] : 0;
    u64 at, chunk;
    __syncthreads();  // s_temp is reused by each chunk
    SplitOffsetScan(s_temp.scan).ExclusiveSum(c, at, chunk);
    if (p < parts) offsets[s * parts + p] = running + at;
    running += chunk;
  }
  const u32 pad = split_pad(plan);
  for (u64 i = start + keys + threadIdx.x; i < end; i += blockDim.x) xpart[i] = pad;
  if (s + 1 == plan.supers)
    for (u64 i = end + threadIdx.x; i < bound_tiles * kTile; i += blockDim.x) xpart[i] = pad;
}

// ---- step 3: the partition ----
// Each block takes its part (bucket_count's part_bounds) in 8192-key tiles, loaded by
// cp.async while the previous tile is grouped (as group_key_tiles does); a tile is grouped by
// super-bucket in shared memory and each super-bucket's keys leave as one run of consecutive
// 4-byte stores, about tile / supers of them (a radix pass's shape: 256 or fewer buckets keep
// the runs whole sectors). A key is stored as its offset inside its super-bucket.
constexpr unsigned kSplitScatterBlocksPerSm = 3;
constexpr std::size_t split_scatter_shared_bytes(u64 supers) {
  return 2 * std::size_t{kTile} * sizeof(u32) + std::size_t{supers} * (2 * sizeof(u32) + sizeof(u64));
}
template <typename W>
__global__ void __launch_bounds__(kTileBlock, kSplitScatterBlocksPerSm)
    split_scatter(const W* x, u64 n, W min_word, SplitPlan plan, const u64* offsets, u32* xpart) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ TileScan::TempStorage s_scan;
  u32* s_in = reinterpret_cast<u32*>(s_raw);  // low words
  u32* s_grouped = s_in + kTile;              // offsets grouped by super-bucket
  u64* s_out = reinterpret_cast<u64*>(s_grouped + kTile);  // each super-bucket's next slot in xpart
  const auto supers = static_cast<u32>(plan.supers);
  u32* s_count = reinterpret_cast<u32*>(s_out + supers);
  u32* s_next = s_count + supers;
  for (u32 b = threadIdx.x; b < supers; b += blockDim.x) {
    s_out[b] = offsets[u64{b} * gridDim.x + blockIdx.x];
    s_count[b] = 0;
  }
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 4, lo, hi);
  if (lo < hi) load_span_async(x, lo, static_cast<u32>(min_u64(kTile, hi - lo)), s_in);
  cp_async_commit();
  const u32 per_thread = static_cast<u32>(ceil_div(supers, blockDim.x));
  const u32 min_low = static_cast<u32>(min_word);
  for (u64 t0 = lo; t0 < hi; t0 += kTile) {
    cp_async_wait<0>();
    __syncthreads();
    const u32 len = static_cast<u32>(min_u64(kTile, hi - t0));
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 i = it * kTileBlock + threadIdx.x;
      if (i < len) atomicAdd(&s_count[super_of(word_offset<u32>(s_in[i], min_low), plan)], 1u);
    }
    __syncthreads();
    scan_bucket_counts<TileScan>(s_count, supers, per_thread, s_scan, [&](u32 b, u32 first) { s_next[b] = first; });
    __syncthreads();
    // s_count keeps the tile's counts: the slots are taken on s_next.
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 i = it * kTileBlock + threadIdx.x;
      if (i < len) {
        const u32 off = word_offset<u32>(s_in[i], min_low);
        s_grouped[atomicAdd(&s_next[super_of(off, plan)], 1u)] = off;
      }
    }
    __syncthreads();
    if (t0 + kTile < hi) load_span_async(x, t0 + kTile, static_cast<u32>(min_u64(kTile, hi - t0 - kTile)), s_in);
    cp_async_commit();
    // s_next[b] is now the end of super-bucket b's keys in the grouped tile.
    for (u32 i = threadIdx.x; i < len; i += blockDim.x) {
      const u32 off = s_grouped[i];
      const u32 b = super_of(off, plan);
      xpart[s_out[b] + i - (s_next[b] - s_count[b])] = offset_in_super(off, plan);
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < supers; b += blockDim.x) {
      s_out[b] += s_count[b];
      s_count[b] = 0;
    }
  }
  cp_async_wait<0>();
}

// ---- step 4: group_key_tiles over xpart (u32 offsets from 0, fine_per_super + 1 buckets) ----

// ---- step 5: each fine bucket's histogram over the tiles of its super-bucket ----
// Block (b, s, g): fine bucket b of super-bucket s, group g of that super-bucket's tiles. The
// tiles of a super-bucket are known on the device only, so the groups are sized on the host
// for an even spread (bucket_groups over tiles / supers) and a block splits what it finds.
// A bucket past the range (the last super-bucket's tail) has no keys and no bins: its block
// leaves at once.
template <unsigned Lanes, typename Count>
__global__ void __launch_bounds__(kSegBlock, kSegBlocksPerSm)
    split_segment_hist(const std::uint16_t* low, u64 padded_n, const u32* seg_start, u64 tiles, const u64* tile_first,
                       SplitPlan plan, u64 range, u32 groups, Count* A) {
  extern __shared__ u32 s_hist[];
  const u32 bins = 1u << plan.low_bits;
  const u32 b = blockIdx.x % plan.fine_per_super;
  const u64 rest = blockIdx.x / plan.fine_per_super;
  const u64 s = rest % plan.supers;
  const auto g = static_cast<u32>(rest / plan.supers);
  const u64 first = split_bucket_first(plan, s, b);
  if (first >= range) return;
  u64 t_lo, t_hi;
  part_bounds(tile_first[s + 1] - tile_first[s], groups, g, 1, t_lo, t_hi);
  for (u32 i = threadIdx.x; i < bins; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  count_segments<Lanes>(low, padded_n, seg_start, tiles, b, tile_first[s] + t_lo, tile_first[s] + t_hi, s_hist, bins);
  __syncthreads();
  for (u32 i = threadIdx.x; i < bins && first + i < range; i += blockDim.x) {
    if (groups == 1) A[first + i] = s_hist[i];
    else if (s_hist[i]) add_count(&A[first + i], s_hist[i]);
  }
}

}  // namespace sb::hp::fast
