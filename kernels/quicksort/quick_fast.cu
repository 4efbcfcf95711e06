// quick-fast: how far DP quicksort goes on Hopper (beyond seed 002). The recursion is the
// paper's P-Quick with a K-way Direct-Prefix split, but
//  - a segment above kGridSplitAbove keys is split by a grid (one block per tile): a count
//    grid sums the bucket sizes with atomics, its last block launches the scatter grid, whose
//    last block launches the children (CDP2 has no device-side wait, so the last block to
//    finish carries the recursion on);
//  - a part of a grid split with up to kGridSplitAbove keys is not launched: it goes to a
//    leaf list in the workspace. One leaf grid, enqueued by the host after the DP tree (the
//    stream starts it once the tree and all its descendants are done), runs as many blocks
//    as the GPU holds at once; each block takes the next leaf and sorts it alone (split with
//    the whole block, warp-aggregated shared-memory claims, from an explicit stack).
//    Launching one single-block grid per part instead left the parts to the device
//    runtime, which ran few of them at once (2^24 keys: 256 parts of 2^16, 12.2 ms on an
//    H200, docs/quicksort.md), and device launches hardly overlap (1.3-2.7 us each for
//    merge-dp), so launches are kept for big parts;
//  - segments up to kFastSharedKeys are finished in shared memory by CUB's BlockRadixSort
//    (the paper's conclusion: replace the selection sort by a more parallel sort).
// Every launch that the device refuses (nesting depth, pending-launch buffer, record pool)
// falls back to the same work done by the launching block, so a sort never fails.
#include <cub/block/block_radix_sort.cuh>
#include <cuda/std/limits>
#include <stdexcept>

#include "quicksort.hpp"
#include "quicksort_device.cuh"
#include "sortbench/cuda_check.hpp"

namespace sb::qs {
namespace {

constexpr int kFastThreads = 256;
// Blocks per SM the register budget must allow: block-level splits are latency bound.
constexpr int kFastMinBlocks = 2;
constexpr u64 kFastSharedKeys = 4096;
constexpr int kTileItems = 16;
constexpr u64 kTile = u64(kFastThreads) * kTileItems;  // keys per block of a grid split
constexpr u64 kGridSplitAbove = u64(1) << 16;
constexpr int kOversampling = 8;
constexpr int kDeepestChild = kMaxNestingDepth - 2;
constexpr int kGridLevelsMax = (kDeepestChild - 1) / 3 + 1;
constexpr int kStackMax = 64;            // parts a block still owes (depth-first)
constexpr int kSmallItems = 2;           // BlockRadixSort of up to 512 keys
constexpr int kLargeItems = int(kFastSharedKeys / kFastThreads);
using u32 = std::uint32_t;

// One grid-wide split: its segment, pivots and the bucket totals the blocks add up.
template <typename T>
struct GridSplit {
  Segment seg;
  T pivots[kMaxPivots];
  int np;
  int arity;
  int depth;  // of the block that started it
  unsigned blocks_done;
  unsigned long long count[kMaxBuckets];
  unsigned long long cursor[kMaxBuckets];
};

// Workspace: counters, then the grid-split records, then the leaf list.
struct PoolHeader {
  unsigned long long used;        // records taken
  unsigned long long leaves;      // leaves appended
  unsigned long long leaf_taken;  // leaves claimed by the leaf grid's blocks
};

template <typename T>
struct Pool {
  GridSplit<T>* records;
  PoolHeader* head;
  unsigned long long capacity;
  Segment* leaves;
  unsigned long long leaf_capacity;
};

template <typename T>
using SmallRadix = cub::BlockRadixSort<T, kFastThreads, kSmallItems>;
template <typename T>
using LargeRadix = cub::BlockRadixSort<T, kFastThreads, kLargeItems>;

template <typename T>
struct FastShared {
  SplitState<T> st;
  union {
    typename SmallRadix<T>::TempStorage small;
    typename LargeRadix<T>::TempStorage large;
  } radix;
  Segment stack[kStackMax];
  int top;
  Segment child[kMaxArity];
  int nchild;
  int failed[kMaxArity];
  int flag;
  unsigned long long leaf;  // index in the leaf list (leaf grid)
};

template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) fast_block_kernel(Buffers<T> b, Segment s, int arity, int depth, Pool<T> pool);

template <typename T>
__global__ void copy_kernel(const T* from, T* to, u64 begin, u64 len) {
  for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < len; i += u64(gridDim.x) * blockDim.x)
    to[begin + i] = from[begin + i];
}

