// hp-tiled's segment counts (beyond seed 004; method notes in docs/hp.md): each bucket's
// histogram from its segments of the grouped tiles, and for keys alone the bucket's runs
// written straight from shared memory.
#pragma once

#include <cstdint>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_scan.cuh>

#include "hp_tiled_kernels.cuh"

namespace sb::hp::fast {

// Eight 2-byte values of the grouped array from word q (positions 8q .. 8q + 7); a word
// reaching past n is read value by value (the array holds n values).
__device__ __forceinline__ uint4 load_oct(const std::uint16_t* low, u64 n, u64 q) {
  if (8 * q + 8 <= n) return reinterpret_cast<const uint4*>(low)[q];
  u32 v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (u32 k = 0; k < 8 && 8 * q + k < n; ++k) v[k] = low[8 * q + k];
  return make_uint4(v[0] | v[1] << 16, v[2] | v[3] << 16, v[4] | v[5] << 16, v[6] | v[7] << 16);
}

// The histogram of bucket b over tiles [t_lo, t_hi), Lanes consecutive lanes a tile
// (segment_lanes), into s_hist (`bins` counters, zeroed, then kSegSinks words that are never
// read): lane j of a tile's lanes reads words j, j + Lanes, ... of its segment, 16 bytes each,
// kSegUnroll in flight before it counts them. Every value is one shared add, with no branch:
// a value of a neighbouring segment, which the first and last words overlap, goes to its
// lane's sink word (distinct banks). No counting of runs in a register first (RunCounter):
// it cost more than it saved even where runs are long. Segments are short (8192 keys over the
// buckets: ~100 values at delta = 50, n = 2^26, 2^14-bin buckets), so neither a warp per
// segment (lanes idle behind two dependent loads) nor numbering the words of many segments
// for the whole block (a binary search per word) (docs/hp.md, segment_hist's counting).
constexpr unsigned kSegBlock = 512;
constexpr unsigned kSegBlocksPerSm = 3;
constexpr unsigned kSegUnroll = 2;
constexpr unsigned kSegSinks = 32;
constexpr std::size_t segment_hist_bytes(unsigned low_bits) {
  return ((std::size_t{1} << low_bits) + kSegSinks) * sizeof(u32);
}
template <unsigned Lanes>
__device__ __forceinline__ void count_segments(const std::uint16_t* low, u64 n, const u32* seg_start, u64 tiles,
                                               u32 b, u64 t_lo, u64 t_hi, u32* s_hist, u32 bins) {
  u32* sink = s_hist + bins + lane_id() % kSegSinks;
  const u32 first_word = threadIdx.x % Lanes;
  for (u64 t = t_lo + threadIdx.x / Lanes; t < t_hi; t += blockDim.x / Lanes) {
    const u64 lo = t * kTile + seg_start[segment_row(b, t, tiles)];
    const u64 hi = t * kTile + seg_start[segment_row(b + 1, t, tiles)];
    const u32 len = static_cast<u32>(hi - lo);
    u64 q0, q1;
    word_span(lo, hi, 8, q0, q1);
    for (u64 q = q0 + first_word; q < q1; q += kSegUnroll * Lanes) {
      uint4 v[kSegUnroll];
#pragma unroll
      for (u32 r = 0; r < kSegUnroll; ++r)
        v[r] = q + r * Lanes < q1 ? load_oct(low, n, q + r * Lanes) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (u32 r = 0; r < kSegUnroll; ++r) {
        const u32 w[4] = {v[r].x, v[r].y, v[r].z, v[r].w};
#pragma unroll
        for (u32 k = 0; k < 8; ++k) {
          const u32 bin = k % 2 ? w[k / 2] >> 16 : w[k / 2] & 0xffffu;
          atomicAdd(in_segment(q + r * Lanes, k, 8, lo, len) ? &s_hist[bin] : sink, 1u);
        }
      }
    }
  }
}

// The histogram of bucket b over the tiles of group g. Three blocks per SM (registers capped
// at 42) keep buckets * groups blocks in one wave at up to 3 * SMs. One group stores its
// counts into A; several add the non-empty bins, or with bin_total (the key-value path)
// each stores its own counts into A[g * range, (g + 1) * range) and adds its non-empty bins
// into bin_total.
// Count: the width of A's counts (u64 where n >= 2^32; the key-value path is u32 only).
template <unsigned Lanes, typename Count = u32>
__global__ void __launch_bounds__(kSegBlock, kSegBlocksPerSm) segment_hist(const std::uint16_t* low, u64 n,
                                                                   const u32* seg_start, u64 tiles, u32 buckets,
                                                                   unsigned low_bits, u64 range, u32 groups, Count* A,
                                                                   u32* bin_total = nullptr) {
  extern __shared__ u32 s_hist[];
  const u32 bins = 1u << low_bits;
  const u32 b = blockIdx.x % buckets, g = blockIdx.x / buckets;
  u64 t_lo, t_hi;
  part_bounds(tiles, groups, g, 1, t_lo, t_hi);
  for (u32 i = threadIdx.x; i < bins; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  count_segments<Lanes>(low, n, seg_start, tiles, b, t_lo, t_hi, s_hist, bins);
  __syncthreads();
  const u64 first = u64{b} << low_bits;
  if (bin_total) {
    A += u64{g} * range;
    for (u32 i = threadIdx.x; i < bins && first + i < range; i += blockDim.x) {
      A[first + i] = s_hist[i];
      if (s_hist[i]) atomicAdd(&bin_total[first + i], s_hist[i]);
    }
    return;
  }
  for (u32 i = threadIdx.x; i < bins && first + i < range; i += blockDim.x) {
    if (groups == 1) A[first + i] = s_hist[i];
    else if (s_hist[i]) add_count(&A[first + i], s_hist[i]);
  }
}

// Keys only, one block a bucket: the bucket's histogram as segment_hist counts it, then its
// runs (value, end) written straight from shared memory, which saves the range-sized A, its
// store and the scan that reads it back (Algorithm 5 lines 2-11 as the fused scan does them,
// pack_bin sums). The runs before the bucket come from a decoupled look-back over the
// buckets' packed totals (CUB's single-pass scan tile state); inside it, warps own
// consecutive bins in chunks of 32 (chunk_bin).
using BucketScanState = cub::ScanTileState<u64>;
using BucketScan = cub::BlockScan<u64, kSegBlock>;
using BucketPrefix = cub::TilePrefixCallbackOp<u64, ::cuda::std::plus<>, BucketScanState>;

static __global__ void init_bucket_scan(BucketScanState state, u32 buckets) {
  state.InitializeStatus(static_cast<int>(buckets));
}

template <typename W, unsigned Lanes>
__global__ void __launch_bounds__(kSegBlock, kSegBlocksPerSm) segment_runs(const std::uint16_t* low, u64 n,
                                                              const u32* seg_start, u64 tiles, unsigned low_bits,
                                                              W min_word, BucketScanState state, u32* run_end,
                                                              W* run_val, u32* len) {
  extern __shared__ u32 s_hist[];
  __shared__ BucketScan::TempStorage s_scan;
  __shared__ BucketPrefix::TempStorage s_prefix;
  const u32 bins = 1u << low_bits, b = blockIdx.x;
  for (u32 i = threadIdx.x; i < bins; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  count_segments<Lanes>(low, n, seg_start, tiles, b, 0, tiles, s_hist, bins);
  __syncthreads();
  const u32 warp = threadIdx.x / 32, lane = lane_id(), per_warp = bins / (kSegBlock / 32);
  u64 warp_total = 0;
  for (u32 c = 0; c < per_warp / 32; ++c) warp_total += pack_bin(s_hist[chunk_bin(warp, c, lane, per_warp)]);
  for (u32 d = 16; d > 0; d /= 2) warp_total += __shfl_xor_sync(0xffffffffu, warp_total, d);
  // Each warp's total is in its lane 0 only: the scan gives lane 0 everything before the warp.
  u64 before = lane == 0 ? warp_total : 0;
  if (b == 0) {
    u64 bucket_total;
    BucketScan(s_scan).ExclusiveSum(before, before, bucket_total);
    if (threadIdx.x == 0) state.SetInclusive(0, bucket_total);
  } else {
    BucketPrefix prefix(state, s_prefix, ::cuda::std::plus<>{}, static_cast<int>(b));
    BucketScan(s_scan).ExclusiveScan(before, before, ::cuda::std::plus<>{}, prefix);
  }
  before = __shfl_sync(0xffffffffu, before, 0);
  const u64 first = u64{b} << low_bits;
  for (u32 c = 0; c < per_warp / 32; ++c) {
    const u32 bin = chunk_bin(warp, c, lane, per_warp);
    const u32 count = s_hist[bin];
    u64 upto = pack_bin(count);  // inclusive scan over the chunk's lanes
    for (u32 d = 1; d < 32; d *= 2) {
      const u64 v = __shfl_up_sync(0xffffffffu, upto, d);
      if (lane >= d) upto += v;
    }
    upto += before;
    if (count) {
      const u32 j = packed_nonzero(upto) - 1;
      run_end[j] = packed_count(upto);
      run_val[j] = word_at<W>(static_cast<u32>(first + bin), min_word);
    }
    before = __shfl_sync(0xffffffffu, upto, 31);
  }
  if (b == gridDim.x - 1 && threadIdx.x == blockDim.x - 1) *len = packed_nonzero(before);
}

}  // namespace sb::hp::fast
