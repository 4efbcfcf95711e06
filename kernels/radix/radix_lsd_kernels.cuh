// radix-lsd kernels: seed 001's three phases per digit pass, made parallel and stable in
// the reduce-then-scan shape (Satish, Harris, Garland 2009; CUB's former upsweep / scan /
// downsweep): a block owns a contiguous run of tiles (radix_index.hpp, TileSplit).
//   histogram_kernel   the seed's accumulator, per block: shared-memory atomics, then the
//                      block's counts to counts[digit][block]
//   scan_rows_kernel   with scan_totals_kernel, the exclusive scan of counts in digit-major
//                      order (two levels: each digit row, then the row totals)
//   scatter_kernel     the seed's rearrange, per block and tile: warp match ranking
//                      (ballots per digit bit) in input order, a local sort by digit through
//                      shared memory, then runs of equal digits written out together
#pragma once

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "radix_index.hpp"
#include "sortbench/types.hpp"

namespace sb::radix::lsd {

inline constexpr unsigned kThreads = 256;
inline constexpr unsigned kWarps = kThreads / kWarp;
inline constexpr unsigned kMaxBins = 1u << kMaxRadixBits;

// Keys per thread: 16 four-byte keys (a 4096-key tile), 6 rows, so that a tile and its
// payload stay within 48 KiB of static shared memory next to the counters.
template <typename K>
struct TileShape {
  static constexpr unsigned rounds = sizeof(K) == 4 ? 16 : 6;
  static constexpr unsigned keys = kThreads * rounds;
};

template <typename K>
__global__ __launch_bounds__(kThreads) void histogram_kernel(const K* keys, std::uint64_t n, DigitSelect sel,
                                                             TileSplit split, std::uint64_t* counts) {
  constexpr unsigned kRounds = TileShape<K>::rounds;
  __shared__ std::uint32_t hist[kMaxBins];
  const unsigned bins = radix_bins(sel.bits);
  for (unsigned d = threadIdx.x; d < bins; d += kThreads) hist[d] = 0;
  __syncthreads();
  const std::uint64_t end = block_end(split, blockIdx.x, n);
  for (std::uint64_t base = block_begin(split, blockIdx.x, n); base < end; base += TileShape<K>::keys) {
    K k[kRounds];
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      const std::uint64_t i = base + r * kThreads + threadIdx.x;
      if (i < end) k[r] = keys[i];
    }
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r)
      if (base + r * kThreads + threadIdx.x < end) atomicAdd(&hist[key_digit(k[r], sel)], 1u);
  }
  __syncthreads();
  for (unsigned d = threadIdx.x; d < bins; d += kThreads) counts[count_index(d, blockIdx.x, gridDim.x)] = hist[d];
}

// Block d: exclusive scan of digit d's row counts[d][0 .. blocks) in place; its sum to row_total[d].
__global__ __launch_bounds__(kThreads) void scan_rows_kernel(std::uint64_t* counts, std::uint32_t blocks,
                                                             std::uint64_t* row_total) {
  using Scan = cub::BlockScan<std::uint64_t, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  std::uint64_t carry = 0;
  for (std::uint32_t base = 0; base < blocks; base += kThreads) {
    const std::uint32_t b = base + threadIdx.x;
    const std::uint64_t idx = count_index(blockIdx.x, b, blocks);
    std::uint64_t v = b < blocks ? counts[idx] : 0, sum = 0;
    Scan(temp).ExclusiveSum(v, v, sum);
    if (b < blocks) counts[idx] = carry + v;
    carry += sum;
    __syncthreads();  // temp is reused by the next chunk
  }
  if (threadIdx.x == 0) row_total[blockIdx.x] = carry;
}

// One block: exclusive scan of the row totals in place (bins <= kThreads).
__global__ __launch_bounds__(kThreads) void scan_totals_kernel(std::uint64_t* row_total, unsigned bins) {
  using Scan = cub::BlockScan<std::uint64_t, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  std::uint64_t v = threadIdx.x < bins ? row_total[threadIdx.x] : 0;
  Scan(temp).ExclusiveSum(v, v);
  if (threadIdx.x < bins) row_total[threadIdx.x] = v;
}

// The lanes of this warp holding the same digit: one ballot per digit bit, as CUB's
// MatchAny<bits> does it. Invalid lanes (past the input's end) match nobody.
__device__ __forceinline__ std::uint32_t digit_peers(std::uint32_t digit, bool valid, unsigned bits) {
  std::uint32_t peers = __ballot_sync(0xffffffffu, valid);
#pragma unroll
  for (unsigned b = 0; b < kMaxRadixBits; ++b) {
    if (b >= bits) break;  // bits is the same in every lane
    const bool one = (digit >> b) & 1u;
    const std::uint32_t ones = __ballot_sync(0xffffffffu, one);
    peers &= one ? ones : ~ones;
  }
  return valid ? peers : 0u;
}

