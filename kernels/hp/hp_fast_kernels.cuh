// Kernels of the faster H-P versions (beyond seed 004; method notes in docs/hp.md).
// Histograms: shared-memory privatized (range fits in shared memory), global atomics
// (L2-resident), and the large-range hybrid that first splits keys by their high bits so
// each bucket's histogram fits in shared memory. The expansion writes y straight from the
// compressed runs (bin value, run end) with coalesced 16-byte stores, replacing the paper's
// zeroed B array and its full prefix sum (Algorithm 5 lines 13-17).
#pragma once

#include <cstdint>

#include "hp_index.hpp"

namespace sb::hp::fast {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

__device__ __forceinline__ u64 global_thread() { return blockIdx.x * u64{blockDim.x} + threadIdx.x; }
__device__ __forceinline__ u64 global_threads() { return u64{gridDim.x} * blockDim.x; }

// Counts equal neighbours of one thread in a register and adds a whole run at once: an
// input of one value costs one atomic per thread instead of one per key.
struct RunCounter {
  u32 bin = 0, run = 0;
  __device__ __forceinline__ void add(u32* hist, u32 b) {
    if (b == bin) {
      ++run;
      return;
    }
    if (run) atomicAdd(&hist[bin], run);
    bin = b;
    run = 1;
  }
  __device__ __forceinline__ void flush(u32* hist) {
    if (run) atomicAdd(&hist[bin], run);
  }
};

// Visits every key offset of x[0, n) once, four per 16-byte load, grid-stride.
template <typename F>
__device__ __forceinline__ void for_each_offset(const u32* x, u64 n, u32 min_word, F&& f) {
  const uint4* x4 = reinterpret_cast<const uint4*>(x);
  const u64 n4 = n / 4;
  for (u64 i = global_thread(); i < n4; i += global_threads()) {
    const uint4 v = x4[i];
    f(v.x - min_word), f(v.y - min_word), f(v.z - min_word), f(v.w - min_word);
  }
  for (u64 i = n4 * 4 + global_thread(); i < n; i += global_threads()) f(x[i] - min_word);
}

// Shared-memory privatized histogram: `copies` sub-histograms of `bins` words (warp w uses
// copy w % copies, fewer collisions on few bins), summed into the global A at the end.
__global__ void hist_shared(const u32* x, u64 n, u32 min_word, u32 bins, u32 copies, u32* A) {
  extern __shared__ u32 s_hist[];
  for (u32 i = threadIdx.x; i < bins * copies; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  u32* mine = s_hist + (threadIdx.x / 32 % copies) * bins;
  RunCounter run;
  for_each_offset(x, n, min_word, [&](u32 off) { run.add(mine, off); });
  run.flush(mine);
  __syncthreads();
  for (u32 b = threadIdx.x; b < bins; b += blockDim.x) {
    u32 c = 0;
    for (u32 k = 0; k < copies; ++k) c += s_hist[k * bins + b];
    if (c) atomicAdd(&A[b], c);
  }
}

// Global-atomic histogram (A is L2-resident for ranges of a few million bins).
__global__ void hist_global(const u32* x, u64 n, u32 min_word, u32* A) {
  RunCounter run;
  for_each_offset(x, n, min_word, [&](u32 off) { run.add(A, off); });
  run.flush(A);
}

// Visits the offsets of part blockIdx.x of gridDim.x parts (hp_index part_bounds), in order.
template <typename F>
__device__ __forceinline__ void for_each_offset_of_part(const u32* x, u64 n, u32 min_word, F&& f) {
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 4, lo, hi);
  const uint4* x4 = reinterpret_cast<const uint4*>(x);
  const u64 hi4 = lo + (hi - lo) / 4 * 4;
  for (u64 i = lo / 4 + threadIdx.x; i < hi4 / 4; i += blockDim.x) {
    const uint4 v = x4[i];
    f(v.x - min_word), f(v.y - min_word), f(v.z - min_word), f(v.w - min_word);
  }
  for (u64 i = hi4 + threadIdx.x; i < hi; i += blockDim.x) f(x[i] - min_word);
}

// Hybrid step 1: bucket counts of each part, stored bucket-major (counts[b * parts + p]) so
// that one exclusive scan gives every (bucket, part) its output offset.
__global__ void bucket_count(const u32* x, u64 n, u32 min_word, unsigned low_bits, u32 buckets, u32* counts) {
  extern __shared__ u32 s_count[];
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_count[b] = 0;
  __syncthreads();
  for_each_offset_of_part(x, n, min_word, [&](u32 off) { atomicAdd(&s_count[bucket_of(off, low_bits)], 1u); });
  __syncthreads();
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) counts[u64{b} * gridDim.x + blockIdx.x] = s_count[b];
}

