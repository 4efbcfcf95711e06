// quick-fast: how far DP quicksort goes on Hopper (beyond seed 002). The recursion is the
// paper's P-Quick with a K-way Direct-Prefix split (a count pass, then a placing pass), but
//  - a segment above cfg.grid_above keys is split by grids of one tile (kTile keys) per
//    block: a count grid adds the bucket sizes, its last block launches the placing grid,
//    whose last block starts the parts' own grid splits (CDP2 has no device-side wait, so
//    the last block to finish carries the recursion on). Each block loads its whole tile
//    before it ranks a key, and ranks with one __match_any_sync and one shared-memory atomic
//    per group of equal-bucket keys in a warp, instead of one ballot per bucket;
//  - a part of up to cfg.grid_above keys is not launched: it goes to a leaf list in the
//    workspace. One leaf grid, enqueued by the host after the DP tree (the stream starts it
//    once the tree and all its descendants are done), runs as many blocks as the GPU holds
//    at once; each block takes the next leaf and sorts it alone without launching: parts
//    above cfg.smem_keys are split in global memory, smaller ones are split into shared
//    memory (two buffers of cfg.smem_keys keys) and on in shared memory, and parts of up to
//    kRadixMax keys are finished by CUB's BlockRadixSort (the paper's conclusion: replace the
//    selection sort by a more parallel sort). Device launches hardly overlap (1.3-2.7 us
//    each for merge-dp, docs/quicksort.md), so launches are kept for big parts.
// Every launch that the device refuses (nesting depth, pending-launch buffer, record pool)
// sends its segment to the leaf list instead (the leaf grid sorts a part of any size); a
// full list falls back to a block-wide bitonic sort in place, so a sort never fails.
#include <cub/block/block_radix_sort.cuh>
#include <stdexcept>

#include "quicksort.hpp"
#include "quicksort_device.cuh"
#include "sortbench/cuda_check.hpp"