// A key no other key sorts after: pads a tile to the radix sort's full size. Padding
// equal to a real key has the same bits, so the first len outputs are the sorted keys.
template <typename T>
__device__ T key_padding() {
  return cuda::std::numeric_limits<T>::has_infinity ? cuda::std::numeric_limits<T>::infinity()
                                                    : cuda::std::numeric_limits<T>::max();
}

// Up to ITEMS * kFastThreads keys: striped load, block radix sort, striped store to buf[0].
template <int ITEMS, typename Sorter, typename T>
__device__ void radix_finish(Buffers<T> b, Segment s, typename Sorter::TempStorage& temp) {
  const T* src = b.buf[s.buf] + s.begin;
  T keys[ITEMS];
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = u32(it) * kFastThreads + threadIdx.x;
    keys[it] = i < s.len ? src[i] : key_padding<T>();
  }
  Sorter(temp).SortBlockedToStriped(keys);  // a sort: the input arrangement does not matter
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = u32(it) * kFastThreads + threadIdx.x;
    if (i < s.len) b.buf[0][s.begin + i] = keys[it];
  }
  __syncthreads();  // the temporary storage is reused by the next sort
}

// Up to kFastSharedKeys keys, finished in shared memory and written to buf[0].
template <typename T>
__device__ void shared_sort_finish(Buffers<T> b, Segment s, FastShared<T>& sh) {
  if (s.len <= u64(kSmallItems) * kFastThreads) radix_finish<kSmallItems, SmallRadix<T>>(b, s, sh.radix.small);
  else radix_finish<kLargeItems, LargeRadix<T>>(b, s, sh.radix.large);
}

// The children in sh.child: small ones sorted here, big ones launched (or finished here).
template <typename T>
__device__ void recurse_children(Buffers<T> b, int arity, int depth, Pool<T> pool, FastShared<T>& sh) {
  const int t = threadIdx.x;
  if (t < sh.nchild) {
    const Segment c = sh.child[t];
    sh.failed[t] = 0;
    if (c.len > kFastSharedKeys) {
      sh.failed[t] = 1;
      if (depth + 1 <= kDeepestChild) {
        fast_block_kernel<<<1, kFastThreads, 0, cudaStreamFireAndForget>>>(b, c, arity, depth + 1, pool);
        sh.failed[t] = cudaGetLastError() != cudaSuccess;
      }
    }
  }
  __syncthreads();
  for (int i = 0; i < sh.nchild; ++i) {
    const Segment c = sh.child[i];
    if (c.len <= kFastSharedKeys) shared_sort_finish(b, c, sh);
    else if (sh.failed[i]) block_finish(b, c);
  }
}

// The children of a grid split in sh.child: those above kGridSplitAbove start their own
// grid split, the others go to the leaf list. Launches the device refuses and leaves that
// find the list full are finished here.
template <typename T>
__device__ void hand_out_children(Buffers<T> b, int arity, int depth, Pool<T> pool, FastShared<T>& sh) {
  const int t = threadIdx.x;
  if (t < sh.nchild) {
    const Segment c = sh.child[t];
    bool done = false;
    if (c.len <= kGridSplitAbove) {
      const unsigned long long at = atomicAdd(&pool.head->leaves, 1ull);
      if (at < pool.leaf_capacity) {
        pool.leaves[at] = c;
        done = true;
      }
    }
    if (!done && depth + 1 <= kDeepestChild) {
      fast_block_kernel<<<1, kFastThreads, 0, cudaStreamFireAndForget>>>(b, c, arity, depth + 1, pool);
      done = cudaGetLastError() == cudaSuccess;
    }
    sh.failed[t] = !done;
  }
  __syncthreads();
  for (int i = 0; i < sh.nchild; ++i) {
    const Segment c = sh.child[i];
    if (!sh.failed[i]) continue;
    if (c.len <= kFastSharedKeys) shared_sort_finish(b, c, sh);
    else block_finish(b, c);
  }
}

