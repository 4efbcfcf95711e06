// Kernels of the faster H-P versions (beyond seed 004; method notes in docs/hp.md).
// Histograms: shared-memory privatized (range fits in shared memory), global atomics
// (L2-resident), and the large-range hybrid that first splits keys by their high bits so
// each bucket's histogram fits in shared memory. The expansion writes y straight from the
// compressed runs (bin value, run end) with coalesced 16-byte stores, replacing the paper's
// zeroed B array and its full prefix sum (Algorithm 5 lines 13-17).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_scan.cuh>

#include "hp_index.hpp"
#include "sortbench/core/element.hpp"

namespace sb::hp::fast {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

__device__ __forceinline__ u64 global_thread() { return blockIdx.x * u64{blockDim.x} + threadIdx.x; }
__device__ __forceinline__ u64 global_threads() { return u64{gridDim.x} * blockDim.x; }

// Adds v to *word where `add` holds. In shared memory as a predicated red in PTX: ptxas still
// branches around it, but with the shared window's base kept out of the loop; written as
// `if (add) atomicAdd(...)`, each add of an unrolled loop recomputed the base in its branch
// (hp-hybrid 0.492 -> 0.479 ms at n = 2^26, delta = sigma = 50, H200).
template <bool InShared>
__device__ __forceinline__ void add_if(u32* word, u32 v, bool add) {
  if constexpr (InShared)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p red.shared.add.u32 [%0], %1;\n}\n" ::"r"(
                     static_cast<unsigned>(__cvta_generic_to_shared(word))),
                 "r"(v), "r"(static_cast<u32>(add))
                 : "memory");
  else if (add)
    atomicAdd(word, v);
}

// Counts equal neighbours of one thread in a register and adds a whole run at once: an
// input of one value costs one atomic per thread instead of one per key. A value that breaks
// the run adds it (add_if). hist is in shared memory unless InShared is false.
template <bool InShared = true>
struct RunCounter {
  u32 bin = 0, run = 0;
  __device__ __forceinline__ void add(u32* hist, u32 b) {
    const bool breaks = b != bin;
    add_if<InShared>(&hist[bin], run, breaks && run != 0);
    run = breaks ? 1u : run + 1;
    bin = breaks ? b : bin;
  }
  __device__ __forceinline__ void flush(u32* hist) { add_if<InShared>(&hist[bin], run, run != 0); }
};

// The same for bins in 16-bit pairs (pair_word): runs stay under 2^16 keys, and each add
// moves the halves' wraps into A (pair_wraps); bins is the range, so an odd last word's
// high half, which holds no bin, only ever sees a carry and its take-back, never added to A.
struct PairRunCounter {
  u32 bin = 0, run = 0;
  __device__ __forceinline__ void add(u32* pairs, u32 b, u32 bins, u32* A) {
    if (b == bin && run < kPairRunMax) {
      ++run;
      return;
    }
    flush(pairs, bins, A);
    bin = b;
    run = 1;
  }
  __device__ __forceinline__ void flush(u32* pairs, u32 bins, u32* A) {
    if (!run) return;
    u32* word = &pairs[pair_word(bin)];
    PairWraps w = pair_wraps(atomicAdd(word, pair_add(bin, run)), bin, run);
    if (w.carried && pair_take_back_wraps(atomicAdd(word, kPairTakeBack))) --w.high;
    const u32 even = bin & ~1u;
    if (w.low) atomicAdd(&A[even], w.low << 16);
    if (w.high && even + 1 < bins) atomicAdd(&A[even + 1], w.high << 16);  // w.high may be -1 (mod 2^32)
  }
};

// Key words W: u32 (u32, i32 keys) or u64 (u64, i64 keys); offsets are 32-bit either way.
// Loads four keys of x starting at 4 * i (16-byte loads) and visits their offsets in order.
template <typename W, typename F>
__device__ __forceinline__ void visit_four(const W* x, u64 i, W min_word, F&& f) {
  if constexpr (sizeof(W) == 4) {
    const uint4 v = reinterpret_cast<const uint4*>(x)[i];
    f(v.x - min_word), f(v.y - min_word), f(v.z - min_word), f(v.w - min_word);
  } else {
    const ulonglong2 a = reinterpret_cast<const ulonglong2*>(x)[2 * i];
    const ulonglong2 b = reinterpret_cast<const ulonglong2*>(x)[2 * i + 1];
    f(word_offset<W>(a.x, min_word)), f(word_offset<W>(a.y, min_word));
    f(word_offset<W>(b.x, min_word)), f(word_offset<W>(b.y, min_word));
  }
}

// Visits every key offset of x[0, n) once, four per thread step, grid-stride.
template <typename W, typename F>
__device__ __forceinline__ void for_each_offset(const W* x, u64 n, W min_word, F&& f) {
  const u64 n4 = n / 4;
  for (u64 i = global_thread(); i < n4; i += global_threads()) visit_four(x, i, min_word, f);
  for (u64 i = n4 * 4 + global_thread(); i < n; i += global_threads()) f(word_offset<W>(x[i], min_word));
}