namespace sb::qs {
namespace {

using u32 = std::uint32_t;
using ull = unsigned long long;

constexpr int kGridThreads = 256;
constexpr int kGridItems = 16;
constexpr u64 kTile = u64(kGridThreads) * kGridItems;  // keys per block of a grid split
constexpr int kLeafThreads = 512;
constexpr int kLeafMinBlocks = 2;   // register budget: two leaf blocks per SM where shared memory allows
constexpr int kSplitItems = 8;      // keys per thread loaded before a leaf split ranks them
constexpr int kSmallItems = 2;      // BlockRadixSort of up to 1024 keys
constexpr int kLargeItems = 8;      // and of up to kRadixMax
constexpr u64 kRadixMax = u64(kLeafThreads) * kLargeItems;
constexpr int kOversampling = 8;
constexpr int kMaxSamples = sample_count(kMaxPivots, kOversampling);
constexpr int kDeepestChild = kMaxNestingDepth - 2;
// A grid split started at depth d launches its count grid at d+1, its placing grid at d+2
// and equal-key copies at d+3; the parts' splits start at d+2.
constexpr int kGridLevelsMax = (kDeepestChild - 3) / 2 + 1;
constexpr int kStackMax = 64;  // parts a leaf block still owes (depth-first)
static_assert(kMaxSamples <= kGridThreads && kMaxSamples <= kLeafThreads, "one thread per sample");

// One grid-wide split: its segment and the bucket totals the blocks add up. Every block
// picks the same pivots from the same samples, so none are stored.
struct GridSplit {
  Segment seg;
  int np;
  int depth;  // of the grid that started it
  unsigned blocks_done;
  ull count[kMaxBuckets];
  ull cursor[kMaxBuckets];
};

// Workspace: counters, then the grid-split records, then the leaf list.
struct PoolHeader {
  ull used;        // records taken
  ull leaves;      // leaves appended
  ull leaf_taken;  // leaves claimed by the leaf grid's blocks
};

struct Pool {
  GridSplit* records;
  PoolHeader* head;
  ull capacity;
  Segment* leaves;
  ull leaf_capacity;
};

struct FastConfig {
  int arity;
  u64 grid_above;  // segments above this many keys are split by grids
  u64 smem_keys;   // leaf parts up to this many keys are split in shared memory
};

template <typename T>
using SmallRadix = cub::BlockRadixSort<T, kLeafThreads, kSmallItems>;
template <typename T>
using LargeRadix = cub::BlockRadixSort<T, kLeafThreads, kLargeItems>;

template <typename T>
struct PivotState {
  T samples[kMaxSamples];
  T sorted[kMaxSamples];
  T pivots[kMaxPivots];
};

// Shared state of the grid kernels: small, so that many blocks fit on an SM.
template <typename T>
struct GridShared {
  PivotState<T> ps;
  u32 count[kMaxBuckets];
  ull base[kMaxBuckets];
  Segment child[kMaxBuckets];
  Segment copy[kMaxBuckets];
  int failed[kMaxBuckets];
  int copy_failed[kMaxBuckets];
  int nchild, ncopy;
  int last, fallback;
};

// A part a leaf block owes: where 0/1 = global buffer, 2/3 = shared-memory buffer A/B.
struct Part {
  u64 begin;
  u64 len;
  int where;
};

template <typename T>
struct LeafShared {
  union {
    typename SmallRadix<T>::TempStorage small;
    typename LargeRadix<T>::TempStorage large;
  } radix;
  PivotState<T> ps;
  u32 count[kMaxBuckets];
  u32 cursor[kMaxBuckets];
  u32 bounds[2];  // smallest and largest radix_order_bits of a radix-sorted part
  Part stack[kStackMax];
  int top;
  ull leaf;
};

template <typename T>
__global__ void copy_kernel(const T* from, T* to, u64 begin, u64 len) {
  for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < len; i += u64(gridDim.x) * blockDim.x)
    to[begin + i] = from[begin + i];
}

// Every thread of the block: the np pivots of src[0, len) (pivots_from_samples, with one
// thread ranking each sample). Ends with a barrier.
template <typename T>
__device__ void block_pivots(const T* src, u64 len, int np, PivotState<T>& ps) {
  const int ns = sample_count(np, kOversampling);
  const int t = threadIdx.x;
  if (t < ns) ps.samples[t] = src[sample_position(0, len, t, ns)];
  __syncthreads();
  if (t < ns) ps.sorted[sample_rank(ps.samples, ns, t)] = ps.samples[t];
  __syncthreads();
  if (t < np) ps.pivots[t] = ps.sorted[pivot_sample(t, ns, np)];
  __syncthreads();
}

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
__device__ bool last_block(unsigned* done, int& flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) flag = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  const bool last = flag;
  if (last) __threadfence();
  return last;
}

// One thread: appends a segment to the leaf list; false when the list is full.
__device__ bool append_leaf(Pool pool, Segment s) {
  const ull at = atomicAdd(&pool.head->leaves, 1ull);
  if (at >= pool.leaf_capacity) return false;
  pool.leaves[at] = s;
  return true;
}

template <typename T>
__global__ void __launch_bounds__(kGridThreads, 2) grid_count_kernel(Buffers<T> b, GridSplit* rec, Pool pool, FastConfig cfg);
template <typename T>
__global__ void __launch_bounds__(kGridThreads, 2) grid_place_kernel(Buffers<T> b, GridSplit* rec, Pool pool, FastConfig cfg);

// One thread: takes a record and launches the count grid of segment s. False if refused.
template <typename T>
__device__ bool start_grid_split(Buffers<T> b, Segment s, int depth, Pool pool, FastConfig cfg) {
  const ull idx = atomicAdd(&pool.head->used, 1ull);
  if (idx >= pool.capacity) return false;
  GridSplit* rec = pool.records + idx;
  rec->seg = s;
  rec->np = cfg.arity - 1;
  rec->depth = depth;
  rec->blocks_done = 0;
  for (int k = 0; k < kMaxBuckets; ++k) rec->count[k] = rec->cursor[k] = 0;
  const unsigned blocks = unsigned((s.len + kTile - 1) / kTile);
  grid_count_kernel<<<blocks, kGridThreads, 0, cudaStreamFireAndForget>>>(b, rec, pool, cfg);
  return cudaGetLastError() == cudaSuccess;
}

