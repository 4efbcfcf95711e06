// Device pieces shared by quick-fast and quick-sample (beyond seed 002): the element sizes
// that follow from (key, value) bytes, the warp ranking of keys by bucket, the last-block
// ticket that lets a grid carry the recursion on without a device-side wait, and the leaf
// sort that finishes a part of up to Elem::radix_max elements with CUB BlockRadixSort.
#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <type_traits>

#include "quicksort_device.cuh"
#include "sortbench/core/keys.hpp"

namespace sb::qs {

using u32 = std::uint32_t;
using ull = unsigned long long;

inline constexpr int kGridThreads = 256;
inline constexpr int kLeafThreads = 512;
inline constexpr int kLeafMinBlocks = 2;  // register budget: two leaf blocks per SM where shared memory allows

// The element type (K, V) and the sizes that follow from its bytes (quicksort_index.hpp).
template <typename K, typename V>
struct Elem {
  static constexpr bool carries = !std::is_same_v<V, NoValue>;
  static constexpr int bytes = int(sizeof(K)) + (carries ? int(sizeof(V)) : 0);
  static constexpr int grid_items = items_per_thread(kGridTileBytes, bytes);
  static constexpr u64 tile = u64(kGridThreads) * grid_items;  // elements per block of a grid split
  static constexpr int split_items = items_per_thread(kLeafSplitBytes, bytes);  // loaded before a leaf split ranks them
  static constexpr int small_items = items_per_thread(kSmallRadixBytes, bytes);
  static constexpr int large_items = items_per_thread(kLargeRadixBytes, bytes);
  static constexpr u64 radix_max = u64(kLeafThreads) * large_items;  // parts finished by BlockRadixSort
  using Ordered = typename KeyTraits<K>::Ordered;
};
static_assert(Elem<std::uint32_t, NoValue>::grid_items == 16 && Elem<std::uint32_t, NoValue>::split_items == 8 &&
                  Elem<std::uint32_t, NoValue>::small_items == 2 && Elem<std::uint32_t, NoValue>::large_items == 8,
              "4-byte keys keep the tiles they were tuned with");

// The two key buffers and, with a payload, the two value buffers; a segment's elements live
// in buf[s.buf] and val[s.buf]. Every sort ends in buf[0] and val[0].
template <typename K, typename V>
struct ElemBuffers {
  K* buf[2];
  V* val[2];
};

// The leaf sorts of a block of THREADS threads: BlockRadixSort of the keys' ordered form, with
// the values when V is a payload, of up to Elem::radix_max elements (large) or a quarter of
// them (small), whatever THREADS: fewer threads hold more items each. quick-sample's leaves
// take 256 threads, faster than quick-fast's 512 (docs/quicksort.md, LeafSort).
template <typename K, typename V, int THREADS = kLeafThreads>
struct LeafSort {
  static_assert(kLeafThreads % THREADS == 0, "the same part sizes as kLeafThreads");
  static constexpr int small_items = Elem<K, V>::small_items * (kLeafThreads / THREADS);
  static constexpr int large_items = Elem<K, V>::large_items * (kLeafThreads / THREADS);
  template <int ITEMS>
  using Radix = cub::BlockRadixSort<typename Elem<K, V>::Ordered, THREADS, ITEMS,
                                    std::conditional_t<Elem<K, V>::carries, V, cub::NullType>>;
  using Small = Radix<small_items>;
  using Large = Radix<large_items>;
};

// Shared state of one leaf radix sort: either sorter's storage, and the part's key bounds.
template <typename K, typename V, int THREADS = kLeafThreads>
struct RadixLeafShared {
  union {
    typename LeafSort<K, V, THREADS>::Small::TempStorage small;
    typename LeafSort<K, V, THREADS>::Large::TempStorage large;
  } radix;
  typename Elem<K, V>::Ordered bounds[2];  // smallest and largest ordered key of a radix-sorted part
};

// Slots of a warp's keys, one row of I items at a time (bk < 0: no key): the lanes whose
// keys share a bucket (__match_any_sync) take consecutive slots from one atomic on the
// bucket's shared cursor. All matches, then all atomics, then all shuffles: I independent
// chains in flight. Every lane of the warp must call it.
template <int I>
__device__ __forceinline__ void warp_claim(const int (&bk)[I], u32* cursor, u32 (&slot)[I]) {
  const unsigned lt = lanemask_lt();
  const int lane = threadIdx.x & 31;
  unsigned peers[I];
  u32 base[I];
#pragma unroll
  for (int it = 0; it < I; ++it) peers[it] = __match_any_sync(0xffffffffu, bk[it]);
#pragma unroll
  for (int it = 0; it < I; ++it) {
    base[it] = 0;
    if (bk[it] >= 0 && lane == __ffs(peers[it]) - 1) base[it] = atomicAdd(&cursor[bk[it]], u32(__popc(peers[it])));
  }
#pragma unroll
  for (int it = 0; it < I; ++it)
    slot[it] = __shfl_sync(0xffffffffu, base[it], __ffs(peers[it]) - 1) + u32(__popc(peers[it] & lt));
}

// Whether this block is the last of its grid to finish (all blocks' atomics visible).
inline __device__ bool last_block(unsigned* done, int& flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) flag = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  const bool last = flag;
  if (last) __threadfence();
  return last;
}