// Hybrid step 2: each key's low bits go to its bucket's region (order inside a bucket is
// free: only its histogram is needed), 2 bytes per key.
__global__ void bucket_scatter(const u32* x, u64 n, u32 min_word, unsigned low_bits, u32 buckets,
                               const u32* offsets, std::uint16_t* low) {
  extern __shared__ u32 s_cursor[];
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_cursor[b] = offsets[u64{b} * gridDim.x + blockIdx.x];
  __syncthreads();
  for_each_offset_of_part(x, n, min_word, [&](u32 off) {
    const u32 at = atomicAdd(&s_cursor[bucket_of(off, low_bits)], 1u);
    low[at] = static_cast<std::uint16_t>(bin_in_bucket(off, low_bits));
  });
}

// Hybrid step 3: the histogram of each bucket in shared memory. Block g takes a slice of
// the bucketed array; a slice crossing bucket edges handles each bucket in turn.
__global__ void bucket_hist(const std::uint16_t* low, u64 n, const u32* offsets, u32 parts, u32 buckets,
                            unsigned low_bits, u32* A) {
  extern __shared__ u32 s_hist[];
  const u32 bins = 1u << low_bits;
  auto bucket_start = [&](u32 b) -> u64 { return b < buckets ? offsets[u64{b} * parts] : n; };
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 1, lo, hi);
  for (u32 b = bucket_holding(bucket_start, buckets, lo); lo < hi && b < buckets; ++b) {
    const u64 end = bucket_start(b + 1) < hi ? bucket_start(b + 1) : hi;
    if (end <= lo) continue;
    for (u32 i = threadIdx.x; i < bins; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    RunCounter run;
    for (u64 i = lo + threadIdx.x; i < end; i += blockDim.x) run.add(s_hist, low[i]);
    run.flush(s_hist);
    __syncthreads();
    for (u32 i = threadIdx.x; i < bins; i += blockDim.x)
      if (s_hist[i]) atomicAdd(&A[(u64{b} << low_bits) + i], s_hist[i]);
    __syncthreads();
    lo = end;
  }
}

// Fused binarize + prefix sums + compressA01p (Algorithm 5 lines 2-11 and the Ap of
// Algorithm 2 line 2): CUB scans pack_bin(A[i]); this output functor receives (i, scan) and
// writes the run of every non-empty bin: its value and its end in the output.
struct PackBin {
  const u32* A;
  __host__ __device__ u64 operator()(u64 i) const { return pack_bin(A[i]); }
};
struct EmitRun {
  const u32* A;
  u32* run_end;
  u32* run_val;
  u32* len;
  u64 range;
  u32 min_word;
  __device__ void operator()(std::ptrdiff_t i, u64 scan) const {
    if (A[i]) {
      const u32 j = packed_nonzero(scan) - 1;
      run_end[j] = packed_count(scan);
      run_val[j] = min_word + static_cast<u32>(i);
    }
    if (static_cast<u64>(i) == range - 1) *len = packed_nonzero(scan);
  }
};

// The expansion: tile t of y holds the runs from the first one ending after t0 to the one
// covering the tile's last position, at most one per position; they are staged in shared
// memory and every thread writes 4 consecutive keys per 16-byte store.
constexpr unsigned kExpandBlock = 256;
constexpr unsigned kExpandTile = kExpandBlock * 16;
__global__ void __launch_bounds__(kExpandBlock) expand_runs(const u32* run_end, const u32* run_val,
                                                            const u32* len_at, u64 n, u32* y) {
  __shared__ u32 s_end[kExpandTile], s_val[kExpandTile];
  __shared__ u64 s_first, s_count;
  const u64 t0 = blockIdx.x * u64{kExpandTile};
  const u64 t1 = t0 + kExpandTile < n ? t0 + kExpandTile : n;
  if (threadIdx.x == 0) {
    u64 first, count;
    tile_runs(run_end, *len_at, t0, t1, first, count);
    s_first = first;
    s_count = count;
  }
  __syncthreads();
  const u64 first = s_first, count = s_count;
  for (u64 k = threadIdx.x; k < count; k += blockDim.x) {
    s_end[k] = run_end[first + k];
    s_val[k] = run_val[first + k];
  }
  __syncthreads();
  for (u64 base = t0 + 4 * u64{threadIdx.x}; base < t1; base += 4 * kExpandBlock) {
    u64 j = run_at(s_end, 0, count, base);
    u32 v[4];
    for (int q = 0; q < 4; ++q) {
      while (j + 1 < count && s_end[j] <= base + q) ++j;
      v[q] = s_val[j];
    }
    if (base + 4 <= t1) {
      *reinterpret_cast<uint4*>(y + base) = make_uint4(v[0], v[1], v[2], v[3]);
    } else {
      for (int q = 0; base + q < t1; ++q) y[base + q] = v[q];
    }
  }
}

// hp-auto's hand-off to CUB: keys become offsets from the minimum and back.
__global__ void to_offsets(u32* keys, u64 n, u32 min_word) {
  for (u64 i = global_thread(); i < n; i += global_threads()) keys[i] -= min_word;
}
__global__ void from_offsets(u32* keys, u64 n, u32 min_word) {
  for (u64 i = global_thread(); i < n; i += global_threads()) keys[i] += min_word;
}

}  // namespace sb::hp::fast