// This block's tile of segment s: its keys (striped) and their buckets (-1: past the end).
// The keys are requested before the pivots are read, so their loads overlap the sampling.
template <typename T>
__device__ void load_tile(Buffers<T> b, Segment s, int np, PivotState<T>& ps, T (&x)[kGridItems],
                          int (&bk)[kGridItems]) {
  const u64 tb = blockIdx.x * kTile;
  const u64 tl = s.len - tb < kTile ? s.len - tb : kTile;
  const T* src = b.buf[s.buf] + s.begin;
#pragma unroll
  for (int it = 0; it < kGridItems; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    if (i < tl) x[it] = src[tb + i];
  }
  block_pivots(src, s.len, np, ps);
#pragma unroll
  for (int it = 0; it < kGridItems; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    bk[it] = i < tl ? bucket_of(x[it], ps.pivots, np) : -1;
  }
}

// The start of both grid passes: this block's tile loaded, its buckets known, and every
// key ranked inside the tile (slot) with the tile's bucket sizes in sh.count.
template <typename T>
__device__ void rank_tile(Buffers<T> b, Segment s, int np, GridShared<T>& sh, T (&x)[kGridItems],
                          int (&bk)[kGridItems], u32 (&slot)[kGridItems]) {
  if (threadIdx.x < bucket_count(np)) sh.count[threadIdx.x] = 0;
  load_tile(b, s, np, sh.ps, x, bk);
  warp_claim(bk, sh.count, slot);
  __syncthreads();
}

template <typename T>
__global__ void __launch_bounds__(kGridThreads, 2) grid_count_kernel(Buffers<T> b, GridSplit* rec, Pool pool, FastConfig cfg) {
  __shared__ GridShared<T> sh;
  const Segment s = rec->seg;
  const int np = rec->np, nb = bucket_count(np);
  T x[kGridItems];
  int bk[kGridItems];
  u32 slot[kGridItems];
  rank_tile(b, s, np, sh, x, bk, slot);
  if (threadIdx.x < nb && sh.count[threadIdx.x] != 0) atomicAdd(&rec->count[threadIdx.x], ull(sh.count[threadIdx.x]));
  if (!last_block(&rec->blocks_done, sh.last)) return;
  if (threadIdx.x == 0) {
    volatile ull* count = rec->count;
    u64 at = s.begin;
    for (int k = 0; k < nb; ++k) {
      rec->cursor[k] = at;
      at += count[k];
    }
    rec->blocks_done = 0;
    grid_place_kernel<<<gridDim.x, kGridThreads, 0, cudaStreamFireAndForget>>>(b, rec, pool, cfg);
    sh.fallback = cudaGetLastError() != cudaSuccess && !append_leaf(pool, s);
  }
  __syncthreads();
  if (sh.fallback) block_finish(b, s);
}