// The least (Max: greatest) x of the warp's lanes, in every lane.
template <bool Max, typename U>
__device__ __forceinline__ U warp_extreme(U x) {
  if constexpr (sizeof(U) == 4) {
    return Max ? __reduce_max_sync(0xffffffffu, x) : __reduce_min_sync(0xffffffffu, x);
  } else {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      const U y = __shfl_xor_sync(0xffffffffu, static_cast<unsigned long long>(x), d);
      x = (Max ? y > x : y < x) ? y : x;
    }
    return x;
  }
}
template <typename U>
__device__ __forceinline__ U warp_min(U x) {
  return warp_extreme<false>(x);
}
template <typename U>
__device__ __forceinline__ U warp_max(U x) {
  return warp_extreme<true>(x);
}
__device__ __forceinline__ void shared_min(std::uint32_t* at, std::uint32_t x) { atomicMin(at, x); }
__device__ __forceinline__ void shared_max(std::uint32_t* at, std::uint32_t x) { atomicMax(at, x); }
__device__ __forceinline__ void shared_min(std::uint64_t* at, std::uint64_t x) {
  atomicMin(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(x));
}
__device__ __forceinline__ void shared_max(std::uint64_t* at, std::uint64_t x) {
  atomicMax(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(x));
}

// Every thread, with the smallest (lo) and largest (hi) of its keys: the block's into
// bounds[0] and bounds[1]. Ends with a barrier; bounds must be free when it starts.
template <typename U>
__device__ void block_bounds(U lo, U hi, U* bounds) {
  if (threadIdx.x == 0) {
    bounds[0] = ~U{0};
    bounds[1] = 0;
  }
  lo = warp_min(lo);
  hi = warp_max(hi);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) {
    shared_min(&bounds[0], lo);
    shared_max(&bounds[1], hi);
  }
  __syncthreads();
}