// Equal-key buckets go to buf[0]; the other non-empty buckets become sh.child. counts are
// the bucket sizes of segment s split into buffer `to`.
template <typename T>
__device__ void collect_buckets(Buffers<T> b, Segment s, int to, int nb, const unsigned long long* counts,
                                bool grid_copies, FastShared<T>& sh) {
  if (threadIdx.x == 0) {
    sh.nchild = 0;
    u64 at = s.begin;
    for (int k = 0; k < nb; ++k) {
      const Segment piece{at, counts[k], to};
      at += counts[k];
      if (piece.len == 0) continue;
      if (!is_equal_bucket(k)) {
        sh.child[sh.nchild++] = piece;
      } else if (to != 0 && grid_copies && piece.len > kTile) {
        const unsigned blocks = unsigned((piece.len + kTile - 1) / kTile);
        copy_kernel<<<blocks, kFastThreads, 0, cudaStreamFireAndForget>>>(b.buf[1], b.buf[0], piece.begin, piece.len);
        if (cudaGetLastError() != cudaSuccess)
          for (u64 i = 0; i < piece.len; ++i) b.buf[0][piece.begin + i] = b.buf[1][piece.begin + i];
      }
    }
  }
  if (to != 0) {
    u64 at = s.begin;
    for (int k = 0; k < nb; ++k) {
      if (is_equal_bucket(k) && !(grid_copies && counts[k] > kTile))
        group_copy(BlockGroup{int(blockDim.x)}, b.buf[1], b.buf[0], at, counts[k]);
      at += counts[k];
    }
  }
  __syncthreads();
}

// Split of segment s by this block alone; the parts are left in sh.child.
template <typename T>
__device__ void block_split(Buffers<T> b, Segment s, int arity, FastShared<T>& sh) {
  const int np = arity - 1;
  if (threadIdx.x == 0) choose_pivots(b.buf[s.buf], s.begin, s.len, np, kOversampling, sh.st);
  __syncthreads();
  const int to = 1 - s.buf;
  group_split(BlockGroup{int(blockDim.x)}, b.buf[s.buf], b.buf[to], s.begin, s.len, np, sh.st, Claim::ballot);
  collect_buckets(b, s, to, bucket_count(np), reinterpret_cast<const unsigned long long*>(sh.st.count), false, sh);
}

// Sorts segment s entirely with this block: split, push the parts, pop the next one,
// finish parts of up to kFastSharedKeys in shared memory. Parts that find the stack full
// go to recurse_children (launched, or finished here if the launch is refused).
template <typename T>
__device__ void block_sort_owned(Buffers<T> b, Segment s, int arity, int depth, Pool<T> pool, FastShared<T>& sh) {
  if (threadIdx.x == 0) {
    sh.stack[0] = s;
    sh.top = 1;
  }
  __syncthreads();
  while (sh.top > 0) {
    const Segment c = sh.stack[sh.top - 1];
    __syncthreads();
    if (threadIdx.x == 0) --sh.top;
    if (c.len <= kFastSharedKeys) {
      shared_sort_finish(b, c, sh);
      continue;
    }
    block_split(b, c, arity, sh);
    if (threadIdx.x == 0) {
      int spill = 0;
      for (int i = 0; i < sh.nchild; ++i) {
        if (sh.top < kStackMax) sh.stack[sh.top++] = sh.child[i];
        else sh.child[spill++] = sh.child[i];
      }
      sh.nchild = spill;
    }
    __syncthreads();
    if (sh.nchild > 0) recurse_children(b, arity, depth, pool, sh);
    __syncthreads();
  }
}

template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) grid_count_kernel(Buffers<T> b, GridSplit<T>* rec, Pool<T> pool);
template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) grid_scatter_kernel(Buffers<T> b, GridSplit<T>* rec, Pool<T> pool);

// One thread: takes a record, picks pivots and launches the count grid. False if refused.
template <typename T>
__device__ bool start_grid_split(Buffers<T> b, Segment s, int arity, int depth, Pool<T> pool) {
  const unsigned long long idx = atomicAdd(&pool.head->used, 1ull);
  if (idx >= pool.capacity) return false;
  GridSplit<T>* rec = pool.records + idx;
  rec->seg = s;
  rec->np = arity - 1;
  rec->arity = arity;
  rec->depth = depth;
  rec->blocks_done = 0;
  T samples[sample_count(kMaxPivots, kOversampling)];
  const int ns = sample_count(rec->np, kOversampling);
  for (int i = 0; i < ns; ++i) samples[i] = b.buf[s.buf][sample_position(s.begin, s.len, i, ns)];
  pivots_from_samples(samples, ns, rec->np, rec->pivots);
  for (int k = 0; k < kMaxBuckets; ++k) rec->count[k] = rec->cursor[k] = 0;
  const unsigned blocks = unsigned((s.len + kTile - 1) / kTile);
  grid_count_kernel<<<blocks, kFastThreads, 0, cudaStreamFireAndForget>>>(b, rec, pool);
  return cudaGetLastError() == cudaSuccess;
}