// The last placing block: equal-key buckets to buf[0] (a copy grid when big), the other
// parts to their own grid split (above cfg.grid_above) or to the leaf list.
template <typename T>
__device__ void hand_out_parts(Buffers<T> b, const GridSplit* rec, Pool pool, FastConfig cfg, GridShared<T>& sh) {
  const Segment s = rec->seg;
  const int nb = bucket_count(rec->np), to = 1 - s.buf, depth = rec->depth + 2, t = threadIdx.x;
  if (t == 0) {
    sh.nchild = sh.ncopy = 0;
    const volatile ull* count = rec->count;
    u64 at = s.begin;
    for (int k = 0; k < nb; ++k) {
      const Segment piece{at, count[k], to};
      at += piece.len;
      if (piece.len == 0) continue;
      if (!is_equal_bucket(k)) sh.child[sh.nchild++] = piece;
      else if (to != 0) sh.copy[sh.ncopy++] = piece;
    }
  }
  __syncthreads();
  if (t < sh.ncopy) {
    const Segment c = sh.copy[t];
    sh.copy_failed[t] = 1;
    if (c.len > kTile && depth + 1 <= kDeepestChild) {
      const unsigned blocks = unsigned((c.len + kTile - 1) / kTile);
      copy_kernel<<<blocks, kGridThreads, 0, cudaStreamFireAndForget>>>(b.buf[1], b.buf[0], c.begin, c.len);
      sh.copy_failed[t] = cudaGetLastError() != cudaSuccess;
    }
  }
  if (t < sh.nchild) {
    const Segment c = sh.child[t];
    bool done = false;
    if (c.len > cfg.grid_above && depth + 3 <= kDeepestChild) done = start_grid_split(b, c, depth, pool, cfg);
    if (!done) done = append_leaf(pool, c);
    sh.failed[t] = !done;
  }
  __syncthreads();
  for (int i = 0; i < sh.ncopy; ++i)
    if (sh.copy_failed[i]) group_copy(BlockGroup{int(blockDim.x)}, b.buf[1], b.buf[0], sh.copy[i].begin, sh.copy[i].len);
  for (int i = 0; i < sh.nchild; ++i)
    if (sh.failed[i]) block_finish(b, sh.child[i]);
  __syncthreads();
}

template <typename T>
__global__ void __launch_bounds__(kGridThreads, 2) grid_place_kernel(Buffers<T> b, GridSplit* rec, Pool pool, FastConfig cfg) {
  __shared__ GridShared<T> sh;
  const Segment s = rec->seg;
  const int np = rec->np, nb = bucket_count(np);
  T x[kGridItems];
  int bk[kGridItems];
  u32 slot[kGridItems];
  rank_tile(b, s, np, sh, x, bk, slot);
  if (threadIdx.x < nb && sh.count[threadIdx.x] != 0)
    sh.base[threadIdx.x] = atomicAdd(&rec->cursor[threadIdx.x], ull(sh.count[threadIdx.x]));
  __syncthreads();
  T* dst = b.buf[1 - s.buf];
#pragma unroll
  for (int it = 0; it < kGridItems; ++it)
    if (bk[it] >= 0) dst[sh.base[bk[it]] + slot[it]] = x[it];
  if (!last_block(&rec->blocks_done, sh.last)) return;
  hand_out_parts(b, rec, pool, cfg, sh);
}

// The whole input's first grid split, launched by the host (depth 0).
template <typename T>
__global__ void root_kernel(Buffers<T> b, u64 n, Pool pool, FastConfig cfg) {
  __shared__ int fallback;
  const Segment s{0, n, 0};
  if (threadIdx.x == 0) fallback = !start_grid_split(b, s, 0, pool, cfg) && !append_leaf(pool, s);
  __syncthreads();
  if (fallback) block_finish(b, s);
}

// ---- the leaf grid ----

// Keys of part p: a global buffer, or shared-memory buffer A/B whose index 0 is `origin`.
template <typename T>
__device__ T* part_keys(Buffers<T> b, T* smem, u64 smem_keys, u64 origin, const Part& p) {
  return p.where < 2 ? b.buf[p.where] + p.begin : smem + u64(p.where - 2) * smem_keys + (p.begin - origin);
}

