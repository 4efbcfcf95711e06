// Histogram kernels of the faster H-P versions (beyond seed 004; method notes in docs/hp.md):
// shared-memory privatized (range fits in shared memory), global atomics (L2-resident), and
// the large-range hybrid that first splits keys by their high bits so each bucket's histogram
// fits in shared memory.
#pragma once

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "hp_fast_device.cuh"
#include "hp_scatter_index.hpp"

namespace sb::hp::fast {

// Adds v to *word where `add` holds. In shared memory as a predicated red in PTX: ptxas still
// branches around it, but with the shared window's base kept out of the loop; written as
// `if (add) atomicAdd(...)`, each add of an unrolled loop recomputed the base in its branch
// (measured: docs/hp.md, add_if).
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
// the run adds it (add_if). hist is in shared memory unless InShared is false. Pairs: the bins
// are 16-bit halves of hist's words (pair_word, pair_add), kept from wrapping by the caller.
template <bool InShared = true, bool Pairs = false>
struct RunCounter {
  u32 bin = 0, run = 0;
  __device__ __forceinline__ void add(u32* hist, u32 b) {
    const bool breaks = b != bin;
    put(hist, breaks && run != 0);
    run = breaks ? 1u : run + 1;
    bin = breaks ? b : bin;
  }
  __device__ __forceinline__ void flush(u32* hist) { put(hist, run != 0); }
  __device__ __forceinline__ void put(u32* hist, bool add) {
    if constexpr (Pairs) add_if<InShared>(&hist[pair_word(bin)], pair_add(bin, run), add);
    else add_if<InShared>(&hist[bin], run, add);
  }
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

// Hybrid step 2: each key's low bits go to its bucket's region, 2 bytes per key. A part is
// done in tiles of kSplitTile keys; a tile is first grouped by bucket in shared memory, so
// that the keys of one bucket leave as one run of consecutive 2-byte stores instead of a
// store per key (order inside a bucket is free: only its histogram is needed).
constexpr unsigned kSplitBlock = 512;
constexpr unsigned kSplitItems = 16;
constexpr unsigned kSplitTile = kSplitBlock * kSplitItems;
constexpr std::size_t split_shared_bytes(u32 buckets) { return (3 * std::size_t{buckets} + kSplitTile) * sizeof(u32); }

using SplitScan = cub::BlockScan<u32, kSplitBlock>;

// A split tile's offsets, kSplitItems a thread of Block; keys past the part's end (hi) get `none`.
template <unsigned Block = kSplitBlock, typename W>
__device__ __forceinline__ void load_split_tile(const W* x, u64 t0, u64 hi, W min_word, u32 none,
                                                u32 (&off)[kSplitItems]) {
#pragma unroll
  for (unsigned it = 0; it < kSplitItems; ++it) {
    const u64 i = t0 + it * Block + threadIdx.x;
    off[it] = i < hi ? word_offset<W>(x[i], min_word) : none;
  }
}
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
    load_split_tile(x, t0, hi, min_word, none, off);
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

// Hybrid step 2 for thousands of buckets, buffered (ScatterRegion in hp_scatter_index.hpp): a tile then
// holds a few keys of each bucket, and bucket_scatter's runs of 2-byte stores cost whole partial
// sectors (at n = 2^31, 1,311 buckets: 28.9 GB of DRAM traffic for 12.9 GB of keys read and low
// bits written; docs/hp.md, the buffered scatter). Here each bucket's low bits collect in two
// chunks of shared memory and leave as whole aligned sectors; a key past the two chunks is stored
// at once from its region's tail, in the runs many keys of one bucket make. Block: 512 threads
// where two blocks' buffers share an SM, else 1024 so that one block keeps as many keys in flight
// (scatter_threads). P: the positions' width (u64 from 2^32 keys).
template <typename W, unsigned Block = kSplitBlock, typename P = u32>
__global__ void __launch_bounds__(Block, 1024 / Block)
    bucket_scatter_buffered(const W* x, u64 n, W min_word, unsigned low_bits, u32 buckets, const P* offsets,
                            std::uint16_t* low) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  constexpr u32 kBufferKeys = 2 * kScatterChunk;
  constexpr u32 kChunkWords = kScatterChunk * sizeof(std::uint16_t) / sizeof(uint4);
  constexpr u32 kFillAlign = sizeof(P) / sizeof(u32);
  auto* s_buffer = reinterpret_cast<std::uint16_t*>(s_raw);  // bucket b's two chunks at b * kBufferKeys
  auto* s_words = reinterpret_cast<uint4*>(s_raw);
  u32* s_fill = reinterpret_cast<u32*>(s_buffer + std::size_t{buckets} * kBufferKeys);
  P* s_front = reinterpret_cast<P*>(s_fill + (buckets + kFillAlign - 1) / kFillAlign * kFillAlign);
  P* s_tail = s_front + buckets;
  const u64 regions = u64{buckets} * gridDim.x;
  auto region = [&](u32 b, P& start, P& end) {
    const u64 i = u64{b} * gridDim.x + blockIdx.x;
    start = offsets[i];
    end = i + 1 < regions ? offsets[i + 1] : static_cast<P>(n);
  };
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) {
    P start, end;
    region(b, start, end);
    const ScatterRegion<P> r = scatter_region(start, end, kScatterChunk);
    s_front[b] = r.front;
    s_tail[b] = r.tail;
    s_fill[b] = 0;
  }
  __syncthreads();
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 4, lo, hi);
  // Keys past the part's end get the offset of no bucket (bucket `buckets`).
  const u32 none = buckets << low_bits;
  for (u64 t0 = lo; t0 < hi; t0 += Block * kSplitItems) {
    u32 off[kSplitItems];
    load_split_tile<Block>(x, t0, hi, min_word, none, off);
#pragma unroll
    for (unsigned it = 0; it < kSplitItems; ++it) {
      const u32 b = bucket_of(off[it], low_bits);
      const u32 slot = rank_in_bucket(b, buckets, s_fill);
      if (b < buckets) {
        const auto bin = static_cast<std::uint16_t>(bin_in_bucket(off[it], low_bits));
        if (scatter_buffered(slot, kScatterChunk)) s_buffer[b * kBufferKeys + slot] = bin;
        else low[scatter_direct_position(s_tail[b], slot, kScatterChunk)] = bin;
      }
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) {
      ScatterRegion<P> r{s_front[b], s_tail[b], 0};
      scatter_settle(r, s_fill[b], kScatterChunk);
      uint4* words = s_words + std::size_t{b} * 2 * kChunkWords;
      for (int k = 0; k < 2 && scatter_chunk_ready(r, kScatterChunk); ++k) {
        auto* out = reinterpret_cast<uint4*>(low + r.front);
#pragma unroll
        for (u32 w = 0; w < kChunkWords; ++w) {
          out[w] = words[w];
          words[w] = words[kChunkWords + w];
        }
        scatter_chunk_left(r, kScatterChunk);
      }
      s_front[b] = r.front;
      s_tail[b] = r.tail;
      s_fill[b] = r.fill;
    }
    __syncthreads();
  }
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) {
    P start, end;
    region(b, start, end);
    const ScatterRegion<P> r{s_front[b], s_tail[b], s_fill[b]};
    for (u32 j = 0; j < r.fill; ++j)
      low[scatter_final_position(r, start, end, j, kScatterChunk)] = s_buffer[b * kBufferKeys + j];
  }
}