template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) fast_block_kernel(Buffers<T> b, Segment s, int arity, int depth, Pool<T> pool) {
  __shared__ FastShared<T> sh;
  if (s.len <= kFastSharedKeys) {
    shared_sort_finish(b, s, sh);
    return;
  }
  if (s.len > kGridSplitAbove && depth + 3 <= kDeepestChild) {
    if (threadIdx.x == 0) sh.flag = start_grid_split(b, s, arity, depth, pool);
    __syncthreads();
    if (sh.flag) return;
  }
  block_sort_owned(b, s, arity, depth, pool, sh);
}

// Whether this block is the last of its grid to finish (all blocks' atomics visible).
__device__ bool last_block(unsigned* done, int& flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) flag = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (flag) __threadfence();
  return flag;
}

template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) grid_count_kernel(Buffers<T> b, GridSplit<T>* rec, Pool<T> pool) {
  __shared__ FastShared<T> sh;
  const Segment s = rec->seg;
  const int np = rec->np, nb = bucket_count(np);
  if (threadIdx.x < np) sh.st.pivots[threadIdx.x] = rec->pivots[threadIdx.x];
  if (threadIdx.x < nb) sh.st.count[threadIdx.x] = 0;
  __syncthreads();
  const u64 tb = blockIdx.x * kTile;
  const u64 tl = s.len - tb < kTile ? s.len - tb : kTile;
  const T* src = b.buf[s.buf] + s.begin + tb;
  const BlockGroup g{int(blockDim.x)};
  for (u64 c = 0; c < tl; c += blockDim.x) {
    const u64 i = c + threadIdx.x;
    const int bk = i < tl ? bucket_of(src[i], sh.st.pivots, np) : -1;
    claim(g, bk, nb, sh.st.count, Claim::ballot);
  }
  __syncthreads();
  if (threadIdx.x < nb) atomicAdd(&rec->count[threadIdx.x], (unsigned long long)sh.st.count[threadIdx.x]);
  if (!last_block(&rec->blocks_done, sh.flag)) return;
  if (threadIdx.x == 0) {
    volatile unsigned long long* count = rec->count;
    u64 at = s.begin;
    for (int k = 0; k < nb; ++k) {
      rec->cursor[k] = at;
      at += count[k];
    }
    rec->blocks_done = 0;
    grid_scatter_kernel<<<gridDim.x, kFastThreads, 0, cudaStreamFireAndForget>>>(b, rec, pool);
    sh.flag = cudaGetLastError() != cudaSuccess;
  }
  __syncthreads();
  if (sh.flag) block_sort_owned(b, s, rec->arity, rec->depth + 1, pool, sh);
}

template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) grid_scatter_kernel(Buffers<T> b, GridSplit<T>* rec, Pool<T> pool) {
  __shared__ FastShared<T> sh;
  const Segment s = rec->seg;
  const int np = rec->np, nb = bucket_count(np);
  const int to = 1 - s.buf;
  if (threadIdx.x < np) sh.st.pivots[threadIdx.x] = rec->pivots[threadIdx.x];
  if (threadIdx.x < nb) sh.st.count[threadIdx.x] = 0;
  __syncthreads();
  const u64 tb = blockIdx.x * kTile;
  const u64 tl = s.len - tb < kTile ? s.len - tb : kTile;
  const T* src = b.buf[s.buf] + s.begin + tb;
  const BlockGroup g{int(blockDim.x)};
  T x[kTileItems];
  int bk[kTileItems];
  unsigned rank[kTileItems];
#pragma unroll
  for (int it = 0; it < kTileItems; ++it) {
    const u64 i = u64(it) * blockDim.x + threadIdx.x;
    if (i < tl) x[it] = src[i];
  }
#pragma unroll
  for (int it = 0; it < kTileItems; ++it) {
    const u64 i = u64(it) * blockDim.x + threadIdx.x;
    bk[it] = i < tl ? bucket_of(x[it], sh.st.pivots, np) : -1;
    rank[it] = unsigned(claim(g, bk[it], nb, sh.st.count, Claim::ballot));
  }
  __syncthreads();
  if (threadIdx.x < nb)
    sh.st.cursor[threadIdx.x] = atomicAdd(&rec->cursor[threadIdx.x], (unsigned long long)sh.st.count[threadIdx.x]);
  __syncthreads();
  T* dst = b.buf[to];
#pragma unroll
  for (int it = 0; it < kTileItems; ++it)
    if (bk[it] >= 0) dst[sh.st.cursor[bk[it]] + rank[it]] = x[it];
  if (!last_block(&rec->blocks_done, sh.flag)) return;
  collect_buckets(b, s, to, nb, const_cast<const unsigned long long*>(rec->count), true, sh);
  hand_out_children(b, rec->arity, rec->depth + 2, pool, sh);
}

