// hp-tiled's grouping (beyond seed 004; method notes in docs/hp.md): each tile of keys grouped
// by bucket in place, with or without its values, and hp-tiled-stable's ranking in input order.
#pragma once

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "hp_fast_device.cuh"

namespace sb::hp::fast {

// ---- hp-tiled: the split without global bucket offsets ----
// The hybrid's split needs each (bucket, part)'s place in the bucketed array, so it reads
// the keys twice (a counting pass, then the scatter) and its stores land wherever the
// offsets say. The per-bucket histograms only need to find a bucket's keys, not to have them
// contiguous, so here each tile is grouped by bucket and written back in place (its stores
// are the tile's own 16 KB, whole lines), and a table records where each bucket's segment
// starts in each tile. The histogram of bucket b then reads its segment of every tile.
constexpr unsigned kTileBlock = 512;
constexpr unsigned kTileItems = 16;
constexpr unsigned kTile = kTileBlock * kTileItems;
template <int Bytes>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (Bytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(Bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// Starts copying the low words of x[t0, t0 + len) into s (4-byte keys in 16-byte chunks, t0 a
// multiple of 4; 8-byte keys their low 4 bytes each; plain loads for a tail): the copy runs
// while the block groups the previous tile, which is what the hybrid's scatter lacked (its
// loads waited behind every barrier of a tile).
template <typename W>
__device__ __forceinline__ void load_span_async(const W* x, u64 t0, u32 len, u32* s) {
  if constexpr (sizeof(W) == 4) {
    const u32 chunks = len / 4;
    for (u32 c = threadIdx.x; c < chunks; c += blockDim.x) cp_async<16>(s + c * 4, x + t0 + c * 4);
    for (u32 i = chunks * 4 + threadIdx.x; i < len; i += blockDim.x) s[i] = x[t0 + i];
  } else {
    // Little-endian: a key's low word is its first 4 bytes.
    for (u32 i = threadIdx.x; i < len; i += blockDim.x) cp_async<4>(s + i, x + t0 + i);
  }
}
// The same for tile t of x[0, n).
template <typename W>
__device__ __forceinline__ void load_tile_async(const W* x, u64 n, u64 t, u32* s) {
  load_span_async(x, t * kTile, static_cast<u32>(min_u64(kTile, n - t * kTile)), s);
}

// Stores a grouped tile: whole tiles as 16-byte words, a last partial one value by value.
template <typename T>
__device__ __forceinline__ void copy_tile_out(const T* s, T* out, u32 len) {
  if (len == kTile) {
    constexpr u32 chunks = kTile * sizeof(T) / sizeof(uint4);
    for (u32 c = threadIdx.x; c < chunks; c += blockDim.x)
      reinterpret_cast<uint4*>(out)[c] = reinterpret_cast<const uint4*>(s)[c];
  } else {
    for (u32 i = threadIdx.x; i < len; i += blockDim.x) out[i] = s[i];
  }
}

// group_tiles' shared memory (hp-tiled with a payload): a tile of keys' low words, the
// tile's values, the grouped low bits, and two words per bucket (tile counts, segment starts).
// An offset is 32 bits of key - minVal, so the low 32 bits of a key word are all a tile needs:
// 8-byte keys take the shared memory of 4-byte ones (whole 8-byte keys left one block an SM:
// docs/hp.md, group_tiles' shared memory). The values travel with
// their keys' low bits: each tile's values are grouped the same way into grouped_vals (kTile
// of V, between the key buffer and s_low: 8-byte values stay aligned). The keys have one
// buffer, refilled while the grouped tile is stored, so that two blocks share an SM with
// 4-byte values (two key buffers left one: 115 KB a block).
template <typename V>
constexpr std::size_t group_value_bytes() {
  return std::size_t{kTile} * sizeof(V);
}
// hp-tiled-stable ranks by warp rows of 16-bit counters (warp_counter) instead of a word a
// bucket and its start.
constexpr unsigned kRankWarps = kTileBlock / 32;
constexpr std::size_t warp_counts_bytes(u32 digits) {
  return (std::size_t{kRankWarps} * digits * sizeof(std::uint16_t) + 3) / 4 * 4;
}
template <typename V, bool Stable = false>
constexpr std::size_t group_shared_bytes(u32 buckets) {
  return std::size_t{kTile} * sizeof(u32) + group_value_bytes<V>() + std::size_t{kTile} * sizeof(std::uint16_t) +
         (Stable ? warp_counts_bytes(buckets) : 2 * std::size_t{buckets} * sizeof(u32));
}
// group_key_tiles' shared memory: a tile of low words, its grouped low bits, and two words
// per bucket (tile counts, then each bucket's next slot).
constexpr std::size_t group_key_shared_bytes(u32 buckets) {
  return std::size_t{kTile} * (sizeof(u32) + sizeof(std::uint16_t)) + 2 * std::size_t{buckets} * sizeof(u32);
}

using TileScan = cub::BlockScan<u32, kTileBlock>;

// ---- hp-tiled-stable: ranks in input order (warp_major_item, warp_counter) ----
// The lanes of a warp holding the same digit as this one, found with a ballot per digit bit
// as CUB's MatchAny does (__match_any_sync made the hybrid's scatter compute bound, see
// rank_in_bucket); none for a lane with no item. A loop over the digit's own bits, not
// unrolled to the widest digit, which was slower (docs/hp.md, lanes_with_digit).
constexpr u32 kNoDigit = ~0u;
__device__ __forceinline__ unsigned lanes_with_digit(u32 digit, unsigned bits) {
  unsigned peers = __ballot_sync(0xffffffffu, digit != kNoDigit);
  for (unsigned k = 0; k < bits; ++k) {
    const bool set = digit >> k & 1u;
    const unsigned with = __ballot_sync(0xffffffffu, set);
    peers &= set ? with : ~with;
  }
  return digit != kNoDigit ? peers : 0u;
}

// A thread's ranks inside its warp (under 2^16), two to a register: with a word each,
// group_tiles spilled more of the 64 registers that two 512-thread blocks an SM leave it.
template <unsigned Items>
struct WarpRanks {
  u32 word[(Items + 1) / 2];
  __device__ __forceinline__ void set(unsigned step, u32 r) {
    if (step % 2) word[step / 2] |= r << 16;
    else word[step / 2] = r;
  }
  __device__ __forceinline__ u32 operator[](unsigned step) const { return word[step / 2] >> (step % 2 * 16) & 0xffffu; }
};

// Each warp counts its items' digits (digit_of(step): a digit below `digits`, of `bits` bits,
// or kNoDigit) in its row of `count`, zeroed before; ranked(step, r) hears the item's rank
// among its warp's items of that digit. A step's equal digits rank by lane, and one leader
// per digit adds them to the row with an atomic on the counter's 32-bit word (two 16-bit
// counters): its old value is the rank of the step's first such item, and the shuffle that
// hands it to the peers orders this step's atomics before the next step's.
template <unsigned Items, typename DigitOf, typename Ranked>
__device__ __forceinline__ void count_warp_digits(DigitOf digit_of, unsigned bits, u32 digits,
                                                  std::uint16_t* count, Ranked ranked) {
  const u32 warp = threadIdx.x / 32, lane = lane_id();
#pragma unroll
  for (unsigned step = 0; step < Items; ++step) {
    const u32 d = digit_of(step);
    const unsigned peers = lanes_with_digit(d, bits);
    const unsigned leader = peers ? __ffs(peers) - 1 : lane;
    u32 before = 0;
    if (peers && lane == leader) {
      const u32 at = warp_counter(d, warp, digits), half = at % 2 * 16;
      before = atomicAdd(reinterpret_cast<u32*>(count) + at / 2, static_cast<u32>(__popc(peers)) << half) >> half &
               0xffffu;
    }
    ranked(step, __shfl_sync(0xffffffffu, before, leader) + __popc(peers & ((1u << lane) - 1)));
  }
}

// The exclusive scan of every warp's counts, digit by digit and warp by warp inside a digit
// (thread t takes digits [t * per, (t + 1) * per)): each counter becomes its warp's first
// rank of the digit, and first(d, rank) hears the first rank of each digit.
template <typename Scan, typename First>
__device__ __forceinline__ void scan_warp_counts(std::uint16_t* count, u32 digits, typename Scan::TempStorage& temp,
                                                 First first) {
  const u32 per = (digits + blockDim.x - 1) / blockDim.x;
  const u32 d0 = threadIdx.x * per, d1 = d0 + per < digits ? d0 + per : digits;
  u32 sum = 0;
  for (u32 d = d0; d < d1; ++d)
    for (u32 w = 0; w < kRankWarps; ++w) sum += count[warp_counter(d, w, digits)];
  Scan(temp).ExclusiveSum(sum, sum);
  for (u32 d = d0; d < d1; ++d) {
    first(d, sum);
    for (u32 w = 0; w < kRankWarps; ++w) {
      std::uint16_t& c = count[warp_counter(d, w, digits)];
      const u32 k = c;
      c = static_cast<std::uint16_t>(sum);
      sum += k;
    }
  }
}

__device__ __forceinline__ void zero_warp_counts(std::uint16_t* count, u32 digits) {
  u32* words = reinterpret_cast<u32*>(count);
  for (u32 i = threadIdx.x; i < warp_counts_bytes(digits) / 4; i += blockDim.x) words[i] = 0;
}
// hp-tiled's step 1 with a payload: each tile's (low bits, value) pairs grouped by bucket.
// Persistent blocks, two per SM (one with 8-byte values, whose tile does not leave room for
// two: their registers are not capped); tiles are independent, so block g takes tiles g,
// g + grid, ...
// Stable (hp-tiled-stable): a tile's items are in warp-major order and ranked by
// count_warp_digits, so that a bucket's segment keeps the tile's order.
template <typename W, typename V, bool Stable = false>
__global__ void __launch_bounds__(kTileBlock, sizeof(V) > 4 ? 1 : 2)
    group_tiles(const W* x, u64 n, W min_word, unsigned low_bits, u32 buckets, u32* seg_start, std::uint16_t* low,
                const V* vals, V* grouped_vals) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ TileScan::TempStorage s_scan;
  u32* s_in = reinterpret_cast<u32*>(s_raw);  // low words (load_tile_async)
  V* s_val = reinterpret_cast<V*>(s_in + kTile);
  std::uint16_t* s_low =
      reinterpret_cast<std::uint16_t*>(s_raw + std::size_t{kTile} * sizeof(u32) + group_value_bytes<V>());
  u32* s_count = reinterpret_cast<u32*>(s_low + kTile);
  u32* s_start = s_count + buckets;
  std::uint16_t* s_warp_count = reinterpret_cast<std::uint16_t*>(s_low + kTile);  // Stable: in place of both
  const unsigned bucket_bits = bits_for_range(buckets);
  const u32 warp = threadIdx.x / 32;
  auto item_at = [&](unsigned it) {
    return Stable ? warp_major_item(warp, it, lane_id(), kTileItems) : it * kTileBlock + threadIdx.x;
  };
  const u64 tiles = ceil_div(n, kTile);
  if constexpr (Stable) zero_warp_counts(s_warp_count, buckets);
  else
    for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_count[b] = 0;
  u64 t = blockIdx.x;
  if (t < tiles) load_tile_async(x, n, t, s_in);
  cp_async_commit();
  const u32 per_thread = static_cast<u32>(ceil_div(buckets, blockDim.x));
  const u32 none = buckets << low_bits;  // the offset of no bucket, for positions past the tile
  for (; t < tiles; t += gridDim.x) {
    cp_async_wait<0>();
    __syncthreads();
    const u32 min_low = static_cast<u32>(min_word);
    const u64 t0 = t * kTile;
    const u32 len = static_cast<u32>(min_u64(kTile, n - t0));
    // The tile's values are loaded before the ranks are taken, so that their latency hides
    // behind the rank atomics.
    // (Stable: after the counting, which left no registers for them.)
    V v[kTileItems];
    auto load_values = [&] {
#pragma unroll
      for (unsigned it = 0; it < kTileItems; ++it) {
        const u32 i = item_at(it);
        if (i < len) v[it] = vals[t0 + i];
      }
    };
    if (!Stable) load_values();
    u32 rank[Stable ? 1 : kTileItems];
    WarpRanks<kTileItems> warp_rank;
    if constexpr (Stable) {
      count_warp_digits<kTileItems>(
          [&](unsigned it) {
            const u32 i = item_at(it);
            return i < len ? bucket_of(word_offset<u32>(s_in[i], min_low), low_bits) : kNoDigit;
          },
          bucket_bits, buckets, s_warp_count, [&](unsigned it, u32 r) { warp_rank.set(it, r); });
      load_values();
    } else {
#pragma unroll
      for (unsigned it = 0; it < kTileItems; ++it) {
        const u32 i = item_at(it);
        rank[it] = rank_in_bucket(bucket_of(i < len ? word_offset<u32>(s_in[i], min_low) : none, low_bits), buckets,
                                  s_count);
      }
    }
    __syncthreads();
    if constexpr (Stable) {
      scan_warp_counts<TileScan>(s_warp_count, buckets, s_scan,
                                 [&](u32 b, u32 start) { seg_start[segment_row(b, t, tiles)] = start; });
    } else {
      scan_bucket_counts<TileScan>(s_count, buckets, per_thread, s_scan, [&](u32 b, u32 first) {
        s_start[b] = first;
        seg_start[segment_row(b, t, tiles)] = first;
      });
    }
    if (threadIdx.x == 0) seg_start[segment_row(buckets, t, tiles)] = len;
    __syncthreads();
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 i = item_at(it);
      if (i < len) {
        const u32 off = word_offset<u32>(s_in[i], min_low);
        const u32 bucket = bucket_of(off, low_bits);
        u32 slot;
        if constexpr (Stable) slot = s_warp_count[warp_counter(bucket, warp, buckets)] + warp_rank[it];
        else slot = s_start[bucket] + rank[it];
        s_low[slot] = static_cast<std::uint16_t>(bin_in_bucket(off, low_bits));
        s_val[slot] = v[it];
      }
    }
    __syncthreads();
    // The keys were last read by the placement.
    if (t + gridDim.x < tiles) load_tile_async(x, n, t + gridDim.x, s_in);
    cp_async_commit();
    copy_tile_out(s_low, low + t0, len);
    copy_tile_out(s_val, grouped_vals + t0, len);
    if constexpr (Stable) zero_warp_counts(s_warp_count, buckets);
    else
      for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_count[b] = 0;
    // s_count is next written after the next tile's first barrier, s_low and s_start after its second.
  }
  cp_async_wait<0>();
}

// hp-tiled's step 1, keys only: each tile's low bits grouped by bucket. Unlike group_tiles
// it counts the tile first (adds that return nothing) and takes slots in a second pass
// (returning adds on the scanned counts), so no rank stays in a register: 40 registers and
// one key buffer let three blocks share an SM, where group_tiles' ranks and two key buffers
// left two. A tile where some bucket holds an eighth of it takes its slots by rank_in_bucket,
// a warp's add at once where its 32 keys share a bucket (one key repeated, sorted runs), where
// a returning add a key serializes; on every tile rank_in_bucket is slower (docs/hp.md,
// group_key_tiles).
template <typename W>
__global__ void __launch_bounds__(kTileBlock, 3)
    group_key_tiles(const W* x, u64 n, W min_word, unsigned low_bits, u32 buckets, u32* seg_start,
                    std::uint16_t* low) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ TileScan::TempStorage s_scan;
  u32* s_in = reinterpret_cast<u32*>(s_raw);  // low words (load_tile_async)
  std::uint16_t* s_low = reinterpret_cast<std::uint16_t*>(s_in + kTile);
  u32* s_count = reinterpret_cast<u32*>(s_low + kTile);
  u32* s_next = s_count + buckets;
  const u64 tiles = ceil_div(n, kTile);
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_count[b] = 0;
  u64 t = blockIdx.x;
  if (t < tiles) load_tile_async(x, n, t, s_in);
  cp_async_commit();
  const u32 per_thread = static_cast<u32>(ceil_div(buckets, blockDim.x));
  const u32 min_low = static_cast<u32>(min_word);
  const u32 none = buckets << low_bits;  // the offset of no bucket, for positions past the tile
  for (; t < tiles; t += gridDim.x) {
    cp_async_wait<0>();
    __syncthreads();
    const u64 t0 = t * kTile;
    const u32 len = static_cast<u32>(min_u64(kTile, n - t0));
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 i = it * kTileBlock + threadIdx.x;
      if (i < len) atomicAdd(&s_count[bucket_of(word_offset<u32>(s_in[i], min_low), low_bits)], 1u);
    }
    __syncthreads();
    bool crowded = false;
    scan_bucket_counts<TileScan>(s_count, buckets, per_thread, s_scan, [&](u32 b, u32 first) {
      s_next[b] = first;
      seg_start[segment_row(b, t, tiles)] = first;
      crowded |= s_count[b] >= kTile / 8;
    });
    if (threadIdx.x == 0) seg_start[segment_row(buckets, t, tiles)] = len;
    if (__syncthreads_or(crowded)) {
#pragma unroll
      for (unsigned it = 0; it < kTileItems; ++it) {
        const u32 i = it * kTileBlock + threadIdx.x;
        const u32 off = i < len ? word_offset<u32>(s_in[i], min_low) : none;
        const u32 slot = rank_in_bucket(bucket_of(off, low_bits), buckets, s_next);
        if (i < len) s_low[slot] = static_cast<std::uint16_t>(bin_in_bucket(off, low_bits));
      }
    } else {
#pragma unroll
      for (unsigned it = 0; it < kTileItems; ++it) {
        const u32 i = it * kTileBlock + threadIdx.x;
        if (i < len) {
          const u32 off = word_offset<u32>(s_in[i], min_low);
          const auto bin = static_cast<std::uint16_t>(bin_in_bucket(off, low_bits));
          s_low[atomicAdd(&s_next[bucket_of(off, low_bits)], 1u)] = bin;
        }
      }
    }
    __syncthreads();
    if (t + gridDim.x < tiles) load_tile_async(x, n, t + gridDim.x, s_in);
    cp_async_commit();
    copy_tile_out(s_low, low + t0, len);
    for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_count[b] = 0;
    // s_count is next written after the next tile's first barrier, s_low and s_next after its second.
  }
  cp_async_wait<0>();
}

}  // namespace sb::hp::fast