// Up to ITEMS * kLeafThreads keys: striped load, block radix sort, striped store to out.
// The sort looks only at the bits below the common prefix of the smallest and largest key
// (a part between two pivots spans a narrow range: 3 of 8 four-bit passes for 4096 uniform
// keys below 2^24), and pads with the largest key, which has the same bits as a real one.
template <int ITEMS, typename Sorter, typename T>
__device__ void radix_sort_to(const T* src, u64 len, T* out, typename Sorter::TempStorage& temp, u32* bounds) {
  if (threadIdx.x == 0) {
    bounds[0] = 0xFFFFFFFFu;
    bounds[1] = 0;
  }
  T keys[ITEMS];
  u32 lo = 0xFFFFFFFFu, hi = 0;
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = u32(it) * kLeafThreads + threadIdx.x;
    if (i < len) {
      keys[it] = src[i];
      const u32 r = radix_order_bits(keys[it]);
      lo = r < lo ? r : lo;
      hi = r > hi ? r : hi;
    }
  }
  lo = __reduce_min_sync(0xffffffffu, lo);
  hi = __reduce_max_sync(0xffffffffu, hi);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&bounds[0], lo);
    atomicMax(&bounds[1], hi);
  }
  __syncthreads();
  const int bits = differing_low_bits(bounds[0], bounds[1]);
  if (bits > 0) {  // else all keys are equal and stay where they are
    const T pad = from_radix_order_bits<T>(bounds[1]);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it)
      if (u32(it) * kLeafThreads + threadIdx.x >= len) keys[it] = pad;
    Sorter(temp).SortBlockedToStriped(keys, 0, bits);  // a sort: the input arrangement does not matter
  }
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = u32(it) * kLeafThreads + threadIdx.x;
    if (i < len) out[i] = keys[it];
  }
  __syncthreads();  // the temporary storage and bounds are reused by the next sort
}

template <typename T>
__device__ void radix_finish(const T* src, u64 len, T* out, LeafShared<T>& sh) {
  if (len <= u64(kSmallItems) * kLeafThreads)
    radix_sort_to<kSmallItems, SmallRadix<T>>(src, len, out, sh.radix.small, sh.bounds);
  else
    radix_sort_to<kLargeItems, LargeRadix<T>>(src, len, out, sh.radix.large, sh.bounds);
}

// Direct-Prefix split of src[0, len) into dst[0, len) by the whole block (global or shared
// memory on either side): a counting pass, the offsets, a placing pass. Leaves the bucket
// sizes in sh.count.
template <typename T>
__device__ void leaf_split(const T* src, T* dst, u64 len, int np, LeafShared<T>& sh) {
  const int nb = bucket_count(np);
  if (threadIdx.x < nb) sh.count[threadIdx.x] = 0;
  block_pivots(src, len, np, sh.ps);
  constexpr u64 step = u64(kLeafThreads) * kSplitItems;
  for (int pass = 0; pass < 2; ++pass) {
    u32* cursor = pass == 0 ? sh.count : sh.cursor;
    for (u64 c = 0; c < len; c += step) {
      T x[kSplitItems];
      int bk[kSplitItems];
      u32 slot[kSplitItems];
#pragma unroll
      for (int it = 0; it < kSplitItems; ++it) {
        const u64 i = c + u64(it) * kLeafThreads + threadIdx.x;
        if (i < len) x[it] = src[i];
      }
#pragma unroll
      for (int it = 0; it < kSplitItems; ++it) {
        const u64 i = c + u64(it) * kLeafThreads + threadIdx.x;
        bk[it] = i < len ? bucket_of(x[it], sh.ps.pivots, np) : -1;
      }
      warp_claim(bk, cursor, slot);
      if (pass == 1) {
#pragma unroll
        for (int it = 0; it < kSplitItems; ++it)
          if (bk[it] >= 0) dst[slot[it]] = x[it];
      }
    }
    __syncthreads();
    if (pass == 0) {
      if (threadIdx.x == 0) {
        u32 at = 0;
        for (int k = 0; k < nb; ++k) {
          sh.cursor[k] = at;
          at += sh.count[k];
        }
      }
      __syncthreads();
    }
  }
}

// Bitonic sort of a[0, len) in place, then to out: a part that found the stack full.
template <typename T>
__device__ void leaf_bitonic_finish(T* a, u64 len, T* out) {
  block_bitonic_sort(a, len);
  if (a != out) group_copy(BlockGroup{int(blockDim.x)}, a, out, 0, len);
  __syncthreads();
}

