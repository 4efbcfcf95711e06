// Device building blocks of the quicksort family (seed 002): the worker groups that run a
// Partition (one thread, one warp, one block), the claim of output slots (the paper's warp
// prefix sum), the K-way split of one segment, and the in-block sorts that finish a segment
// (selection sort below 32 keys, bitonic sort when recursion has to stop).
#pragma once

#include <cstdint>

#include "quicksort_index.hpp"
#include "sortbench/core/element.hpp"

namespace sb::qs {

// The two key buffers; a segment's keys live in buf[s.buf]. Every sort ends in buf[0].
template <typename T>
struct Buffers {
  T* buf[2];
};

// A range of keys and the buffer that holds it.
struct Segment {
  u64 begin;
  u64 len;
  int buf;
};

// How a warp ranks the keys of one chunk by bucket.
enum class Claim {
  shuffle_scan,  // the paper's Prefix: packed flags summed by a __shfl_up scan (3 buckets)
  ballot,        // one ballot per bucket, warp-aggregated atomics on shared cursors
};

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// Inclusive warp prefix sum by shuffles (Partition's PrefixSum, section 4.2).
__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

// Worker groups: `rank` within the group, `width` threads, `sync` among them.
struct ThreadGroup {
  __device__ int rank() const { return 0; }
  static constexpr int width = 1;
  __device__ void sync() const {}
};
struct WarpGroup {
  __device__ int rank() const { return threadIdx.x & 31; }
  static constexpr int width = 32;
  __device__ void sync() const { __syncwarp(); }
};
struct BlockGroup {
  __device__ int rank() const { return threadIdx.x; }
  int width;
  __device__ void sync() const { __syncthreads(); }
};

// Slot of one key of bucket bk (-1: no key) and advance the shared cursors by the chunk.
__device__ __forceinline__ u64 claim(ThreadGroup, int bk, int, u64* cursor, Claim) {
  return bk >= 0 ? cursor[bk]++ : 0;
}

template <typename G>
__device__ __forceinline__ u64 claim(G, int bk, int nb, u64* cursor, Claim how) {
  const unsigned lt = lanemask_lt();
  const int lane = threadIdx.x & 31;
  u64 slot = 0;
  if (how == Claim::shuffle_scan) {
    // Three 10-bit counters in one word: less, equal, greater (at most 32 each).
    const unsigned v = bk >= 0 ? 1u << (10 * bk) : 0u;
    const unsigned inc = warp_inclusive_scan(v);
    const unsigned total = __shfl_sync(0xffffffffu, inc, 31);
    if (bk >= 0) slot = cursor[bk] + (((inc - v) >> (10 * bk)) & 1023u);
    __syncwarp();
    if (lane < 3) cursor[lane] += (total >> (10 * lane)) & 1023u;
    __syncwarp();
    return slot;
  }
  for (int j = 0; j < nb; ++j) {
    const unsigned m = __ballot_sync(0xffffffffu, bk == j);
    if (m == 0) continue;
    const int leader = __ffs(m) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(reinterpret_cast<unsigned long long*>(&cursor[j]), __popc(m));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (bk == j) slot = base + __popc(m & lt);
  }
  return slot;
}

// Per-worker shared state of one Partition.
template <typename T>
struct SplitState {
  T pivots[kMaxPivots];
  T samples[sample_count(kMaxPivots, 4)];
  u64 count[kMaxBuckets];
  u64 cursor[kMaxBuckets];
};

inline constexpr int kItems = 4;  // keys per thread in flight: loads issued before the claims

// Partition of src[s.begin, +s.len) by np pivots into dst, count pass then scatter pass
// (the paper's Direct-Prefix: a first prefix sum counts each bucket, a second places the
// keys). Leaves the bucket sizes in st.count. Every thread of the group must call it.
template <typename G, typename T>
__device__ void group_split(G g, const T* src, T* dst, u64 begin, u64 len, int np, SplitState<T>& st, Claim how) {
  const int nb = bucket_count(np);
  if (g.rank() == 0)
    for (int b = 0; b < nb; ++b) st.count[b] = 0;
  g.sync();
  const u64 step = u64(g.width) * kItems;
  for (int pass = 0; pass < 2; ++pass) {
    u64* cursor = pass == 0 ? st.count : st.cursor;
    for (u64 c = 0; c < len; c += step) {
      T x[kItems];
      int bk[kItems];
#pragma unroll
      for (int it = 0; it < kItems; ++it) {
        const u64 i = c + u64(it) * g.width + g.rank();
        bk[it] = -1;
        if (i < len) x[it] = src[begin + i];
      }
#pragma unroll
      for (int it = 0; it < kItems; ++it) {
        const u64 i = c + u64(it) * g.width + g.rank();
        if (i < len) bk[it] = bucket_of(x[it], st.pivots, np);
        const u64 slot = claim(g, bk[it], nb, cursor, how);
        if (pass == 1 && bk[it] >= 0) dst[slot] = x[it];
      }
    }
    g.sync();
    if (pass == 0) {
      if (g.rank() == 0) bucket_offsets(st.count, nb, begin, st.cursor);
      g.sync();
    }
  }
}

// Reads the samples of a segment and picks np pivots (one thread).
template <typename T>
__device__ void choose_pivots(const T* src, u64 begin, u64 len, int np, int oversampling, SplitState<T>& st) {
  const int s = sample_count(np, oversampling);
  for (int i = 0; i < s; ++i) st.samples[i] = src[sample_position(begin, len, i, s)];
  pivots_from_samples(st.samples, s, np, st.pivots);
}

template <typename G, typename T>
__device__ void group_copy(G g, const T* from, T* to, u64 begin, u64 len) {
  for (u64 i = g.rank(); i < len; i += g.width) to[begin + i] = from[begin + i];
}

// Bitonic sort of a[0..len) by the whole block, any len (see bitonic_partner); with a value
// type, v[0..len) moves with its keys.
template <typename T, typename V = NoValue>
__device__ void block_bitonic_sort(T* a, u64 len, V* v = nullptr) {
  const u64 top = pow2_at_least(len);
  for (u64 k = 2; k <= top; k <<= 1)
    for (u64 j = k / 2; j > 0; j >>= 1) {
      for (u64 i = threadIdx.x; i < len; i += blockDim.x) {
        const u64 p = bitonic_partner(i, k, j);
        if (p > i && p < len) {
          const T x = a[i], y = a[p];
          if (y < x) {
            a[i] = y;
            a[p] = x;
            if constexpr (!std::is_same_v<V, NoValue>) {
              const V t = v[i];
              v[i] = v[p];
              v[p] = t;
            }
          }
        }
      }
      __syncthreads();
    }
}

// Finishes a segment inside the block whatever its size (nesting depth or pending-launch
// limit reached): bitonic sort in place, then into buf[0].
template <typename T>
__device__ void block_finish(Buffers<T> b, Segment s) {
  block_bitonic_sort(b.buf[s.buf] + s.begin, s.len);
  if (s.buf != 0) {
    BlockGroup g{int(blockDim.x)};
    group_copy(g, b.buf[1], b.buf[0], s.begin, s.len);
  }
  __syncthreads();
}

// P-Quick's base case for one segment below 32 keys, by one thread.
template <typename T>
__device__ void thread_selection_finish(Buffers<T> b, Segment s) {
  T* a = b.buf[s.buf] + s.begin;
  selection_sort(a, s.len);
  if (s.buf != 0)
    for (u64 i = 0; i < s.len; ++i) b.buf[0][s.begin + i] = a[i];
}

}  // namespace sb::qs
