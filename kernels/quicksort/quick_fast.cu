// quick-fast: how far DP quicksort goes on Hopper (beyond seed 002). The recursion is the
// paper's P-Quick with a K-way Direct-Prefix split (a count pass, then a placing pass), but
//  - a segment above cfg.grid_above keys is split by grids of one tile (Elem::tile keys) per
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
//    Elem::radix_max keys are finished by CUB's BlockRadixSort (the paper's conclusion: replace the
//    selection sort by a more parallel sort). Device launches hardly overlap (docs/quicksort.md),
//    so launches are kept for big parts.
// Every launch that the device refuses (nesting depth, pending-launch buffer, record pool)
// sends its segment to the leaf list instead (the leaf grid sorts a part of any size); a
// full list falls back to a block-wide bitonic sort in place, so a sort never fails.
// Every step is written over (key K, value V): a payload value moves with its key in every
// split, copy and sort (V = NoValue: keys only, no value code). Splits claim slots with
// atomics, so the sort is not stable. Tiles per thread and the leaf buffers shrink with the
// element's bytes (quicksort_index.hpp); leaf radix sorts sort the key's ordered form.
#include <stdexcept>
#include <type_traits>

#include "quicksort.hpp"
#include "quick_leaf.cuh"
#include "quicksort_device.cuh"
#include "sortbench/core/cuda_check.hpp"