// Sorts segment s with this block alone into buf[0]: depth-first from a stack of parts.
// A global part of up to cfg.smem_keys keys is split into shared buffer A; its descendants
// stay in shared memory (A <-> B) until BlockRadixSort writes them out. A global part is only
// popped once no shared-memory part is owed (they lie above it on the stack), so shared
// index 0 can stand for the latest such part's first key (`origin`).
template <typename T>
__device__ void leaf_sort(Buffers<T> b, Segment s, FastConfig cfg, T* smem, LeafShared<T>& sh) {
  if (s.len <= kRadixMax) {
    radix_finish(b.buf[s.buf] + s.begin, s.len, b.buf[0] + s.begin, sh);
    return;
  }
  const int np = cfg.arity - 1, nb = bucket_count(np);
  if (threadIdx.x == 0) {
    sh.stack[0] = Part{s.begin, s.len, s.buf};
    sh.top = 1;
  }
  __syncthreads();
  u64 origin = 0;
  while (sh.top > 0) {
    const Part c = sh.stack[sh.top - 1];
    int top = sh.top - 1;
    __syncthreads();
    const T* src = part_keys(b, smem, cfg.smem_keys, origin, c);
    if (c.len <= kRadixMax) {
      if (threadIdx.x == 0) sh.top = top;
      radix_finish(src, c.len, b.buf[0] + c.begin, sh);
      continue;
    }
    int to;
    if (c.where >= 2) {
      to = 5 - c.where;
    } else if (c.len <= cfg.smem_keys) {
      to = 2;
      origin = c.begin;
    } else {
      to = 1 - c.where;
    }
    T* dst = part_keys(b, smem, cfg.smem_keys, origin, Part{c.begin, c.len, to});
    leaf_split(src, dst, c.len, np, sh);
    u64 at = c.begin;
    for (int k = 0; k < nb; ++k) {
      const Part piece{at, sh.count[k], to};
      at += piece.len;
      if (piece.len == 0) continue;
      T* keys = part_keys(b, smem, cfg.smem_keys, origin, piece);
      if (is_equal_bucket(k)) {
        if (to != 0) group_copy(BlockGroup{int(blockDim.x)}, keys, b.buf[0] + piece.begin, 0, piece.len);
      } else if (top < kStackMax) {
        if (threadIdx.x == 0) sh.stack[top] = piece;
        ++top;
      } else {
        leaf_bitonic_finish(keys, piece.len, b.buf[0] + piece.begin);
      }
    }
    if (threadIdx.x == 0) sh.top = top;
    __syncthreads();
  }
}

// The leaf grid (host-launched, no device launches): each block takes the next leaf of the
// list and sorts it alone; with only.len > 0, one block sorts `only` (small inputs).
template <typename T>
__global__ void __launch_bounds__(kLeafThreads, kLeafMinBlocks) leaf_kernel(Buffers<T> b, Pool pool, FastConfig cfg, Segment only) {
  extern __shared__ __align__(16) unsigned char leaf_smem[];
  __shared__ LeafShared<T> sh;
  T* smem = reinterpret_cast<T*>(leaf_smem);
  if (only.len > 0) {
    leaf_sort(b, only, cfg, smem, sh);
    return;
  }
  const ull count = pool.head->leaves < pool.leaf_capacity ? pool.head->leaves : pool.leaf_capacity;
  for (;;) {
    if (threadIdx.x == 0) sh.leaf = atomicAdd(&pool.head->leaf_taken, 1ull);
    __syncthreads();
    const ull leaf = sh.leaf;
    __syncthreads();  // sh.leaf is rewritten for the next leaf
    if (leaf >= count) return;
    leaf_sort(b, pool.leaves[leaf], cfg, smem, sh);
  }
}

}  // namespace