// Privatized counts in shared memory: `copies` sub-histograms of `bins` words (warp w uses
// copy w % copies, fewer collisions on few bins). bin_of maps a key offset to its bin; after
// the block's keys are counted, store(b, total) receives every bin's block total.
template <typename Visit, typename BinOf, typename Store>
__device__ __forceinline__ void count_privatized(u32 bins, u32 copies, Visit&& visit, BinOf&& bin_of, Store&& store) {
  extern __shared__ u32 s_hist[];
  for (u32 i = threadIdx.x; i < bins * copies; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  u32* mine = s_hist + (threadIdx.x / 32 % copies) * bins;
  RunCounter<> run;
  visit([&](u32 off) { run.add(mine, bin_of(off)); });
  run.flush(mine);
  __syncthreads();
  for (u32 b = threadIdx.x; b < bins; b += blockDim.x) {
    u32 c = 0;
    for (u32 k = 0; k < copies; ++k) c += s_hist[k * bins + b];
    store(b, c);
  }
}

// Shared-memory privatized histogram of the whole input's offsets in the band
// [band_lo, band_lo + bins), summed into the global A.
template <typename W>
__global__ void hist_shared(const W* x, u64 n, W min_word, u32 bins, u32 copies, u32 band_lo, u32* A) {
  count_privatized(
      bins, copies,
      [&](auto&& f) {
        for_each_offset(x, n, min_word, [&](u32 off) {
          if (off - band_lo < bins) f(off - band_lo);  // offsets below band_lo wrap past bins
        });
      },
      [](u32 off) { return off; },
      [&](u32 b, u32 c) {
        if (c) atomicAdd(&A[band_lo + b], c);
      });
}

// The same histogram for a range of up to two bands in one pass: bins in 16-bit pairs, the
// wraps of a half moved into A as they happen (PairRunCounter), what the halves hold at the
// end added after.
template <typename W>
__global__ void hist_shared_pairs(const W* x, u64 n, W min_word, u32 bins, u32* A) {
  extern __shared__ u32 s_pair[];
  const u32 words = (bins + 1) / 2;
  for (u32 w = threadIdx.x; w < words; w += blockDim.x) s_pair[w] = 0;
  __syncthreads();
  PairRunCounter run;
  for_each_offset(x, n, min_word, [&](u32 off) { run.add(s_pair, off, bins, A); });
  run.flush(s_pair, bins, A);
  __syncthreads();
  for (u32 w = threadIdx.x; w < words; w += blockDim.x) {
    const u32 v = s_pair[w];
    if (const u32 c = pair_count(v, 2 * w)) atomicAdd(&A[2 * w], c);
    if (const u32 c = pair_count(v, 2 * w + 1)) atomicAdd(&A[2 * w + 1], c);
  }
}

// Global-atomic histogram (A is L2-resident for ranges of a few million bins).
template <typename W>
__global__ void hist_global(const W* x, u64 n, W min_word, u32* A) {
  RunCounter<false> run;
  for_each_offset(x, n, min_word, [&](u32 off) { run.add(A, off); });
  run.flush(A);
}

// Visits the offsets of part blockIdx.x of gridDim.x parts (hp_index part_bounds), in order.
template <typename W, typename F>
__device__ __forceinline__ void for_each_offset_of_part(const W* x, u64 n, W min_word, F&& f) {
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 4, lo, hi);
  const u64 hi4 = lo + (hi - lo) / 4 * 4;
  for (u64 i = lo / 4 + threadIdx.x; i < hi4 / 4; i += blockDim.x) visit_four(x, i, min_word, f);
  for (u64 i = hi4 + threadIdx.x; i < hi; i += blockDim.x) f(word_offset<W>(x[i], min_word));
}

// Hybrid step 1: bucket counts of each part, stored bucket-major (counts[b * parts + p]) so
// that one exclusive scan gives every (bucket, part) its output offset.
template <typename W>
__global__ void bucket_count(const W* x, u64 n, W min_word, unsigned low_bits, u32 buckets, u32 copies,
                             u32* counts) {
  count_privatized(
      buckets, copies, [&](auto&& f) { for_each_offset_of_part(x, n, min_word, f); },
      [&](u32 off) { return bucket_of(off, low_bits); },
      [&](u32 b, u32 c) { counts[u64{b} * gridDim.x + blockIdx.x] = c; });
}

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x % 32; }

// A key's rank among the tile's keys of its bucket, counted in s_count (bucket >= buckets: no
// key, rank 0). A shared atomic per key; a warp whose keys share one bucket (sorted or
// clustered input) takes its 32 ranks with one atomic instead of 32 conflicting ones.
// (Ranking with __match_any_sync left the hybrid's scatter compute bound: 633 us of its 915
// under Nsight Compute, delta = 50, n = 2^26.) Every lane of the warp calls it.
__device__ __forceinline__ u32 rank_in_bucket(u32 bucket, u32 buckets, u32* s_count) {
  const u32 lane0_bucket = __shfl_sync(0xffffffffu, bucket, 0);
  if (__all_sync(0xffffffffu, bucket == lane0_bucket)) {
    u32 base = 0;
    if (lane_id() == 0 && lane0_bucket < buckets) base = atomicAdd(&s_count[lane0_bucket], 32u);
    return __shfl_sync(0xffffffffu, base, 0) + lane_id();
  }
  return bucket < buckets ? atomicAdd(&s_count[bucket], 1u) : 0;
}

// The exclusive scan of a tile's bucket counts, per_thread consecutive buckets a thread;
// first(b, slot) hears each bucket's first slot in the tile.
template <typename Scan, typename First>
__device__ __forceinline__ void scan_bucket_counts(const u32* s_count, u32 buckets, u32 per_thread,
                                                   typename Scan::TempStorage& temp, First first) {
  const u32 b0 = threadIdx.x * per_thread;
  u32 sum = 0;
  for (u32 b = b0; b < b0 + per_thread && b < buckets; ++b) sum += s_count[b];
  Scan(temp).ExclusiveSum(sum, sum);
  for (u32 b = b0; b < b0 + per_thread && b < buckets; ++b) {
    first(b, sum);
    sum += s_count[b];
  }
}