namespace sb::qs {
namespace {

// Equal-key buckets above this many keys are copied by a grid of their own.
constexpr u64 kCopyGridAbove = 4096;
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

template <typename K, typename V>
struct LeafShared {
  RadixLeafShared<K, V> radix;
  PivotState<K> ps;
  u32 count[kMaxBuckets];
  u32 cursor[kMaxBuckets];
  Part stack[kStackMax];
  int top;
  ull leaf;
};

// Elements [begin, begin + len) from buffer 1 to buffer 0 (an equal-key bucket).
template <typename K, typename V>
__global__ void copy_kernel(ElemBuffers<K, V> b, u64 begin, u64 len) {
  for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < len; i += u64(gridDim.x) * blockDim.x) {
    b.buf[0][begin + i] = b.buf[1][begin + i];
    if constexpr (Elem<K, V>::carries) b.val[0][begin + i] = b.val[1][begin + i];
  }
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


// One thread: appends a segment to the leaf list; false when the list is full.
__device__ bool append_leaf(Pool pool, Segment s) {
  const ull at = atomicAdd(&pool.head->leaves, 1ull);
  if (at >= pool.leaf_capacity) return false;
  pool.leaves[at] = s;
  return true;
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads, 2) grid_count_kernel(ElemBuffers<K, V> b, GridSplit* rec, Pool pool,
                                                                     FastConfig cfg);
template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads, 2) grid_place_kernel(ElemBuffers<K, V> b, GridSplit* rec, Pool pool,
                                                                     FastConfig cfg);

// One thread: takes a record and launches the count grid of segment s. False if refused.
template <typename K, typename V>
__device__ bool start_grid_split(ElemBuffers<K, V> b, Segment s, int depth, Pool pool, FastConfig cfg) {
  const ull idx = atomicAdd(&pool.head->used, 1ull);
  if (idx >= pool.capacity) return false;
  GridSplit* rec = pool.records + idx;
  rec->seg = s;
  rec->np = cfg.arity - 1;
  rec->depth = depth;
  rec->blocks_done = 0;
  for (int k = 0; k < kMaxBuckets; ++k) rec->count[k] = rec->cursor[k] = 0;
  const unsigned blocks = unsigned((s.len + Elem<K, V>::tile - 1) / Elem<K, V>::tile);
  grid_count_kernel<<<blocks, kGridThreads, 0, cudaStreamFireAndForget>>>(b, rec, pool, cfg);
  return cudaGetLastError() == cudaSuccess;
}

// This block's tile of a segment of len elements: where it starts and how many it holds.
template <typename K, typename V>
__device__ u64 tile_begin() {
  return blockIdx.x * Elem<K, V>::tile;
}
template <typename K, typename V>
__device__ u64 tile_length(u64 len) {
  const u64 tb = tile_begin<K, V>();
  return len - tb < Elem<K, V>::tile ? len - tb : Elem<K, V>::tile;
}

// This block's tile of segment s: its keys (striped) and their buckets (-1: past the end).
// The keys are requested before the pivots are read, so their loads overlap the sampling.
template <typename K, typename V, int I>
__device__ void load_tile(ElemBuffers<K, V> b, Segment s, int np, PivotState<K>& ps, K (&x)[I], int (&bk)[I]) {
  const u64 tl = tile_length<K, V>(s.len);
  const K* src = b.buf[s.buf] + s.begin;
  load_striped(src + tile_begin<K, V>(), tl, x);
  block_pivots(src, s.len, np, ps);
#pragma unroll
  for (int it = 0; it < I; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    bk[it] = i < tl ? bucket_of(x[it], ps.pivots, np) : -1;
  }
}

// The values of this block's tile, in the same places as load_tile's keys.
template <typename K, typename V, int I>
__device__ void load_tile_values(ElemBuffers<K, V> b, Segment s, V (&y)[I]) {
  load_striped(b.val[s.buf] + s.begin + tile_begin<K, V>(), tile_length<K, V>(s.len), y);
}

// The start of both grid passes: this block's tile loaded, its buckets known, and every
// key ranked inside the tile (slot) with the tile's bucket sizes in sh.count.
template <typename K, typename V, int I>
__device__ void rank_tile(ElemBuffers<K, V> b, Segment s, int np, GridShared<K>& sh, K (&x)[I], int (&bk)[I],
                          u32 (&slot)[I]) {
  if (threadIdx.x < bucket_count(np)) sh.count[threadIdx.x] = 0;
  load_tile(b, s, np, sh.ps, x, bk);
  warp_claim(bk, sh.count, slot);
  __syncthreads();
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads, 2) grid_count_kernel(ElemBuffers<K, V> b, GridSplit* rec, Pool pool,
                                                                     FastConfig cfg) {
  constexpr int I = Elem<K, V>::grid_items;
  __shared__ GridShared<K> sh;
  const Segment s = rec->seg;
  const int np = rec->np, nb = bucket_count(np);
  K x[I];
  int bk[I];
  u32 slot[I];
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

// The last placing block: equal-key buckets to buffer 0 (a copy grid when big), the other
// parts to their own grid split (above cfg.grid_above) or to the leaf list.
template <typename K, typename V>
__device__ void hand_out_parts(ElemBuffers<K, V> b, const GridSplit* rec, Pool pool, FastConfig cfg,
                               GridShared<K>& sh) {
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
    if (c.len > kCopyGridAbove && depth + 1 <= kDeepestChild) {
      const unsigned blocks = unsigned((c.len + Elem<K, V>::tile - 1) / Elem<K, V>::tile);
      copy_kernel<<<blocks, kGridThreads, 0, cudaStreamFireAndForget>>>(b, c.begin, c.len);
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
    if (sh.copy_failed[i]) {
      const Segment c = sh.copy[i];
      V* vfrom = nullptr;
      V* vto = nullptr;
      if constexpr (Elem<K, V>::carries) {
        vfrom = b.val[1] + c.begin;
        vto = b.val[0] + c.begin;
      }
      block_copy(b.buf[1] + c.begin, static_cast<const V*>(vfrom), b.buf[0] + c.begin, vto, c.len);
    }
  for (int i = 0; i < sh.nchild; ++i)
    if (sh.failed[i]) block_finish(b, sh.child[i]);
  __syncthreads();
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads, 2) grid_place_kernel(ElemBuffers<K, V> b, GridSplit* rec, Pool pool,
                                                                     FastConfig cfg) {
  constexpr int I = Elem<K, V>::grid_items;
  __shared__ GridShared<K> sh;
  const Segment s = rec->seg;
  const int np = rec->np, nb = bucket_count(np);
  K x[I];
  V y[I];
  int bk[I];
  u32 slot[I];
  if constexpr (Elem<K, V>::carries) load_tile_values(b, s, y);  // in flight while the keys are ranked
  rank_tile(b, s, np, sh, x, bk, slot);
  if (threadIdx.x < nb && sh.count[threadIdx.x] != 0)
    sh.base[threadIdx.x] = atomicAdd(&rec->cursor[threadIdx.x], ull(sh.count[threadIdx.x]));
  __syncthreads();
  K* dst = b.buf[1 - s.buf];
#pragma unroll
  for (int it = 0; it < I; ++it)
    if (bk[it] >= 0) {
      dst[sh.base[bk[it]] + slot[it]] = x[it];
      if constexpr (Elem<K, V>::carries) b.val[1 - s.buf][sh.base[bk[it]] + slot[it]] = y[it];
    }
  if (!last_block(&rec->blocks_done, sh.last)) return;
  hand_out_parts(b, rec, pool, cfg, sh);
}

// The whole input's first grid split, launched by the host (depth 0).
template <typename K, typename V>
__global__ void root_kernel(ElemBuffers<K, V> b, u64 n, Pool pool, FastConfig cfg) {
  __shared__ int fallback;
  const Segment s{0, n, 0};
  if (threadIdx.x == 0) fallback = !start_grid_split(b, s, 0, pool, cfg) && !append_leaf(pool, s);
  __syncthreads();
  if (fallback) block_finish(b, s);
}

// ---- the leaf grid ----

// Elements of part p in one column (keys or values): a global buffer, or shared-memory
// buffer A/B (smem: A, then B, of smem_keys each) whose index 0 is `origin`.
template <typename T>
__device__ T* part_at(T* const global[2], T* smem, u64 smem_keys, u64 origin, const Part& p) {
  return p.where < 2 ? global[p.where] + p.begin : smem + u64(p.where - 2) * smem_keys + (p.begin - origin);
}

// A leaf block's view of its columns: the global buffers and its shared-memory buffers.
template <typename K, typename V>
struct LeafColumns {
  ElemBuffers<K, V> b;
  K* smem_keys_at;
  V* smem_vals_at;  // null without a payload
  u64 smem_keys;
  __device__ K* keys(u64 origin, const Part& p) const { return part_at(b.buf, smem_keys_at, smem_keys, origin, p); }
  __device__ V* vals(u64 origin, const Part& p) const {
    if constexpr (Elem<K, V>::carries) return part_at(b.val, smem_vals_at, smem_keys, origin, p);
    else return nullptr;
  }
};

// Direct-Prefix split of src[0, len) into dst[0, len) by the whole block (global or shared
// memory on either side), values vsrc to vdst with their keys: a counting pass, the
// offsets, a placing pass. Leaves the bucket sizes in sh.count.
template <typename K, typename V>
__device__ void leaf_split(const K* src, const V* vsrc, K* dst, V* vdst, u64 len, int np, LeafShared<K, V>& sh) {
  constexpr int I = Elem<K, V>::split_items;
  const int nb = bucket_count(np);
  if (threadIdx.x < nb) sh.count[threadIdx.x] = 0;
  block_pivots(src, len, np, sh.ps);
  constexpr u64 step = u64(kLeafThreads) * I;
  for (int pass = 0; pass < 2; ++pass) {
    u32* cursor = pass == 0 ? sh.count : sh.cursor;
    for (u64 c = 0; c < len; c += step) {
      K x[I];
      V y[I];
      int bk[I];
      u32 slot[I];
#pragma unroll
      for (int it = 0; it < I; ++it) {
        const u64 i = c + u64(it) * kLeafThreads + threadIdx.x;
        if (i < len) x[it] = src[i];
      }
      if constexpr (Elem<K, V>::carries) {
        if (pass == 1) {
#pragma unroll
          for (int it = 0; it < I; ++it) {
            const u64 i = c + u64(it) * kLeafThreads + threadIdx.x;
            if (i < len) y[it] = vsrc[i];
          }
        }
      }
#pragma unroll
      for (int it = 0; it < I; ++it) {
        const u64 i = c + u64(it) * kLeafThreads + threadIdx.x;
        bk[it] = i < len ? bucket_of(x[it], sh.ps.pivots, np) : -1;
      }
      warp_claim(bk, cursor, slot);
      if (pass == 1) {
#pragma unroll
        for (int it = 0; it < I; ++it)
          if (bk[it] >= 0) {
            dst[slot[it]] = x[it];
            if constexpr (Elem<K, V>::carries) vdst[slot[it]] = y[it];
          }
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

// Bitonic sort of a[0, len) (and v) in place, then to out (vout): a part that found the stack full.
template <typename K, typename V>
__device__ void leaf_bitonic_finish(K* a, V* v, u64 len, K* out, V* vout) {
  block_bitonic_sort(a, len, v);
  if (a != out) block_copy(a, static_cast<const V*>(v), out, vout, len);
  __syncthreads();
}

// Sorts segment s with this block alone into buffer 0: depth-first from a stack of parts.
// A global part of up to cfg.smem_keys elements is split into shared buffer A; its
// descendants stay in shared memory (A <-> B) until BlockRadixSort writes them out. A global
// part is only popped once no shared-memory part is owed (they lie above it on the stack), so
// shared index 0 can stand for the latest such part's first key (`origin`).
template <typename K, typename V>
__device__ void leaf_sort(const LeafColumns<K, V>& col, Segment s, FastConfig cfg, LeafShared<K, V>& sh) {
  const Part whole{s.begin, s.len, s.buf}, out_whole{s.begin, s.len, 0};
  if (s.len <= Elem<K, V>::radix_max) {
    radix_finish(col.keys(0, whole), static_cast<const V*>(col.vals(0, whole)), s.len, col.keys(0, out_whole),
                 col.vals(0, out_whole), sh.radix);
    return;
  }
  const int np = cfg.arity - 1, nb = bucket_count(np);
  if (threadIdx.x == 0) {
    sh.stack[0] = whole;
    sh.top = 1;
  }
  __syncthreads();
  u64 origin = 0;
  while (sh.top > 0) {
    const Part c = sh.stack[sh.top - 1];
    int top = sh.top - 1;
    __syncthreads();
    const K* src = col.keys(origin, c);
    const V* vsrc = col.vals(origin, c);
    const Part out{c.begin, c.len, 0};
    if (c.len <= Elem<K, V>::radix_max) {
      if (threadIdx.x == 0) sh.top = top;
      radix_finish(src, vsrc, c.len, col.keys(origin, out), col.vals(origin, out), sh.radix);
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
    const Part into{c.begin, c.len, to};
    leaf_split(src, vsrc, col.keys(origin, into), col.vals(origin, into), c.len, np, sh);
    u64 at = c.begin;
    for (int k = 0; k < nb; ++k) {
      const Part piece{at, sh.count[k], to};
      at += piece.len;
      if (piece.len == 0) continue;
      const Part piece_out{piece.begin, piece.len, 0};
      if (is_equal_bucket(k)) {
        if (to != 0)
          block_copy(col.keys(origin, piece), static_cast<const V*>(col.vals(origin, piece)),
                     col.keys(origin, piece_out), col.vals(origin, piece_out), piece.len);
      } else if (top < kStackMax) {
        if (threadIdx.x == 0) sh.stack[top] = piece;
        ++top;
      } else {
        leaf_bitonic_finish(col.keys(origin, piece), col.vals(origin, piece), piece.len, col.keys(origin, piece_out),
                            col.vals(origin, piece_out));
      }
    }
    if (threadIdx.x == 0) sh.top = top;
    __syncthreads();
  }
}

// The leaf grid (host-launched, no device launches): each block takes the next leaf of the
// list and sorts it alone; with only.len > 0, one block sorts `only` (small inputs). Dynamic
// shared memory: key buffers A and B, then value buffers A and B, of cfg.smem_keys each.
template <typename K, typename V>
__global__ void __launch_bounds__(kLeafThreads, kLeafMinBlocks) leaf_kernel(ElemBuffers<K, V> b, Pool pool,
                                                                             FastConfig cfg, Segment only) {
  extern __shared__ __align__(16) unsigned char leaf_smem[];
  __shared__ LeafShared<K, V> sh;
  LeafColumns<K, V> col{b, reinterpret_cast<K*>(leaf_smem), nullptr, cfg.smem_keys};
  if constexpr (Elem<K, V>::carries)
    col.smem_vals_at = reinterpret_cast<V*>(leaf_smem + 2 * cfg.smem_keys * sizeof(K));
  if (only.len > 0) {
    leaf_sort(col, only, cfg, sh);
    return;
  }
  const ull count = pool.head->leaves < pool.leaf_capacity ? pool.head->leaves : pool.leaf_capacity;
  for (;;) {
    if (threadIdx.x == 0) sh.leaf = atomicAdd(&pool.head->leaf_taken, 1ull);
    __syncthreads();
    const ull leaf = sh.leaf;
    __syncthreads();  // sh.leaf is rewritten for the next leaf
    if (leaf >= count) return;
    leaf_sort(col, pool.leaves[leaf], cfg, sh);
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

// Dynamic shared memory of a leaf block: buffers A and B of keys and of values. Raises the
// kernel's limit on the run's device where it is lower (the context's memo knows).
template <typename K, typename V>
std::size_t leaf_smem_bytes(int smem_log2, const DeviceContext* device) {
  const std::size_t bytes = leaf_buffers_bytes(smem_log2, Elem<K, V>::bytes);
  allow_kernel_dynamic_smem(device, reinterpret_cast<const void*>(leaf_kernel<K, V>), bytes);
  return bytes;
}

// Blocks of the leaf grid: as many as the GPU runs at once (from the context's memo).
template <typename K, typename V>
unsigned leaf_grid_blocks(std::size_t smem_bytes, const DeviceContext* device) {
  const int per_sm =
      kernel_blocks_per_sm(device, reinterpret_cast<const void*>(leaf_kernel<K, V>), kLeafThreads, smem_bytes);
  return unsigned(multiprocessor_count(device)) * unsigned(per_sm > 0 ? per_sm : 1);
}

}  // namespace

std::size_t fast_workspace_bytes(std::uint64_t n, int grid_log2) {
  return kHeaderBytes + fast_record_capacity(n, grid_log2) * sizeof(GridSplit) +
         fast_leaf_capacity(n, grid_log2) * sizeof(Segment);
}

template <typename K, typename V>
void launch_quick_fast(K* const keys[2], V* const vals[2], std::uint64_t n, const FastOptions& opt, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream, const DeviceContext* device) {
  if (n < 2) return;
  if (workspace_bytes < fast_workspace_bytes(n, opt.grid_log2))
    throw std::invalid_argument("quick-fast: workspace too small");
  if (leaf_buffers_bytes(opt.smem_log2, Elem<K, V>::bytes) > kLeafBuffersMaxBytes)
    throw std::invalid_argument("quick-fast: smem_log2 too large for this element type");
  const FastConfig cfg{opt.arity, u64(1) << opt.grid_log2, u64(1) << opt.smem_log2};
  Pool pool;
  pool.head = static_cast<PoolHeader*>(workspace);
  pool.records = reinterpret_cast<GridSplit*>(static_cast<char*>(workspace) + kHeaderBytes);
  pool.capacity = fast_record_capacity(n, opt.grid_log2);
  pool.leaves = reinterpret_cast<Segment*>(pool.records + pool.capacity);
  pool.leaf_capacity = fast_leaf_capacity(n, opt.grid_log2);
  ElemBuffers<K, V> b{{keys[0], keys[1]}, {nullptr, nullptr}};
  if constexpr (Elem<K, V>::carries) {
    b.val[0] = vals[0];
    b.val[1] = vals[1];
  }
  const std::size_t smem = leaf_smem_bytes<K, V>(opt.smem_log2, device);
  if (n <= cfg.grid_above) {
    leaf_kernel<<<1, kLeafThreads, smem, stream>>>(b, pool, cfg, Segment{0, n, 0});
    SB_CUDA_CHECK_LAUNCH();
    return;
  }
  SB_CUDA_CHECK(cudaMemsetAsync(pool.head, 0, sizeof *pool.head, stream));
  root_kernel<<<1, kGridThreads, 0, stream>>>(b, n, pool, cfg);
  SB_CUDA_CHECK_LAUNCH();
  // The stream starts the leaf grid once the whole DP tree above it is complete.
  leaf_kernel<<<leaf_grid_blocks<K, V>(smem, device), kLeafThreads, smem, stream>>>(b, pool, cfg, Segment{0, 0, 0});
  SB_CUDA_CHECK_LAUNCH();
}

#define SB_QS_FAST_INSTANTIATE(K, V)                                                                              \
  template void launch_quick_fast<K, V>(K* const[2], V* const[2], std::uint64_t, const FastOptions&, void*, \
                                        std::size_t, cudaStream_t, const DeviceContext*);
SB_FOR_EACH_SCALAR_ELEMENT(SB_QS_FAST_INSTANTIATE)
#undef SB_QS_FAST_INSTANTIATE

}  // namespace sb::qs
