// radix-lsd kernels: seed 001's three phases per digit pass, made parallel and stable in
// the reduce-then-scan shape (Satish, Harris, Garland 2009; CUB's former upsweep / scan /
// downsweep): a block owns a contiguous run of tiles (radix_index.hpp, TileSplit).
//   histogram_kernel   the seed's accumulator, per block: shared-memory atomics, then the
//                      block's counts to counts[digit][block]
//   scan_rows_kernel   with scan_totals_kernel, the exclusive scan of counts in digit-major
//                      order (two levels: each digit row, then the row totals)
//   scatter_kernel     the seed's rearrange, per block and tile: warp match ranking
//                      (ballots per digit bit) in input order, a local sort by digit through
//                      shared memory, then runs of equal digits written out together; the
//                      values follow through the same shared buffer (CUB onesweep's order)
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "radix_index.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/types.hpp"

namespace sb::radix::lsd {

inline constexpr unsigned kThreads = 256;
inline constexpr unsigned kWarps = kThreads / kWarp;
inline constexpr unsigned kMaxBins = 1u << kMaxRadixBits;

template <typename V>
inline constexpr std::size_t value_bytes_v = std::is_same_v<V, NoValue> ? 0 : sizeof(V);

// The scatter's shape: keys per thread (rounds) and the resident blocks per SM it is
// compiled for (__launch_bounds__: 3 blocks cap a thread at 80 registers, 2 at 128).
template <unsigned kRounds, unsigned kMinBlocks>
struct ScatterShape {
  static constexpr unsigned rounds = kRounds;
  static constexpr unsigned keys = kThreads * kRounds;
  static constexpr unsigned min_blocks = kMinBlocks;
};

// The tile shape of element type (K, V): the fastest measured of those whose registers do not
// spill (docs/radix.md, tile shapes):
//   keys only, 4 + 4 bytes     16 keys per thread (a 4096-key tile: long runs of one digit to
//                              write out), 3 blocks per SM
//   8-byte key or value        16 per thread, 2 blocks
//   with a value
//   rows                       6 per thread (1536 rows, 24 KiB), 3 blocks
// Values go through the same exchange buffer after the keys, so the buffer holds a tile of
// the wider of key and value: 32 KiB at most, under the 48 KiB of static shared memory with
// the counters.
template <typename K, typename V>
struct TileShape
    : ScatterShape<(sizeof(K) > 8 ? 6 : 16),
                   (sizeof(K) <= 8 && value_bytes_v<V> > 0 && sizeof(K) + value_bytes_v<V> >= 12 ? 2 : 3)> {};

// The histogram's keys per thread (any run of tiles; it keeps no tile state).
template <typename K>
inline constexpr unsigned histogram_rounds_v = sizeof(K) <= 8 ? 16 : 6;

// Bytes of the scatter's exchange buffer for element type (K, V) and shape S.
template <typename K, typename V, typename S>
inline constexpr std::size_t exchange_bytes_v = S::keys * (sizeof(K) > value_bytes_v<V> ? sizeof(K) : value_bytes_v<V>);

template <typename K>
__global__ __launch_bounds__(kThreads) void histogram_kernel(const K* keys, std::uint64_t n, DigitSelect sel,
                                                             TileSplit split, std::uint64_t* counts) {
  constexpr unsigned kRounds = histogram_rounds_v<K>;
  __shared__ std::uint32_t hist[kMaxBins];
  const unsigned bins = radix_bins(sel.bits);
  for (unsigned d = threadIdx.x; d < bins; d += kThreads) hist[d] = 0;
  __syncthreads();
  const std::uint64_t end = block_end(split, blockIdx.x, n);
  for (std::uint64_t base = block_begin(split, blockIdx.x, n); base < end; base += kRounds * kThreads) {
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

// Keys and ranks are held in registers across the ranking; values are loaded only once the
// keys are in shared memory.
template <typename K, typename V, typename S = TileShape<K, V>>
__global__ __launch_bounds__(kThreads, S::min_blocks) void scatter_kernel(
    const K* __restrict__ keys_in, const V* __restrict__ vals_in, K* __restrict__ keys_out, V* __restrict__ vals_out,
    std::uint64_t n, DigitSelect sel, TileSplit split, const std::uint64_t* counts, const std::uint64_t* row_start) {
  constexpr bool kValues = !std::is_same_v<V, NoValue>;
  constexpr unsigned kRounds = S::rounds;
  constexpr unsigned kTile = S::keys;
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  // The tile sorted by digit: its keys, then (kValues) its values.
  __shared__ alignas(16) unsigned char exchange[exchange_bytes_v<K, V, S>];
  __shared__ std::uint32_t warp_count[kWarps][kMaxBins];  // running counts, then warp prefixes
  __shared__ std::uint32_t tile_count[kMaxBins];
  __shared__ std::uint32_t tile_start[kMaxBins];        // first local position of each digit
  __shared__ std::uint64_t next_out[kMaxBins];          // this block's next output position per digit
  __shared__ typename Scan::TempStorage scan_temp;
  K* const tile_keys = reinterpret_cast<K*>(exchange);

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
    std::uint32_t pos[kRounds];  // rank among equal digits of the warp segment, then local position
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      const std::uint64_t i = base + tile_offset(warp, r, lane, kRounds);
      if (i < end) key[r] = keys_in[i];
    }
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      const bool valid = base + tile_offset(warp, r, lane, kRounds) < end;
      pos[r] = warp_rank(valid ? key_digit(key[r], sel) : 0, valid, sel.bits, warp_count[warp]);
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
        pos[r] += tile_start[d] + warp_count[warp][d];
        tile_keys[pos[r]] = key[r];
      }
    }
    __syncthreads();