namespace {

// Grid splits the tree may start: disjoint segments above grid_above per level.
std::uint64_t fast_record_capacity(std::uint64_t n, int grid_log2) {
  return kGridLevelsMax * ((n >> grid_log2) + 1);
}
// Each grid split hands out at most kMaxArity parts (its segment instead, when its placing
// grid is refused), the root one segment, so the leaf list never overflows.
std::uint64_t fast_leaf_capacity(std::uint64_t n, int grid_log2) {
  return (fast_record_capacity(n, grid_log2) + 1) * kMaxArity;
}
constexpr std::size_t kHeaderBytes = 256;
static_assert(sizeof(PoolHeader) <= kHeaderBytes);

// Dynamic shared memory of a leaf block: buffers A and B. Raises the kernel's limit once.
template <typename T>
std::size_t leaf_smem_bytes(u64 smem_keys) {
  const std::size_t bytes = 2 * smem_keys * sizeof(T);
  static std::size_t allowed = 0;
  if (bytes > allowed) {
    SB_CUDA_CHECK(cudaFuncSetAttribute(leaf_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    allowed = bytes;
  }
  return bytes;
}

// Blocks of the leaf grid: as many as the GPU runs at once (queried once per size).
template <typename T>
unsigned leaf_grid_blocks(int smem_log2, std::size_t smem_bytes) {
  static unsigned blocks[32] = {};
  if (blocks[smem_log2] == 0) {
    int device = 0, sms = 0, per_sm = 0;
    SB_CUDA_CHECK(cudaGetDevice(&device));
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, leaf_kernel<T>, kLeafThreads, smem_bytes));
    blocks[smem_log2] = unsigned(sms) * unsigned(per_sm > 0 ? per_sm : 1);
  }
  return blocks[smem_log2];
}

}  // namespace

std::size_t fast_workspace_bytes(std::uint64_t n, int grid_log2) {
  return kHeaderBytes + fast_record_capacity(n, grid_log2) * sizeof(GridSplit) +
         fast_leaf_capacity(n, grid_log2) * sizeof(Segment);
}

template <typename T>
void launch_quick_fast(T* const keys[2], std::uint64_t n, const FastOptions& opt, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream) {
  if (n < 2) return;
  if (workspace_bytes < fast_workspace_bytes(n, opt.grid_log2))
    throw std::invalid_argument("quick-fast: workspace too small");
  const FastConfig cfg{opt.arity, u64(1) << opt.grid_log2, u64(1) << opt.smem_log2};
  Pool pool;
  pool.head = static_cast<PoolHeader*>(workspace);
  pool.records = reinterpret_cast<GridSplit*>(static_cast<char*>(workspace) + kHeaderBytes);
  pool.capacity = fast_record_capacity(n, opt.grid_log2);
  pool.leaves = reinterpret_cast<Segment*>(pool.records + pool.capacity);
  pool.leaf_capacity = fast_leaf_capacity(n, opt.grid_log2);
  const Buffers<T> b{{keys[0], keys[1]}};
  const std::size_t smem = leaf_smem_bytes<T>(cfg.smem_keys);
  if (n <= cfg.grid_above) {
    leaf_kernel<<<1, kLeafThreads, smem, stream>>>(b, pool, cfg, Segment{0, n, 0});
    SB_CUDA_CHECK_LAUNCH();
    return;
  }
  SB_CUDA_CHECK(cudaMemsetAsync(pool.head, 0, sizeof *pool.head, stream));
  root_kernel<<<1, kGridThreads, 0, stream>>>(b, n, pool, cfg);
  SB_CUDA_CHECK_LAUNCH();
  // The stream starts the leaf grid once the whole DP tree above it is complete.
  leaf_kernel<<<leaf_grid_blocks<T>(opt.smem_log2, smem), kLeafThreads, smem, stream>>>(b, pool, cfg, Segment{0, 0, 0});
  SB_CUDA_CHECK_LAUNCH();
}

template void launch_quick_fast<std::uint32_t>(std::uint32_t* const[2], std::uint64_t, const FastOptions&, void*,
                                               std::size_t, cudaStream_t);
template void launch_quick_fast<std::int32_t>(std::int32_t* const[2], std::uint64_t, const FastOptions&, void*,
                                              std::size_t, cudaStream_t);
template void launch_quick_fast<float>(float* const[2], std::uint64_t, const FastOptions&, void*, std::size_t,
                                       cudaStream_t);

}  // namespace sb::qs