// Rank of a key among the keys with the same digit that precede it in this warp's segment,
// from the warp's running counts (warp_count[d]: digit d keys seen so far). The lowest lane
// of each digit group advances the count for the group.
__device__ __forceinline__ std::uint32_t warp_rank(std::uint32_t digit, bool valid, unsigned bits,
                                                   std::uint32_t* warp_count) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::uint32_t peers = digit_peers(digit, valid, bits);
  const std::uint32_t before = peers & ((1u << lane) - 1u);
  const std::uint32_t seen = valid ? warp_count[digit] : 0;
  __syncwarp();
  if (valid && before == 0) warp_count[digit] = seen + __popc(peers);
  __syncwarp();
  return seen + __popc(before);
}

// At least 3 resident blocks per SM (<= 80 registers): 16 keys, 16 ranks and 16 payload
// words per thread would otherwise take ~110 registers and leave 2.
inline constexpr unsigned kScatterMinBlocks = 3;

template <typename K, bool kPayload>
__global__ __launch_bounds__(kThreads, kScatterMinBlocks) void scatter_kernel(const K* keys_in, const index_t* vals_in, K* keys_out,
                                                           index_t* vals_out, std::uint64_t n, DigitSelect sel,
                                                           TileSplit split, const std::uint64_t* counts,
                                                           const std::uint64_t* row_start) {
  constexpr unsigned kRounds = TileShape<K>::rounds;
  constexpr unsigned kTile = TileShape<K>::keys;
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ K tile_keys[kTile];
  __shared__ index_t tile_vals[kPayload ? kTile : 1];
  __shared__ std::uint32_t warp_count[kWarps][kMaxBins];  // running counts, then warp prefixes
  __shared__ std::uint32_t tile_count[kMaxBins];
  __shared__ std::uint32_t tile_start[kMaxBins];        // first local position of each digit
  __shared__ std::uint64_t next_out[kMaxBins];          // this block's next output position per digit
  __shared__ typename Scan::TempStorage scan_temp;

  const unsigned bins = radix_bins(sel.bits);
  const unsigned warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  for (unsigned d = threadIdx.x; d < bins; d += kThreads)
    next_out[d] = row_start[d] + counts[count_index(d, blockIdx.x, gridDim.x)];

  const std::uint64_t end = block_end(split, blockIdx.x, n);
  for (std::uint64_t base = block_begin(split, blockIdx.x, n); base < end; base += kTile) {
    for (unsigned i = threadIdx.x; i < kWarps * kMaxBins; i += kThreads) (&warp_count[0][0])[i] = 0;
    __syncthreads();

    // Load this warp's segment of the tile one coalesced round at a time, ranking as it goes.
    K key[kRounds];
    index_t val[kRounds];
    std::uint32_t rank[kRounds];
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      const std::uint64_t i = base + tile_offset(warp, r, lane, kRounds);
      if (i < end) {
        key[r] = keys_in[i];
        if constexpr (kPayload) val[r] = vals_in[i];
      }
    }
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      const bool valid = base + tile_offset(warp, r, lane, kRounds) < end;
      rank[r] = warp_rank(valid ? key_digit(key[r], sel) : 0, valid, sel.bits, warp_count[warp]);
    }
    __syncthreads();

    // Per digit: the warps' exclusive prefixes and the tile's count; then the digits' starts.
    for (unsigned d = threadIdx.x; d < bins; d += kThreads) {
      std::uint32_t sum = 0;
      for (unsigned w = 0; w < kWarps; ++w) {
        const std::uint32_t c = warp_count[w][d];
        warp_count[w][d] = sum;
        sum += c;
      }
      tile_count[d] = sum;
    }
    __syncthreads();
    std::uint32_t start = threadIdx.x < bins ? tile_count[threadIdx.x] : 0;
    Scan(scan_temp).ExclusiveSum(start, start);
    if (threadIdx.x < bins) tile_start[threadIdx.x] = start;
    __syncthreads();

    // Local sort by digit (stable: rank follows input order).
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      if (base + tile_offset(warp, r, lane, kRounds) < end) {
        const unsigned d = key_digit(key[r], sel);
        const std::uint32_t pos = tile_start[d] + warp_count[warp][d] + rank[r];
        tile_keys[pos] = key[r];
        if constexpr (kPayload) tile_vals[pos] = val[r];
      }
    }
    __syncthreads();

    // Consecutive threads write consecutive keys of one digit run to consecutive addresses.
    const std::uint32_t valid = static_cast<std::uint32_t>(end - base < kTile ? end - base : kTile);
    for (std::uint32_t i = threadIdx.x; i < valid; i += kThreads) {
      const K k = tile_keys[i];
      const unsigned d = key_digit(k, sel);
      const std::uint64_t out = next_out[d] + (i - tile_start[d]);
      keys_out[out] = k;
      if constexpr (kPayload) vals_out[out] = tile_vals[i];
    }
    __syncthreads();
    for (unsigned d = threadIdx.x; d < bins; d += kThreads) next_out[d] += tile_count[d];
  }
}

}  // namespace sb::radix::lsd