// Visits low[lo, hi) with blockDim.x threads, eight 2-byte values per 16-byte load where
// aligned (aligned_span gives the vector part), kLowLoadsInFlight loads a thread issued before
// any is counted: the counters' shared adds are volatile asm with a memory clobber, so no load
// after one is hoisted above it, and one load a thread in flight (32 warps an SM at 128 KB of
// counters) left bucket_hist at about half of DRAM's rate (docs/hp.md).
constexpr unsigned kLowLoadsInFlight = 4;
template <typename F>
__device__ __forceinline__ void for_each_low(const std::uint16_t* low, u64 lo, u64 hi, F&& f) {
  u64 mid_lo, mid_hi;
  aligned_span(lo, hi, 8, mid_lo, mid_hi);
  for (u64 i = lo + threadIdx.x; i < mid_lo; i += blockDim.x) f(low[i]);
  const uint4* v8 = reinterpret_cast<const uint4*>(low);
  const auto visit = [&](const uint4& v) {
    const u32 pairs[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) f(pairs[k] & 0xffffu), f(pairs[k] >> 16);
  };
  const u64 v_end = mid_hi / 8;
  u64 i = mid_lo / 8 + threadIdx.x;
  for (; i + (kLowLoadsInFlight - 1) * blockDim.x < v_end; i += kLowLoadsInFlight * blockDim.x) {
    uint4 v[kLowLoadsInFlight];
#pragma unroll
    for (unsigned k = 0; k < kLowLoadsInFlight; ++k) v[k] = v8[i + k * blockDim.x];
#pragma unroll
    for (unsigned k = 0; k < kLowLoadsInFlight; ++k) visit(v[k]);
  }
  for (; i < v_end; i += blockDim.x) visit(v8[i]);
  for (u64 i = mid_hi + threadIdx.x; i < hi; i += blockDim.x) f(low[i]);
}