// Up to ITEMS * THREADS elements (a block of THREADS threads): load, block radix sort,
// striped store to out (vout).
// The sort looks only at the bits of the keys' ordered form below the common prefix of the
// smallest and largest (a part between two pivots spans a narrow range: 3 of 8 four-bit
// passes for 4096 uniform u32 keys below 2^24), and pads with the largest key, which has the
// same bits as a real one. Keys only: loads are striped (a sort: the input arrangement does
// not matter to the keys). With values a pad must not sort before a real largest key, whose
// value it would displace: loads are blocked, so pads come last in the sort's (stable) input
// order and land past len.
template <int ITEMS, int THREADS, typename Sorter, typename K, typename V>
__device__ void radix_sort_to(const K* src, const V* vsrc, u64 len, K* out, V* vout,
                              typename Sorter::TempStorage& temp, typename Elem<K, V>::Ordered* bounds) {
  using U = typename Elem<K, V>::Ordered;
  constexpr bool carries = Elem<K, V>::carries;
  constexpr U kAllOnes = ~U{0};
  U keys[ITEMS];
  V vals[ITEMS];
  U lo = kAllOnes, hi = 0;
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = carries ? u32(threadIdx.x) * ITEMS + it : u32(it) * THREADS + threadIdx.x;
    if (i < len) {
      keys[it] = KeyTraits<K>::ordered(src[i]);
      if constexpr (carries) vals[it] = vsrc[i];
      lo = keys[it] < lo ? keys[it] : lo;
      hi = keys[it] > hi ? keys[it] : hi;
    }
  }
  block_bounds(lo, hi, bounds);
  const int bits = differing_low_bits(bounds[0], bounds[1]);
  if (bits > 0) {  // else all keys are equal and need no sort
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const u32 i = carries ? u32(threadIdx.x) * ITEMS + it : u32(it) * THREADS + threadIdx.x;
      if (i >= len) keys[it] = bounds[1];
    }
    if constexpr (carries) Sorter(temp).SortBlockedToStriped(keys, vals, 0, bits);
    else Sorter(temp).SortBlockedToStriped(keys, 0, bits);
  } else if constexpr (carries) {
    // All keys equal and no pads written: each element goes back to its (blocked) load
    // position, as the striped store below would read unset pad registers.
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const u32 i = u32(threadIdx.x) * ITEMS + it;
      if (i < len) {
        out[i] = KeyTraits<K>::from_ordered(keys[it]);
        vout[i] = vals[it];
      }
    }
    __syncthreads();
    return;
  }
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = u32(it) * THREADS + threadIdx.x;
    if (i < len) {
      out[i] = KeyTraits<K>::from_ordered(keys[it]);
      if constexpr (carries) vout[i] = vals[it];
    }
  }
  __syncthreads();  // the temporary storage and bounds are reused by the next sort
}

template <typename K, typename V, int THREADS>
__device__ void radix_finish(const K* src, const V* vsrc, u64 len, K* out, V* vout,
                             RadixLeafShared<K, V, THREADS>& sh) {
  using Sort = LeafSort<K, V, THREADS>;
  if (len <= u64(Sort::small_items) * THREADS)
    radix_sort_to<Sort::small_items, THREADS, typename Sort::Small>(src, vsrc, len, out, vout, sh.radix.small,
                                                                    sh.bounds);
  else
    radix_sort_to<Sort::large_items, THREADS, typename Sort::Large>(src, vsrc, len, out, vout, sh.radix.large,
                                                                    sh.bounds);
}


// The same copy by one block (a refused copy grid, a leaf block's part).
template <typename K, typename V>
__device__ void block_copy(const K* from, const V* vfrom, K* to, V* vto, u64 len) {
  const BlockGroup g{int(blockDim.x)};
  group_copy(g, from, to, 0, len);
  if constexpr (Elem<K, V>::carries) group_copy(g, vfrom, vto, 0, len);
}

// Finishes segment s inside the block whatever its size (a launch or the leaf list refused
// it): bitonic sort in place, then into buffer 0.
template <typename K, typename V>
__device__ void block_finish(ElemBuffers<K, V> b, Segment s) {
  V* vals = nullptr;
  if constexpr (Elem<K, V>::carries) vals = b.val[s.buf] + s.begin;
  block_bitonic_sort(b.buf[s.buf] + s.begin, s.len, vals);
  if (s.buf != 0) {
    V* vto = nullptr;
    if constexpr (Elem<K, V>::carries) vto = b.val[0] + s.begin;
    block_copy(b.buf[1] + s.begin, static_cast<const V*>(vals), b.buf[0] + s.begin, vto, s.len);
  }
  __syncthreads();
}

// The tile's first tl elements of src, striped over the block's threads.
template <typename T, int I>
__device__ void load_striped(const T* src, u64 tl, T (&x)[I]) {
#pragma unroll
  for (int it = 0; it < I; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    if (i < tl) x[it] = src[i];
  }
}

}  // namespace sb::qs