// Hybrid step 2: each key's low bits go to its bucket's region, 2 bytes per key. A part is
// done in tiles of kSplitTile keys; a tile is first grouped by bucket in shared memory, so
// that the keys of one bucket leave as one run of consecutive 2-byte stores instead of a
// store per key (order inside a bucket is free: only its histogram is needed).
constexpr unsigned kSplitBlock = 512;
constexpr unsigned kSplitItems = 16;
constexpr unsigned kSplitTile = kSplitBlock * kSplitItems;
constexpr std::size_t split_shared_bytes(u32 buckets) { return (3 * std::size_t{buckets} + kSplitTile) * sizeof(u32); }

using SplitScan = cub::BlockScan<u32, kSplitBlock>;
// Two blocks per SM (registers capped at 64): one 512-thread block left the scatter latency bound.
template <typename W>
__global__ void __launch_bounds__(kSplitBlock, 2) bucket_scatter(const W* x, u64 n, W min_word, unsigned low_bits,
                                                              u32 buckets, const u32* offsets, std::uint16_t* low) {
  extern __shared__ u32 s_split[];
  __shared__ SplitScan::TempStorage s_scan;
  u32* s_next = s_split;               // next output position of each bucket in this part
  u32* s_count = s_next + buckets;     // keys of each bucket in this tile
  u32* s_start = s_count + buckets;    // where each bucket starts in the grouped tile
  u32* s_tile = s_start + buckets;     // the tile's offsets grouped by bucket
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) {
    s_next[b] = offsets[u64{b} * gridDim.x + blockIdx.x];
    s_count[b] = 0;
  }
  __syncthreads();
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 4, lo, hi);
  const u32 per_thread = static_cast<u32>(ceil_div(buckets, blockDim.x));
  for (u64 t0 = lo; t0 < hi; t0 += kSplitTile) {
    // Keys past the part's end get the offset of no bucket (bucket `buckets`).
    const u32 none = buckets << low_bits;
    u32 off[kSplitItems], rank[kSplitItems];
#pragma unroll
    for (unsigned it = 0; it < kSplitItems; ++it) {
      const u64 i = t0 + it * kSplitBlock + threadIdx.x;
      off[it] = i < hi ? word_offset<W>(x[i], min_word) : none;
    }
#pragma unroll
    for (unsigned it = 0; it < kSplitItems; ++it) {
      rank[it] = rank_in_bucket(bucket_of(off[it], low_bits), buckets, s_count);
    }
    __syncthreads();
    scan_bucket_counts<SplitScan>(s_count, buckets, per_thread, s_scan, [&](u32 b, u32 first) { s_start[b] = first; });
    __syncthreads();
#pragma unroll
    for (unsigned it = 0; it < kSplitItems; ++it) {
      const u32 bucket = bucket_of(off[it], low_bits);
      if (bucket < buckets) s_tile[s_start[bucket] + rank[it]] = off[it];
    }
    __syncthreads();
    const u32 tile_len = static_cast<u32>(min_u64(kSplitTile, hi - t0));
    for (u32 i = threadIdx.x; i < tile_len; i += kSplitBlock) {
      const u32 o = s_tile[i];
      const u32 b = bucket_of(o, low_bits);
      low[s_next[b] + (i - s_start[b])] = static_cast<std::uint16_t>(bin_in_bucket(o, low_bits));
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) {
      s_next[b] += s_count[b];
      s_count[b] = 0;
    }
    __syncthreads();
  }
}

// Visits low[lo, hi) with blockDim.x threads, eight 2-byte values per 16-byte load where
// aligned (aligned_span gives the vector part).
template <typename F>
__device__ __forceinline__ void for_each_low(const std::uint16_t* low, u64 lo, u64 hi, F&& f) {
  u64 mid_lo, mid_hi;
  aligned_span(lo, hi, 8, mid_lo, mid_hi);
  for (u64 i = lo + threadIdx.x; i < mid_lo; i += blockDim.x) f(low[i]);
  const uint4* v8 = reinterpret_cast<const uint4*>(low);
  for (u64 i = mid_lo / 8 + threadIdx.x; i < mid_hi / 8; i += blockDim.x) {
    const uint4 v = v8[i];
    const u32 pairs[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) f(pairs[k] & 0xffffu), f(pairs[k] >> 16);
  }
  for (u64 i = mid_hi + threadIdx.x; i < hi; i += blockDim.x) f(low[i]);
}

// Hybrid step 3: the histogram of each bucket in shared memory. Block g takes a slice of
// the bucketed array; a slice crossing bucket edges handles each bucket in turn.
// static (as locate_tiles): non-template kernels defined in a header that two families'
// translation units include (hp-fast and dist-hp) need internal linkage.
static __global__ void bucket_hist(const std::uint16_t* low, u64 n, const u32* offsets, u32 parts, u32 buckets,
                            unsigned low_bits, u32* A) {
  extern __shared__ u32 s_hist[];
  const u32 bins = 1u << low_bits;
  auto bucket_start = [&](u32 b) -> u64 { return b < buckets ? offsets[u64{b} * parts] : n; };
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 8, lo, hi);
  for (u32 b = bucket_holding(bucket_start, buckets, lo); lo < hi && b < buckets; ++b) {
    const u64 end = bucket_start(b + 1) < hi ? bucket_start(b + 1) : hi;
    if (end <= lo) continue;
    for (u32 i = threadIdx.x; i < bins; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    RunCounter<> run;
    for_each_low(low, lo, end, [&](u32 bin) { run.add(s_hist, bin); });
    run.flush(s_hist);
    __syncthreads();
    for (u32 i = threadIdx.x; i < bins; i += blockDim.x)
      if (s_hist[i]) atomicAdd(&A[(u64{b} << low_bits) + i], s_hist[i]);
    __syncthreads();
    lo = end;
  }
}

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