// Hybrid step 3: the histogram of buckets [first_bucket, end_bucket) in shared memory. Block g
// takes a slice of their part of the bucketed array; a slice crossing bucket edges handles each
// bucket in turn (a range of buckets at a time lets dist-hp send bins counted while it counts the
// next ones; the device holds the buckets' offsets, so the kernel finds their keys). Count and P:
// the counts' and the offsets' width (u64 from 2^32 keys). Pairs: the bins as 16-bit pairs, for
// buckets of 2^16 bins, whose 32-bit counters do not fit in a block, counted in steps
// (pair_step_spill in hp_scatter_index.hpp).
template <typename Count = u32, typename P = u32, bool Pairs = false>
__global__ void bucket_hist(const std::uint16_t* low, u64 n, const P* offsets, u32 parts, u32 buckets,
                            unsigned low_bits, Count* A, u32 first_bucket, u32 end_bucket) {
  extern __shared__ u32 s_hist[];
  const u32 bins = 1u << low_bits;
  const u32 words = Pairs ? bins / 2 : bins;
  auto bucket_start = [&](u32 b) -> u64 { return b < buckets ? offsets[u64{b} * parts] : n; };
  const u64 first = bucket_start(first_bucket);
  u64 lo, hi;
  part_bounds(bucket_start(end_bucket) - first, gridDim.x, blockIdx.x, 8, lo, hi);
  lo += first;
  hi += first;
  for (u32 b = bucket_holding(bucket_start, buckets, lo); lo < hi && b < buckets; ++b) {
    const u64 end = bucket_start(b + 1) < hi ? bucket_start(b + 1) : hi;
    if (end <= lo) continue;
    Count* bucket_A = A + (u64{b} << low_bits);
    for (u32 i = threadIdx.x; i < words; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    if constexpr (Pairs) {
      for (u64 step = lo; step < end; step += kPairStep) {
        const u64 step_end = end - step > kPairStep ? step + kPairStep : end;
        RunCounter<true, true> run;
        for_each_low(low, step, step_end, [&](u32 bin) { run.add(s_hist, bin); });
        run.flush(s_hist);
        if (step_end == end) break;
        __syncthreads();
        // Four words a 16-byte load (words is 2^15), tested at once: few halves reach
        // kPairSpillAt, so a step's spill is mostly these loads.
        uint4* quads = reinterpret_cast<uint4*>(s_hist);
        for (u32 q = threadIdx.x; q < words / 4; q += blockDim.x) {
          uint4 quad = quads[q];
          if (!pair_words_spill(quad.x | quad.y | quad.z | quad.w)) continue;
          u32* word = &quad.x;
#pragma unroll
          for (u32 k = 0; k < 4; ++k) {
            const PairSpill spill = pair_step_spill(word[k]);
            const u32 i = 4 * q + k;
            if (spill.even_out) add_count(&bucket_A[2 * i], spill.even);
            if (spill.odd_out) add_count(&bucket_A[2 * i + 1], spill.odd);
            word[k] = spill.kept;
          }
          quads[q] = quad;
        }
        __syncthreads();
      }
    } else {
      RunCounter<> run;
      for_each_low(low, lo, end, [&](u32 bin) { run.add(s_hist, bin); });
      run.flush(s_hist);
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < words; i += blockDim.x) {
      if constexpr (Pairs) {
        const u32 v = s_hist[i];
        if (const u32 c = pair_count(v, 2 * i)) add_count(&bucket_A[2 * i], c);
        if (const u32 c = pair_count(v, 2 * i + 1)) add_count(&bucket_A[2 * i + 1], c);
      } else if (s_hist[i]) {
        add_count(&bucket_A[i], s_hist[i]);
      }
    }
    __syncthreads();
    lo = end;
  }
}

}  // namespace sb::hp::fast