// The leaf grid: each block takes the next leaf of the list and sorts it alone.
template <typename T>
__global__ void __launch_bounds__(kFastThreads, kFastMinBlocks) fast_leaf_kernel(Buffers<T> b, int arity, Pool<T> pool) {
  __shared__ FastShared<T> sh;
  const unsigned long long count = pool.head->leaves < pool.leaf_capacity ? pool.head->leaves : pool.leaf_capacity;
  for (;;) {
    if (threadIdx.x == 0) sh.leaf = atomicAdd(&pool.head->leaf_taken, 1ull);
    __syncthreads();
    const unsigned long long leaf = sh.leaf;
    if (leaf >= count) return;
    const Segment s = pool.leaves[leaf];
    if (s.len <= kFastSharedKeys) shared_sort_finish(b, s, sh);
    else block_sort_owned(b, s, arity, 0, pool, sh);
    __syncthreads();  // sh.leaf is rewritten for the next leaf
  }
}

}  // namespace

namespace {

// Grid splits the tree may start: disjoint segments above kGridSplitAbove per level.
std::uint64_t fast_record_capacity(std::uint64_t n) { return kGridLevelsMax * (n / kGridSplitAbove + 1); }
// Each grid split hands out at most kMaxArity parts, so the leaf list never overflows.
std::uint64_t fast_leaf_capacity(std::uint64_t n) { return fast_record_capacity(n) * kMaxArity; }
constexpr std::size_t kHeaderBytes = 256;
static_assert(sizeof(PoolHeader) <= kHeaderBytes);

}  // namespace

std::size_t fast_workspace_bytes(std::uint64_t n) {
  return kHeaderBytes + fast_record_capacity(n) * sizeof(GridSplit<std::uint32_t>) +
         fast_leaf_capacity(n) * sizeof(Segment);
}

namespace {

// Blocks of the leaf grid: as many as the GPU runs at once (queried once per key type).
template <typename T>
unsigned leaf_grid_blocks() {
  static const unsigned blocks = [] {
    int device = 0, sms = 0, per_sm = 0;
    SB_CUDA_CHECK(cudaGetDevice(&device));
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fast_leaf_kernel<T>, kFastThreads, 0));
    return unsigned(sms) * unsigned(per_sm > 0 ? per_sm : 1);
  }();
  return blocks;
}

}  // namespace

template <typename T>
void launch_quick_fast(T* const keys[2], std::uint64_t n, int arity, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream) {
  if (n < 2) return;
  static_assert(sizeof(GridSplit<T>) == sizeof(GridSplit<std::uint32_t>));
  if (workspace_bytes < fast_workspace_bytes(n)) throw std::invalid_argument("quick-fast: workspace too small");
  Pool<T> pool;
  pool.head = static_cast<PoolHeader*>(workspace);
  pool.records = reinterpret_cast<GridSplit<T>*>(static_cast<char*>(workspace) + kHeaderBytes);
  pool.capacity = fast_record_capacity(n);
  pool.leaves = reinterpret_cast<Segment*>(pool.records + pool.capacity);
  pool.leaf_capacity = fast_leaf_capacity(n);
  SB_CUDA_CHECK(cudaMemsetAsync(pool.head, 0, sizeof *pool.head, stream));
  const Buffers<T> b{{keys[0], keys[1]}};
  fast_block_kernel<<<1, kFastThreads, 0, stream>>>(b, Segment{0, n, 0}, arity, 0, pool);
  SB_CUDA_CHECK_LAUNCH();
  // The stream starts the leaf grid once the whole DP tree above it is complete.
  if (n > kGridSplitAbove) {
    fast_leaf_kernel<<<leaf_grid_blocks<T>(), kFastThreads, 0, stream>>>(b, arity, pool);
    SB_CUDA_CHECK_LAUNCH();
  }
}

template void launch_quick_fast<std::uint32_t>(std::uint32_t* const[2], std::uint64_t, int, void*, std::size_t,
                                               cudaStream_t);
template void launch_quick_fast<std::int32_t>(std::int32_t* const[2], std::uint64_t, int, void*, std::size_t,
                                              cudaStream_t);
template void launch_quick_fast<float>(float* const[2], std::uint64_t, int, void*, std::size_t, cudaStream_t);

}  // namespace sb::qs