    // The values, in input order: loaded now (the keys are in shared memory, their registers
    // free) so that the loads are in flight while the keys are written out.
    V val[kValues ? kRounds : 1];
    if constexpr (kValues) {
#pragma unroll
      for (unsigned r = 0; r < kRounds; ++r) {
        const std::uint64_t i = base + tile_offset(warp, r, lane, kRounds);
        if (i < end) val[r] = vals_in[i];
      }
    }

    // Consecutive threads write consecutive keys of one digit run to consecutive addresses.
    const std::uint32_t valid = static_cast<std::uint32_t>(end - base < kTile ? end - base : kTile);
    // The digits of sorted positions r * kThreads + threadIdx.x, four 8-bit digits a word,
    // for the values' write-out.
    std::uint32_t digits[kValues ? (kRounds + 3) / 4 : 1] = {};
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r) {
      const std::uint32_t i = r * kThreads + threadIdx.x;
      if (i < valid) {
        const K k = tile_keys[i];
        const unsigned d = key_digit(k, sel);
        if constexpr (kValues) digits[r / 4] |= d << (8 * (r % 4));
        keys_out[next_out[d] + (i - tile_start[d])] = k;
      }
    }

    if constexpr (kValues) {
      // The values placed at their keys' local positions, then written out to their keys'
      // output positions.
      V* const tile_vals = reinterpret_cast<V*>(exchange);
      __syncthreads();  // the keys are out of the buffer
#pragma unroll
      for (unsigned r = 0; r < kRounds; ++r)
        if (base + tile_offset(warp, r, lane, kRounds) < end) tile_vals[pos[r]] = val[r];
      __syncthreads();
#pragma unroll
      for (unsigned r = 0; r < kRounds; ++r) {
        const std::uint32_t i = r * kThreads + threadIdx.x;
        const unsigned d = (digits[r / 4] >> (8 * (r % 4))) & 0xffu;
        if (i < valid) vals_out[next_out[d] + (i - tile_start[d])] = tile_vals[i];
      }
    }
    __syncthreads();
    for (unsigned d = threadIdx.x; d < bins; d += kThreads) next_out[d] += tile_count[d];
  }
}

}  // namespace sb::radix::lsd