// Starts copying the low words of tile t of x into s (4-byte keys in 16-byte chunks, 8-byte
// keys their low 4 bytes each, plain loads for a last tile's tail): the copy runs while the
// block groups the previous tile, which is what the hybrid's scatter lacked (its loads
// waited behind every barrier of a tile).
template <typename W>
__device__ __forceinline__ void load_tile_async(const W* x, u64 n, u64 t, u32* s) {
  const u64 t0 = t * kTile;
  const u32 len = static_cast<u32>(min_u64(kTile, n - t0));
  if constexpr (sizeof(W) == 4) {
    const u32 chunks = len / 4;
    for (u32 c = threadIdx.x; c < chunks; c += blockDim.x) cp_async<16>(s + c * 4, x + t0 + c * 4);
    for (u32 i = chunks * 4 + threadIdx.x; i < len; i += blockDim.x) s[i] = x[t0 + i];
  } else {
    // Little-endian: a key's low word is its first 4 bytes.
    for (u32 i = threadIdx.x; i < len; i += blockDim.x) cp_async<4>(s + i, x + t0 + i);
  }
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
// 8-byte keys take the shared memory of 4-byte ones (whole 8-byte keys left a block 144 KB,
// one an SM: hp-tiled 0.678 ms at n = 2^26, delta = sigma = 50, H200). The values travel with
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
// rank_in_bucket); none for a lane with no item. (Unrolled to the widest digit, 11 and 7
// bits, with the bits past the digit's skipped, hp-tiled-stable took 2.90 ms against 2.71
// for u64 + u64 at n = 2^26, delta = sigma = 50; H200.)
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
// left two (delta = sigma = 50, H200: hp-tiled 1.377 -> 1.300 ms at n = 2^28, 0.326 -> 0.308
// at 2^26). A tile where some bucket holds an eighth of it takes its slots by rank_in_bucket,
// a warp's add at once where its 32 keys share a bucket: one key repeated, sorted runs (with
// a returning add a key there, hp-tiled went from 0.362 to 0.516 ms on one key repeated 2^26
// times; so it takes 0.357). rank_in_bucket on every tile took 1.333 ms at 2^28.
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
// lane's sink word (distinct banks). Counting runs of equal values in a register first
// (RunCounter) cost more than it saved even where runs are long (hp-tiled at one lane, n =
// 2^26, H200: delta = sigma = 50 0.363 -> 0.358 ms, 2^28 1.439 -> 1.410, one key 0.675 ->
// 0.537, sorted input 0.760 -> 0.619; segment_hist 53.6 M -> 28.9 M instructions).
// Segments are short (8192 keys over the buckets: ~100 values at delta = 50, n = 2^26,
// 2^14-bin buckets): a warp per segment left most lanes idle behind two dependent loads (178
// us under Nsight Compute, 16 % of DRAM), and numbering the words of many segments for the
// whole block paid a binary search per word (201 us, compute bound).
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
template <unsigned Lanes>
__global__ void __launch_bounds__(kSegBlock, kSegBlocksPerSm) segment_hist(const std::uint16_t* low, u64 n,
                                                                   const u32* seg_start, u64 tiles, u32 buckets,
                                                                   unsigned low_bits, u64 range, u32 groups, u32* A,
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
    else if (s_hist[i]) atomicAdd(&A[first + i], s_hist[i]);
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

static __global__ void init_bucket_scan(BucketScanState state, u32 buckets) { state.InitializeStatus(static_cast<int>(buckets)); }

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

// ---- hp-tiled with a payload: the groups place their pairs ----
// After segment_hist (with bin_total) and the scan of the totals, group g of bucket b's first
// slot of bin x is start[x] plus the counts of the groups before it (group_cursors). Up to
// kInlineCursorGroups groups a block adds those itself; with more, spread_cursors has made
// H[g * range + x] the slot (blocks adding g rows each would read groups^2 / 2 rows in all).
// A group takes its tiles' segments a batch at a time (consecutive tiles whose segments fit
// in kTile slots), counting-sorts the batch by bin in shared memory and stores it in slot
// order, so that a warp's stores cover runs of consecutive slots: a store a pair at its
// slot, a bin's pairs kTile / bins apart in time, would leave each 32-byte sector to be
// filled by up to 8 separate stores. Equal keys take their slots in shared-atomic order:
// not stable. Stable (hp-tiled-stable): groups, batches and stable-grouped segments keep
// input order, so a batch's elements are in input order, and it is ranked by bin in two
// count_warp_digits passes (low digit, then high) instead of by atomics. The sorted batch
// then finds its bins' first and last slots itself, so only the bins present move their
// cursors (the atomic path scans, moves and clears every bin of the bucket per batch).
constexpr unsigned kPlaceBlock = 512;
constexpr u32 kInlineCursorGroups = 8;
constexpr unsigned kPlaceItems = kTile / kPlaceBlock;
// A batch element's (bin, rank) and a slot's (bin, element) share a word: the bin above
// kSlotBits bits (buckets of at most 2^14 bins fit beside a batch, 27 bits in all).
constexpr unsigned kSlotBits = 13;
static_assert(kTile == 1u << kSlotBits, "a batch slot or element takes kSlotBits bits");
constexpr u32 kSlotMask = kTile - 1;
// Values and slot order of one batch, the bins' cursors, the batch's segment ends and
// starts, and the bins' counts (Stable: the two passes' warp counts and the batch's bins).
// Two blocks share an SM with 4-byte values and 2^12-bin buckets, one otherwise (its
// registers are then not capped).
static_assert(kPlaceBlock == kTileBlock, "count_warp_digits has kRankWarps warps");
constexpr std::size_t place_shared_bytes(unsigned low_bits, std::size_t value_bytes, bool stable = false) {
  return std::size_t{kTile} * (value_bytes + sizeof(u32)) + std::size_t{padded_bins(1u << low_bits)} * sizeof(u32) +
         2 * std::size_t{kPlaceBlock} * sizeof(u32) +
         (stable ? warp_counts_bytes(1u << ordinal_digit_bits(low_bits)) + std::size_t{kTile} * sizeof(std::uint16_t) +
                       (std::size_t{1} << low_bits)
                 : std::size_t{padded_bins(1u << low_bits)} * sizeof(u32));
}
using PlaceScan = cub::BlockScan<u32, kPlaceBlock>;
// Stable: sorts a batch's elements (element j0 + 32 * it of a thread: warp-major order; its
// bin in s_bin[j]) into s_perm as (bin, element) words, by bin and by element inside a bin.
// Where the bucket holds at most 2^ordinal_digit_bits present bins, one count_warp_digits
// pass over their ordinals (s_ord) does it; otherwise LSD passes over the bin's low digit and
// its high one. An item is its element with its rank above kSlotBits, one register: with the
// bins and ranks in registers too, two 512-thread blocks an SM spilled. Waits for the batch's
// values (cp.async) before its first barrier and ends with one.
__device__ __forceinline__ void sort_batch_by_bin(u32 j0, u32 total, const unsigned (&digit_bits)[2],
                                                  std::uint16_t* const (&count)[2], PlaceScan::TempStorage& scan,
                                                  const std::uint16_t* s_bin, const std::uint8_t* s_ord,
                                                  u32 present_bins, unsigned ordinal_bits, u32* s_perm) {
  const u32 warp = threadIdx.x / 32;
  const bool by_ordinal = present_bins <= 1u << ordinal_bits;
  const unsigned passes = by_ordinal ? 1 : 2;
  u32 item[kPlaceItems];
#pragma unroll
  for (unsigned it = 0; it < kPlaceItems; ++it) item[it] = j0 + 32 * it;
#pragma unroll 1
  for (unsigned pass = 0; pass < passes; ++pass) {
    const unsigned bits = by_ordinal ? bits_for_range(present_bins) : pass ? digit_bits[1] : digit_bits[0];
    const unsigned shift = pass ? digit_bits[0] : 0;
    const u32 digits = by_ordinal ? present_bins : 1u << bits;
    const bool last = pass + 1 == passes;
    std::uint16_t* const warp_count = pass ? count[1] : count[0];
    if (pass) {  // the first pass's order, read before this pass's barrier lets anyone write
#pragma unroll
      for (unsigned it = 0; it < kPlaceItems; ++it)
        if (j0 + 32 * it < total) item[it] = s_perm[j0 + 32 * it];
    }
    auto bin_of = [&](unsigned it) { return u32{s_bin[item[it] & kSlotMask]}; };
    auto digit_of_bin = [&](u32 bin) { return by_ordinal ? u32{s_ord[bin]} : bin >> shift & (digits - 1); };
    auto digit = [&](unsigned it) { return j0 + 32 * it < total ? digit_of_bin(bin_of(it)) : kNoDigit; };
    count_warp_digits<kPlaceItems>(digit, bits, digits, warp_count,
                                   [&](unsigned it, u32 r) { item[it] |= r << kSlotBits; });
    cp_async_wait<0>();
    __syncthreads();
    scan_warp_counts<PlaceScan>(warp_count, digits, scan, [](u32, u32) {});
    __syncthreads();
#pragma unroll
    for (unsigned it = 0; it < kPlaceItems; ++it)
      if (j0 + 32 * it < total) {
        const u32 j = item[it] & kSlotMask, bin = bin_of(it);
        s_perm[warp_count[warp_counter(digit_of_bin(bin), warp, digits)] + (item[it] >> kSlotBits)] =
            last ? bin << kSlotBits | j : j;
      }
    __syncthreads();
    zero_warp_counts(warp_count, digits);  // last read before the barrier above
  }
}

// Stable: edge(bin, slot) at each slot of a batch sorted into s_perm that is its bin's first
// (Last: its last), the only slots whose bins move their cursors.
template <bool Last, typename Edge>
__device__ __forceinline__ void for_each_bin_edge(const u32* s_perm, u32 total, Edge edge) {
#pragma unroll
  for (unsigned it = 0; it < kPlaceItems; ++it) {
    const u32 slot = it * kPlaceBlock + threadIdx.x;
    const u32 bin = slot < total ? s_perm[slot] >> kSlotBits : 0;
    if (slot < total && (Last ? slot + 1 == total || s_perm[slot + 1] >> kSlotBits != bin
                              : slot == 0 || s_perm[slot - 1] >> kSlotBits != bin))
      edge(bin, slot);
  }
}

template <typename W, typename V, bool Stable = false>
__global__ void __launch_bounds__(kPlaceBlock, sizeof(V) > 4 ? 1 : 2)
    place_pairs(const std::uint16_t* low, const V* grouped_vals, const u32* seg_start, u64 tiles, u32 buckets,
                unsigned low_bits, u64 range, u32 groups, const u32* H, const u32* start, W min_word, W* keys_out,
                V* vals_out) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ PlaceScan::TempStorage s_scan;
  const u32 bins = 1u << low_bits;
  V* s_val = reinterpret_cast<V*>(s_raw);
  u32* s_cur = reinterpret_cast<u32*>(s_val + kTile);  // cursor - batch start, per bin (padded)
  u32* s_end = s_cur + padded_bins(bins);                // the batch's segment ends (inclusive prefix)
  u32* s_lo = s_end + kPlaceBlock;                       // and their starts inside their tiles
  u32* s_perm = s_lo + kPlaceBlock;                      // slot -> (bin, batch element)
  u32* s_cnt = s_perm + kTile;                           // batch counts, then batch starts
  // Stable: the passes' digits and warp counts (one pass's rows or two passes' side by side),
  // the batch's bins by element, and the bins' ordinals among the bucket's present bins.
  const unsigned digit_bits[2] = {low_digit_bits(low_bits), low_bits - low_digit_bits(low_bits)};
  const unsigned ordinal_bits = ordinal_digit_bits(low_bits);
  std::uint16_t* s_warp_count[2] = {reinterpret_cast<std::uint16_t*>(s_perm + kTile), nullptr};
  s_warp_count[1] = s_warp_count[0] + warp_counts_bytes(1u << digit_bits[0]) / sizeof(std::uint16_t);
  std::uint16_t* s_bin = s_warp_count[0] + warp_counts_bytes(1u << ordinal_bits) / sizeof(std::uint16_t);
  std::uint8_t* s_ord = reinterpret_cast<std::uint8_t*>(s_bin + kTile);
  if constexpr (Stable) zero_warp_counts(s_warp_count[0], 1u << ordinal_bits);
  const u32 b = blockIdx.x % buckets, g = blockIdx.x / buckets;
  u64 t_lo, t_hi;
  part_bounds(tiles, groups, g, 1, t_lo, t_hi);
  const u64 first = u64{b} << low_bits;
  for (u32 x = threadIdx.x; x < bins; x += blockDim.x) {
    u32 cursor = 0;
    if (first + x < range) {
      if (groups <= kInlineCursorGroups) {
        cursor = start[first + x];
        for (u32 before = 0; before < g; ++before) cursor += H[before * range + first + x];
      } else {
        cursor = H[g * range + first + x];
      }
    }
    s_cur[padded_bin(x)] = cursor;
    if (!Stable) s_cnt[padded_bin(x)] = 0;
  }
  const u32 per = bins / kPlaceBlock;  // bins >= 2^12
  // Stable: thread i numbers the present bins of [i * per, (i + 1) * per) (at most 32). A
  // bin is present where the scanned totals step past it; the range's last bin always is.
  u32 present_bins = 0;
  if constexpr (Stable) {
    u32 present = 0;
    for (u32 q = 0; q < per; ++q) {
      const u64 x = first + threadIdx.x * per + q;
      if (x < range && (x + 1 == range || start[x + 1] != start[x])) present |= 1u << q;
    }
    u32 before;
    PlaceScan(s_scan).ExclusiveSum(static_cast<u32>(popcount32(present)), before, present_bins);
    for (u32 q = 0; q < per; ++q)
      s_ord[threadIdx.x * per + q] = static_cast<std::uint8_t>(present_ordinal(before, present, q));
    __syncthreads();  // s_scan is the first batch's next
  }
  // Thread i reads the segment of the batch's i-th tile; the next batch's read is issued as
  // soon as that batch's first tile is known, so its latency hides behind this batch.
  u32 lo = 0, len = 0;
  auto read_segment = [&](u64 tile) {
    lo = len = 0;
    if (tile < t_hi) {
      lo = seg_start[segment_row(b, tile, tiles)];
      len = seg_start[segment_row(b + 1, tile, tiles)] - lo;
    }
  };
  read_segment(t_lo + threadIdx.x);
  for (u64 t = t_lo; t < t_hi;) {
    const u64 tile = t + threadIdx.x;
    u32 end;
    PlaceScan(s_scan).InclusiveSum(len, end);
    s_end[threadIdx.x] = end;
    s_lo[threadIdx.x] = lo;
    // A segment holds at most kTile keys, so the batch takes at least tile t.
    const u32 k = static_cast<u32>(__syncthreads_count(tile < t_hi && end <= kTile));
    const u32 total = s_end[k - 1];
    read_segment(t + k + threadIdx.x);
    if (total) {
      // Every load of the batch in flight at once (values by cp.async, low bits in registers):
      // one load after another, each behind its search, left place_pairs latency bound
      // (1.81 ms of hp-tiled's 2.53 at n = 2^26, delta = sigma = 50, u32 + u32; H200).
      // Warp w copies elements [w * 512, (w + 1) * 512), lane l every 32nd from l: one
      // search for its first segment, then a walk (a search per element cost 9 shared reads
      // at 2^12-bin buckets, n = 2^26, delta = 50: ~330 segments a batch). An element's bin
      // and rank stay in its thread's registers, so that the slot order carries the bin and
      // a store waits on one shared read, not three (the chain slot -> element -> bin ->
      // cursor left place_pairs waiting on shared memory: 757 us, 45 % of DRAM; H100).
      const std::uint16_t* batch_low = low + t * kTile;
      const V* batch_vals = grouped_vals + t * kTile;
      const u32 j0 = threadIdx.x / 32 * (32 * kPlaceItems) + lane_id();
      u32 s = j0 < total ? run_at(s_end, 0u, k, j0) : 0;
      u32 item[kPlaceItems];  // the bin, then (bin, rank)
#pragma unroll
      for (unsigned it = 0; it < kPlaceItems; ++it) {
        const u32 j = j0 + 32 * it;
        if (j < total) {
          while (s_end[s] <= j) ++s;
          const u32 at = s * kTile + s_lo[s] + (j - (s ? s_end[s - 1] : 0u));
          // Stable, 4-byte values: stored as they arrive (held in registers until all had
          // arrived, they spilled at two blocks an SM: 2.35 against 2.13 ms at n = 2^26, delta =
          // sigma = 50; with 8-byte values, one block an SM, storing them at once took 3.18
          // against 2.71 ms; H200).
          if constexpr (Stable && sizeof(V) == 4) s_bin[j] = batch_low[at];
          else item[it] = batch_low[at];
          cp_async<sizeof(V)>(s_val + j, batch_vals + at);
        }
      }
      cp_async_commit();
      if constexpr (Stable) {
        if constexpr (sizeof(V) > 4) {
#pragma unroll
          for (unsigned it = 0; it < kPlaceItems; ++it)
            if (j0 + 32 * it < total) s_bin[j0 + 32 * it] = static_cast<std::uint16_t>(item[it]);
        }
        sort_batch_by_bin(j0, total, digit_bits, s_warp_count, s_scan, s_bin, s_ord, present_bins, ordinal_bits,
                          s_perm);
        // A bin's first slot makes its cursor cursor - slot, so that s_cur + slot places it.
        for_each_bin_edge<false>(s_perm, total, [&](u32 bin, u32 slot) { s_cur[padded_bin(bin)] -= slot; });
      } else {
#pragma unroll
        for (unsigned it = 0; it < kPlaceItems; ++it)
          if (j0 + 32 * it < total) item[it] = item[it] << kSlotBits | atomicAdd(&s_cnt[padded_bin(item[it])], 1u);
        cp_async_wait<0>();
        __syncthreads();
        u32 sum = 0;
        for (u32 q = 0; q < per; ++q) sum += s_cnt[padded_bin(threadIdx.x * per + q)];
        PlaceScan(s_scan).ExclusiveSum(sum, sum);
        for (u32 q = 0; q < per; ++q) {
          const u32 x = padded_bin(threadIdx.x * per + q);
          const u32 count = s_cnt[x];
          s_cnt[x] = sum;
          s_cur[x] -= sum;  // so that cursor + (slot - start) is s_cur + slot
          sum += count;
        }
        __syncthreads();
#pragma unroll
        for (unsigned it = 0; it < kPlaceItems; ++it) {
          const u32 j = j0 + 32 * it;
          if (j < total) {
            const u32 bin = item[it] >> kSlotBits;
            s_perm[s_cnt[padded_bin(bin)] + (item[it] & kSlotMask)] = bin << kSlotBits | j;
          }
        }
      }
      __syncthreads();
#pragma unroll
      for (unsigned it = 0; it < kPlaceItems; ++it) {
        const u32 slot = it * kPlaceBlock + threadIdx.x;
        if (slot < total) {
          const u32 p = s_perm[slot];
          const u32 bin = p >> kSlotBits;
          const u32 at = s_cur[padded_bin(bin)] + slot;
          keys_out[at] = word_at<W>(static_cast<u32>(first + bin), min_word);
          vals_out[at] = s_val[p & kSlotMask];
        }
      }
      __syncthreads();
      // Past the batch: cursor - start + next start = cursor + count.
      if constexpr (Stable) {
        for_each_bin_edge<true>(s_perm, total, [&](u32 bin, u32 slot) { s_cur[padded_bin(bin)] += slot + 1; });
      } else {
        for (u32 x = threadIdx.x; x < bins; x += blockDim.x)
          s_cur[padded_bin(x)] += x + 1 < bins ? s_cnt[padded_bin(x + 1)] : total;
        __syncthreads();
        for (u32 x = threadIdx.x; x < bins; x += blockDim.x) s_cnt[padded_bin(x)] = 0;
      }
    }
    t += k;
    __syncthreads();  // s_end, s_lo and s_scan are written again by the next batch
  }
}

// Each group's first slot of every bin (group_cursors) from the scanned totals, in one
// coalesced pass. (One CUB scan over an iterator summing the groups read each thread's
// consecutive bins word by word: 156 us for 7 groups of 1.34M bins, 7 % of DRAM; H200.)
static __global__ void spread_cursors(u32* H, u64 range, u32 groups, const u32* start) {
  for (u64 x = global_thread(); x < range; x += global_threads()) group_cursors(H, range, groups, x, start[x]);
}

// Fused binarize + prefix sums + compressA01p (Algorithm 5 lines 2-11 and the Ap of
// Algorithm 2 line 2): CUB scans pack_bin(A[i]); this output functor receives (i, scan) and
// writes the run of every non-empty bin: its value and its end in the output.
struct PackBin {
  const u32* A;
  __host__ __device__ u64 operator()(u64 i) const { return pack_bin(A[i]); }
};
template <typename W>
struct EmitRun {
  const u32* A;
  u32* run_end;
  W* run_val;
  u32* len;
  u64 range;
  W min_word;
  __device__ void operator()(std::ptrdiff_t i, u64 scan) const {
    if (A[i]) {
      const u32 j = packed_nonzero(scan) - 1;
      run_end[j] = packed_count(scan);
      run_val[j] = word_at<W>(static_cast<u32>(i), min_word);
    }
    if (static_cast<u64>(i) == range - 1) *len = packed_nonzero(scan);
  }
};

// The expansion: tile t of y holds the runs from the first one ending after t0 to the one
// covering the tile's last position, at most one per position. locate_tiles finds every
// tile's window of runs at once, a warp per tile, each half-warp searching for one end of
// the window 16 ways at a time (wide_probe, wide_narrow): a thread per tile with two binary
// searches took 21.6 us at n = 2^24 and 4M runs (44 dependent loads; H200, Nsight Compute),
// and done by each tile's own block, the searches left the block idle. expand_runs stages
// the window in shared memory and every thread writes 16 consecutive bytes of keys per store.
constexpr unsigned kExpandBlock = 256;
constexpr unsigned kExpandTile = kExpandBlock * 16;
constexpr unsigned kLocateThreadsPerTile = 32;  // two searches of kLocateWays lanes
static __global__ void locate_tiles(const u32* run_end, const u32* len_at, u64 n, uint2* window) {
  const u64 tiles = ceil_div(n, kExpandTile);
  const u64 len = *len_at;
  const u32 half = lane_id() / kLocateWays, k = lane_id() % kLocateWays;
  const u64 warps = global_threads() / 32;
  for (u64 t = global_thread() / 32; t < tiles; t += warps) {
    const u64 t0 = t * kExpandTile;
    const u64 pos = half == 0 ? t0 : min_u64(t0 + kExpandTile, n) - 1;
    RunSpan s{0, len - 1};
    while (__any_sync(0xffffffffu, s.lo < s.hi)) {
      const bool searching = s.lo < s.hi;
      const bool at_or_below = searching && run_end[wide_probe(s, k, kLocateWays)] <= pos;
      const u32 votes = __ballot_sync(0xffffffffu, at_or_below) >> (half * kLocateWays) & 0xffffu;
      if (searching) s = wide_narrow(s, static_cast<u32>(__popc(votes)), kLocateWays);
    }
    const u64 last = __shfl_sync(0xffffffffu, s.lo, kLocateWays);
    if (lane_id() == 0) window[t] = make_uint2(static_cast<u32>(s.lo), static_cast<u32>(last + 1 - s.lo));
  }
}

// Positions and run ends inside a tile are 32-bit offsets from the tile's start. A thread's
// positions only grow, so with few runs in the window it walks on from its last run instead
// of searching again.
constexpr u32 kExpandWalkMax = 32;
// With 8-byte words the staged window takes the whole 48 KB of static shared memory.
template <typename W>
__global__ void __launch_bounds__(kExpandBlock) expand_runs(const u32* run_end, const W* run_val,
                                                            const uint2* window, u64 n, W* y) {
  __shared__ u32 s_end[kExpandTile];
  __shared__ W s_val[kExpandTile];
  const u64 t0 = blockIdx.x * u64{kExpandTile};
  const u32 tile_len = static_cast<u32>(min_u64(kExpandTile, n - t0));
  const uint2 w = window[blockIdx.x];
  const u32 first = w.x, count = w.y;
  for (u32 k = threadIdx.x; k < count; k += blockDim.x) {
    s_end[k] = static_cast<u32>(run_end[first + k] - t0);  // > 0: the window's runs end after t0
    s_val[k] = run_val[first + k];
  }
  __syncthreads();
  W* tile = y + t0;
  // Each thread writes 16 bytes a step, the warp 512 consecutive bytes: four 4-byte keys or
  // two 8-byte ones. (Four 8-byte keys a thread in two 16-byte stores, each store
  // instruction covering every other 16 bytes of 1 KB, took expand_runs 272 us for 2^26
  // keys against 71 us for 4-byte ones, 40 % of DRAM: H200, Nsight Compute.) The stores
  // stream (evict first): nothing reads the output back here, and hp-tiled at n = 2^26,
  // delta = sigma = 50 took 0.369 ms against 0.380 with plain stores (2^28: 1.482 against 1.526).
  constexpr u32 per = 16 / sizeof(W);
  u32 j = 0;
  for (u32 pos = per * threadIdx.x; pos < tile_len; pos += per * kExpandBlock) {
    if (count > kExpandWalkMax) j = run_at(s_end, 0u, count, pos);
    W v[per];
#pragma unroll
    for (u32 q = 0; q < per; ++q) {
      while (j + 1 < count && s_end[j] <= pos + q) ++j;
      v[q] = s_val[j];
    }
    if (pos + per <= tile_len) {
      if constexpr (sizeof(W) == 4) __stcs(reinterpret_cast<uint4*>(tile + pos), make_uint4(v[0], v[1], v[2], v[3]));
      else __stcs(reinterpret_cast<ulonglong2*>(tile + pos), make_ulonglong2(v[0], v[1]));
    } else {
#pragma unroll
      for (u32 q = 0; q < per; ++q)
        if (pos + q < tile_len) tile[pos + q] = v[q];
    }
  }
}

// The key-value path: after the histogram, A holds every bin's exclusive prefix sum (its
// first output position) and serves as the bins' cursors. Each (key, value) pair takes its
// bin's next slot with one atomic; a warp whose keys share one bin (sorted or clustered
// input, one repeated key) takes its 32 slots with one atomic, in lane order. The order of
// equal keys across warps follows the atomics: not stable.
template <typename W, typename V>
__global__ void scatter_pairs(const W* keys_in, const V* vals_in, u64 n, W min_word, u32* cursor, W* keys_out,
                              V* vals_out) {
  const u64 steps = ceil_div(n, global_threads());  // uniform trip count: whole warps take part
  for (u64 s = 0, i = global_thread(); s < steps; ++s, i += global_threads()) {
    const bool live = i < n;
    const W key = live ? keys_in[i] : W{};
    const u32 bin = live ? word_offset<W>(key, min_word) : ~0u;
    const u32 lane0_bin = __shfl_sync(0xffffffffu, bin, 0);
    const unsigned live_lanes = __ballot_sync(0xffffffffu, live);
    if (live_lanes == 0) break;  // the warp is past n, and stays so
    u32 at;
    if (__all_sync(0xffffffffu, !live || bin == lane0_bin)) {
      u32 base = 0;
      if (lane_id() == 0) base = atomicAdd(&cursor[lane0_bin], static_cast<u32>(__popc(live_lanes)));
      at = __shfl_sync(0xffffffffu, base, 0) + lane_id();
    } else {
      at = live ? atomicAdd(&cursor[bin], 1u) : 0;
    }
    if (live) {
      keys_out[at] = key;
      vals_out[at] = vals_in[i];
    }
  }
}

}  // namespace sb::hp::fast
