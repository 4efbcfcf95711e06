// quick-sample: sample sort with Dynamic Parallelism (beyond seed 002; issue 18). Seed 002's
// P-Quick splits a segment K <= 8 ways a pass, so quick-fast needs eight grid passes over
// 2^26 keys; here a split takes up to 255 pivots from a sorted sample (sample sort, as in
// Sanders and Winkel's super scalar sample sort and its GPU ports), so 2^26 keys take two. The
// bucket of a key is 2t between pivots t-1 and t and 2t+1 equal to pivot t (sample_bucket), so
// keys equal to a pivot are finished at once: an input of few distinct values, or a zipf
// input's heavy keys, is done in one level. One level splits all its segments at once, in four
// grids, each launched from the device by the last block of the one before it (a ticket
// counter; CDP2 has no device-side wait), because only the device knows the level's sizes:
//   pivots  a block per segment: 16 samples a bucket at hashed offsets (sample_offset), sorted
//           by BlockRadixSort; every 16th is a pivot. It also maps its segment to its blocks;
//   count   kTilesPerBlock tiles (Elem::tile elements each) per block: the keys' buckets by a
//           search tree of the pivots in shared memory (sample_tree_bucket), kept at the keys'
//           positions for place, summed in shared memory (warp_count), stored per block and
//           added to the segment's with one atomic a bucket;
//   place   the same tiles with the buckets count kept (key_buckets); a block scan of the
//           segment's bucket sizes gives each bucket's start, one atomic per bucket claims the
//           block's slots in it, and each tile is reordered by bucket in shared memory so that
//           warps write whole runs;
//   plan    a block per segment: a bucket above the leaf size becomes a segment of the next
//           level (its pivot bits from sample_split_bits, so the levels share the halvings
//           evenly), smaller ones and equal-key buckets that need a copy go to the leaf list.
// The host enqueues a leaf grid after the tree, as quick-fast does (quick-sample-nodp may
// enqueue one more, launch_quick_sample): each block takes leaves from the list and sorts
// each with BlockRadixSort on the bits below the leaf's common prefix (radix_finish), copies
// equal-key buckets to buffer 0, and sorts any part that a refused launch left behind with a
// block-wide bitonic sort, so a sort never fails. Not stable: slots
// are claimed with atomics. Level L's grids run at nesting depths 4L+1 to 4L+4.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <array>
#include <stdexcept>

#include "quick_leaf.cuh"
#include "quicksort.hpp"
#include "sortbench/core/cuda_check.hpp"

namespace sb::qs {
namespace {

constexpr int kDeepestChild = kMaxNestingDepth - 2;
constexpr int kGridsPerLevel = 4;
constexpr int kMaxLevels = (kDeepestChild - 1) / kGridsPerLevel + 1;  // the last level's pivots grid fits
constexpr int kSampleLeafThreads = 256;  // the leaf grid's block (LeafSort)
constexpr int kSampleLeafMinBlocks = 3;
constexpr u64 kCopyChunk = u64(1) << 16;  // elements of one copy leaf (an equal-key bucket to buffer 0)
// Tiles of one count or place block: its bucket sizes are added to the segment's (count) and
// its slots claimed (place) once for all of them, so the level's same-address atomics are a
// quarter of one a tile (16K tiles of 2^26 keys hit each of 511 counters 16K times: 0.5 ms).
constexpr int kTilesPerBlock = 4;
template <typename K, typename V>
inline constexpr u64 kBlockElements = kTilesPerBlock * Elem<K, V>::tile;
static_assert(kSampleMaxBuckets <= 2 * kGridThreads, "two buckets per thread in the block scans");

enum Stage { kPivots = 0, kCount = 1, kPlace = 2, kPlan = 3 };

struct SampleSegment {
  u64 begin, len;
  u32 first_block, blocks;  // blocks [first_block, first_block + blocks) of the level's count and place grids
  u32 pivot_at, bucket_at;  // its pivots and bucket counters in the level's pools
  u64 hist_at;              // its blocks' bucket sizes (blocks x buckets, block-major) in the level's pool
  int bits, buf;
};

// Places in a level's pools: segments, count/place blocks, pivots, bucket counters and bucket
// sizes per block. A level's sizes so far; what a segment takes of them, or its first places.
struct PoolClaim {
  u32 segment, block, pivot, bucket;
  ull hist;
};
__host__ __device__ inline PoolClaim operator+(const PoolClaim& a, const PoolClaim& b) {
  return PoolClaim{a.segment + b.segment, a.block + b.block, a.pivot + b.pivot, a.bucket + b.bucket, a.hist + b.hist};
}

struct LevelState {
  PoolClaim size;                         // appended so far (pools of the level)
  u32 done[kGridsPerLevel];               // ticket counters of the level's grids
  ull began_ns[kGridsPerLevel], ended_ns[kGridsPerLevel];  // block 0's start, the last block's end
};

enum LeafKind : int { kLeafSort = 0, kLeafCopy = 1, kLeafBitonic = 2 };
struct LeafItem {
  u64 begin, len;
  int buf, kind;
};

// Zeroed by the host before each sort; read back after it for the row's details.
struct SampleHeader {
  LevelState level[kMaxLevels];
  ull leaves, leaf_taken;  // appended; handed to leaf blocks (each leaf grid ends it at the leaves it saw)
  ull leaf_kinds[3];
  u32 launches, refused;
  u32 leaf_blocks_done;
  ull root_ns, leaf_began_ns, leaf_ended_ns;
};

// The GPU's nanosecond clock, the same on every SM: where each grid's time goes, as the row's
// details, without a profiler (device-launched grids are out of most profilers' reach).
__device__ __forceinline__ ull global_ns() {
  ull t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// Block 0 of a grid notes when the grid began.
__device__ __forceinline__ void note_began(ull* at) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *at = global_ns();
}

// Workspace: the header, two sets of level pools (level L uses set L % 2: a level's plan
// fills the next level's set while its own is still read), then the leaf list.
template <typename U>
struct SampleWork {
  SampleHeader* head;
  SampleSegment* segments[2];
  u32* block_segment[2];
  U* pivots[2];
  ull* totals[2];   // bucket sizes, summed by the count grid
  ull* claimed[2];  // slots claimed in each bucket by the place grid
  u32* hist[2];     // each count block's bucket sizes, for its place block
  std::int16_t* key_buckets;  // the bucket of the key at each position of the level, from count for place
  LeafItem* leaves;
  SampleCapacity cap;
  bool device_launches;  // false: the host launches each grid (quick-sample-nodp)
  // Blocks of a device-launched count and place grid: as many as the GPU holds at once, each
  // taking every gridDim.x-th block of the level's work (H200, 2^26 keys: count 776 against
  // 820 us, place 712 against 751, with a block per 4 tiles; the host-launched grids take 291
  // and 530, for a cause not found: docs/quicksort.md).
  u32 resident_count, resident_place;
};

template <typename K, typename V>
using Ord = typename Elem<K, V>::Ordered;

// One thread: appends a leaf (a full list is impossible by sample_capacity; refused anyway).
template <typename U>
__device__ void append_leaf(const SampleWork<U>& w, LeafItem item) {
  const ull at = atomicAdd(&w.head->leaves, 1ull);
  if (at < w.cap.leaves) w.leaves[at] = item;
  atomicAdd(&w.head->leaf_kinds[item.kind], 1ull);
}

// Blocks of the count and place grids of a segment of len elements.
template <typename K, typename V>
__host__ __device__ u32 segment_blocks(u64 len) {
  return u32((len + kBlockElements<K, V> - 1) / kBlockElements<K, V>);
}

// [begin, begin + len) of buffer buf as a segment (its places in the pools not set yet), and
// what it takes of each pool.
template <typename K, typename V>
__device__ SampleSegment segment_of(u64 begin, u64 len, int buf, PoolClaim& needs) {
  SampleSegment s;
  s.begin = begin;
  s.len = len;
  s.buf = buf;
  s.bits = sample_split_bits(len, sample_leaf_target(Elem<K, V>::radix_max));
  s.blocks = segment_blocks<K, V>(len);
  const int np = (1 << s.bits) - 1;
  needs = PoolClaim{1, s.blocks, u32(np), u32(bucket_count(np)), ull(s.blocks) * ull(bucket_count(np))};
  return s;
}

// Adds `by` to the sizes at `at` (shared or global) and returns where they stood.
__device__ PoolClaim claim(PoolClaim& at, const PoolClaim& by) {
  return PoolClaim{atomicAdd(&at.segment, by.segment), atomicAdd(&at.block, by.block),
                   atomicAdd(&at.pivot, by.pivot), atomicAdd(&at.bucket, by.bucket), atomicAdd(&at.hist, by.hist)};
}

// Stores segment s of `level` at the places `at`.
template <typename U>
__device__ void store_segment(const SampleWork<U>& w, int level, SampleSegment s, const PoolClaim& at) {
  s.first_block = at.block;
  s.pivot_at = at.pivot;
  s.bucket_at = at.bucket;
  s.hist_at = at.hist;
  w.segments[level & 1][at.segment] = s;
}

// One thread: appends [begin, begin + len) of buffer buf as a segment of `level`.
template <typename K, typename V>
__device__ void append_segment(const SampleWork<Ord<K, V>>& w, int level, u64 begin, u64 len, int buf) {
  if (level >= kMaxLevels) {
    append_leaf(w, LeafItem{begin, len, buf, kLeafBitonic});
    return;
  }
  PoolClaim needs;
  const SampleSegment s = segment_of<K, V>(begin, len, buf, needs);
  store_segment(w, level, s, claim(w.head->level[level].size, needs));
}

// Every thread of the block: the segments of `level` go to the leaf list whole (a launch was
// refused before their keys moved), for the leaf grid's bitonic sort.
template <typename U>
__device__ void abandon_level(const SampleWork<U>& w, int level) {
  if (level >= kMaxLevels) return;
  const u32 count = *(volatile u32*)&w.head->level[level].size.segment;
  for (u32 i = threadIdx.x; i < count; i += blockDim.x) {
    const SampleSegment s = w.segments[level & 1][i];
    append_leaf(w, LeafItem{s.begin, s.len, s.buf, kLeafBitonic});
  }
}

template <typename K, typename V>
__global__ void pivots_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w, int level);
template <typename K, typename V>
__global__ void count_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w, int level);
template <typename K, typename V>
__global__ void place_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w, int level);
template <typename K, typename V>
__global__ void plan_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w, int level);

// One thread: launches the grid of `stage` of `level` from the device; false when the nesting
// depth or the device runtime refuses it.
template <typename K, typename V>
__device__ bool launch_stage(ElemBuffers<K, V> b, const SampleWork<Ord<K, V>>& w, int level, Stage stage) {
  if (level >= kMaxLevels) return true;  // append_segment sent its segments to the leaf list
  if (level * kGridsPerLevel + int(stage) + 1 > kDeepestChild) return false;
  const LevelState& l = w.head->level[level];
  unsigned grid = (stage == kCount || stage == kPlace) ? *(volatile u32*)&l.size.block
                                                       : *(volatile u32*)&l.size.segment;
  if (grid == 0) return true;
  if (stage == kCount) grid = min(grid, w.resident_count);
  if (stage == kPlace) grid = min(grid, w.resident_place);
  switch (stage) {
    case kPivots: pivots_kernel<K, V><<<grid, kGridThreads, 0, cudaStreamFireAndForget>>>(b, w, level); break;
    case kCount: count_kernel<K, V><<<grid, kGridThreads, 0, cudaStreamFireAndForget>>>(b, w, level); break;
    case kPlace: place_kernel<K, V><<<grid, kGridThreads, 0, cudaStreamFireAndForget>>>(b, w, level); break;
    case kPlan: plan_kernel<K, V><<<grid, kGridThreads, 0, cudaStreamFireAndForget>>>(b, w, level); break;
  }
  const bool ok = cudaGetLastError() == cudaSuccess;
  atomicAdd(ok ? &w.head->launches : &w.head->refused, 1u);
  return ok;
}

// The last block of a grid of `level`: launches `next`, or leaves the level's segments to the
// leaf grid when the launch is refused (their keys have not moved yet).
template <typename K, typename V>
__device__ void hand_on(ElemBuffers<K, V> b, const SampleWork<Ord<K, V>>& w, int level, Stage next, int& flag) {
  if (threadIdx.x == 0) flag = launch_stage(b, w, level, next);
  __syncthreads();
  if (!flag) abandon_level(w, level);
}

// The segment and the elements of block v of a level's count or place work (up to kTilesPerBlock tiles).
struct BlockOf {
  SampleSegment seg;
  u32 index;       // of the block in its segment
  u64 begin, len;  // relative to the segment
};
template <typename K, typename V>
__device__ BlockOf block_of(const SampleWork<Ord<K, V>>& w, int level, u32 v) {
  const int p = level & 1;
  BlockOf t;
  t.seg = w.segments[p][w.block_segment[p][v]];
  t.index = v - t.seg.first_block;
  t.begin = u64(t.index) * kBlockElements<K, V>;
  t.len = t.seg.len - t.begin < kBlockElements<K, V> ? t.seg.len - t.begin : kBlockElements<K, V>;
  return t;
}

// Every thread: the segment's pivots and their search tree (sample_tree_entry) into shared
// memory. Ends with a barrier.
template <typename U>
__device__ void load_pivots(const SampleWork<U>& w, int level, const SampleSegment& s, U* pivots, U* tree) {
  const int np = (1 << s.bits) - 1;
  const U* from = w.pivots[level & 1] + s.pivot_at;
  for (int j = threadIdx.x; j < np; j += kGridThreads) pivots[j] = from[j];
  for (int e = threadIdx.x; e < kSampleTreeNodes; e += kGridThreads)
    tree[sample_tree_node(e)] = sample_tree_entry(e, from, s.bits, ~U{0});
  __syncthreads();
}

// Each key's bucket (-1: past the tile's tl elements).
template <typename K, int I, typename U>
__device__ void bucket_tile(const K (&x)[I], u64 tl, const U* pivots, const U* tree, int bits, int (&bk)[I]) {
#pragma unroll
  for (int it = 0; it < I; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    bk[it] = i < tl ? sample_tree_bucket(KeyTraits<K>::ordered(x[it]), tree, pivots, bits) : -1;
  }
}

// The tile's buckets kept at their keys' positions (at: the tile's first), striped as the keys
// are: the count grid's search serves the place grid too, which found them by a second search
// of the same tree before.
template <int I>
__device__ void store_buckets(std::int16_t* at, u64 tl, const int (&bk)[I]) {
#pragma unroll
  for (int it = 0; it < I; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    if (i < tl) at[i] = std::int16_t(bk[it]);
  }
}
template <int I>
__device__ void load_buckets(const std::int16_t* at, u64 tl, int (&bk)[I]) {
#pragma unroll
  for (int it = 0; it < I; ++it) {
    const u64 i = u64(it) * kGridThreads + threadIdx.x;
    bk[it] = i < tl ? int(at[i]) : -1;
  }
}

// Shared counters of a warp's keys, one row of I items at a time (bk < 0: no key). Lane 0's
// bucket takes one atomic for all the lanes that share it (sorted runs, a heavy key), the
// other lanes one each (random keys seldom collide): cheaper than __match_any_sync, whose
// throughput made quick-fast's and this sort's first version of the grids compute-bound.
// With slots (Rank), each key gets its place among the tile's keys of its bucket.
template <bool Rank, int I>
__device__ __forceinline__ void warp_count(const int (&bk)[I], u32* counter, u32 (&slot)[I]) {
  const unsigned lt = lanemask_lt();
#pragma unroll
  for (int it = 0; it < I; ++it) {
    const int lead = __shfl_sync(0xffffffffu, bk[it], 0);
    const unsigned same = __ballot_sync(0xffffffffu, bk[it] == lead);
    const bool grouped = lead >= 0 && bk[it] == lead;
    u32 got = 0;
    if (grouped ? (same & lt) == 0 : bk[it] >= 0) {
      if constexpr (Rank) got = atomicAdd(&counter[bk[it]], grouped ? u32(__popc(same)) : 1u);
      else atomicAdd(&counter[bk[it]], grouped ? u32(__popc(same)) : 1u);
    }
    if constexpr (Rank) {
      const u32 group_base = __shfl_sync(0xffffffffu, got, 0);
      slot[it] = grouped ? group_base + u32(__popc(same & lt)) : got;
    }
  }
}

// The sample sorts of a pivots block: ITEMS samples a thread, 16 for a full split of 255
// pivots, 4 for splits of up to 63 (2^26 u64 keys with u64 values take three levels, the last
// of 5952 segments split 64 ways: with 4096-slot sorts its pivots grid took 0.74 of 11.1 ms,
// with 1024-slot sorts 0.45 of 10.8 ms).
template <typename U>
struct PivotSort {
  static constexpr int small_items = 4;
  using Full = cub::BlockRadixSort<U, kGridThreads, kSampleOversampling>;
  using Small = cub::BlockRadixSort<U, kGridThreads, small_items>;
  static_assert(kGridThreads == kSampleMaxPivots + 1, "a thread per bucket of a full split's samples");
  static_assert(kSampleOversampling % small_items == 0, "a pivot is the last sample of a thread");
  union Storage {
    typename Full::TempStorage full;
    typename Small::TempStorage small;
  };
};

// Every thread: sorts the segment's ns samples (ITEMS a thread, ns <= ITEMS * kGridThreads)
// on the bits below their common prefix, and writes its np pivots. Pivot j is sample rank
// (j + 1) * S - 1 (pivot_is_group_last), the last of its thread's ITEMS when S % ITEMS == 0.
template <int ITEMS, typename Sorter, typename K, typename U>
__device__ void sort_samples(const K* src, const SampleSegment& s, int np, typename Sorter::TempStorage& temp,
                             U* bounds, U* pivots) {
  constexpr int S = kSampleOversampling;
  const int ns = (np + 1) * S;
  U keys[ITEMS];
  U lo = ~U{0}, hi = 0;
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int i = threadIdx.x * ITEMS + it;
    if (i < ns) {
      keys[it] = KeyTraits<K>::ordered(src[sample_offset(s.len, s.begin, u64(i))]);
      lo = keys[it] < lo ? keys[it] : lo;
      hi = keys[it] > hi ? keys[it] : hi;
    }
  }
  block_bounds(lo, hi, bounds);
  // Pads take the largest sample, which shares the prefix: they sort after it (blocked
  // loads put them last; the sort is stable) at ranks past ns, where no pivot is read.
#pragma unroll
  for (int it = 0; it < ITEMS; ++it)
    if (int(threadIdx.x) * ITEMS + it >= ns) keys[it] = bounds[1];
  const int bits = differing_low_bits(bounds[0], bounds[1]);
  if (bits > 0) Sorter(temp).Sort(keys, 0, bits);  // blocked: thread t holds ranks t*ITEMS ..
  const int end = (int(threadIdx.x) + 1) * ITEMS;
  if (end % S == 0 && end / S - 1 < np) pivots[end / S - 1] = keys[ITEMS - 1];
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads) pivots_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w,
                                                              int level) {
  using U = Ord<K, V>;
  using Sort = PivotSort<U>;
  __shared__ typename Sort::Storage temp;
  __shared__ U bounds[2];
  __shared__ int flag;
  note_began(&w.head->level[level].began_ns[kPivots]);
  const int p = level & 1;
  const SampleSegment s = w.segments[p][blockIdx.x];
  for (u32 i = threadIdx.x; i < s.blocks; i += kGridThreads) w.block_segment[p][s.first_block + i] = blockIdx.x;
  const int np = (1 << s.bits) - 1, nb = bucket_count(np);
  for (int k = threadIdx.x; k < nb; k += kGridThreads) {
    w.totals[p][s.bucket_at + k] = 0;
    w.claimed[p][s.bucket_at + k] = 0;
  }
  const K* src = b.buf[s.buf] + s.begin;
  U* pivots = w.pivots[p] + s.pivot_at;
  if ((np + 1) * kSampleOversampling <= Sort::small_items * kGridThreads)
    sort_samples<Sort::small_items, typename Sort::Small>(src, s, np, temp.small, bounds, pivots);
  else
    sort_samples<kSampleOversampling, typename Sort::Full>(src, s, np, temp.full, bounds, pivots);
  if (!last_block(&w.head->level[level].done[kPivots], flag)) return;
  if (threadIdx.x == 0) w.head->level[level].ended_ns[kPivots] = global_ns();
  if (!w.device_launches) return;
  hand_on(b, w, level, kCount, flag);
}

template <typename U>
struct CountShared {
  U pivots[kSampleMaxPivots];
  U tree[kSampleTreeNodes + 1];
  u32 count[kSampleMaxBuckets];
};

// Block t of the level's count work: its keys' buckets, kept for place, and their sizes.
template <typename K, typename V>
__device__ void count_block(const ElemBuffers<K, V>& b, const SampleWork<Ord<K, V>>& w, int level, const BlockOf& t,
                            CountShared<Ord<K, V>>& sh) {
  constexpr int I = Elem<K, V>::grid_items;
  constexpr u64 tile = Elem<K, V>::tile;
  const int p = level & 1;
  const K* src = b.buf[t.seg.buf] + t.seg.begin + t.begin;
  K x[I];
  load_striped(src, t.len < tile ? t.len : tile, x);
  const int nb = bucket_count((1 << t.seg.bits) - 1);
  for (int k = threadIdx.x; k < nb; k += kGridThreads) sh.count[k] = 0;
  load_pivots(w, level, t.seg, sh.pivots, sh.tree);
  for (u64 at = 0; at < t.len; at += tile) {
    const u64 tl = t.len - at < tile ? t.len - at : tile;
    if (at > 0) load_striped(src + at, tl, x);
    int bk[I];
    u32 unused[I];
    bucket_tile(x, tl, sh.pivots, sh.tree, t.seg.bits, bk);
    store_buckets(w.key_buckets + t.seg.begin + t.begin + at, tl, bk);
    warp_count<false>(bk, sh.count, unused);
  }
  __syncthreads();
  ull* totals = w.totals[p] + t.seg.bucket_at;
  u32* hist = w.hist[p] + t.seg.hist_at + u64(t.index) * nb;
  for (int k = threadIdx.x; k < nb; k += kGridThreads) {
    hist[k] = sh.count[k];
    if (sh.count[k] != 0) atomicAdd(&totals[k], ull(sh.count[k]));
  }
  __syncthreads();  // the counters and pivots are refilled by the block's next work
}

// Blocks of the level's count and place work. A grid launched from the device may have fewer
// blocks (SampleWork::resident), each taking every gridDim.x-th.
template <typename U>
__device__ u32 level_blocks(const SampleWork<U>& w, int level) {
  return w.head->level[level].size.block;
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads, 4) count_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w,
                                                                int level) {
  __shared__ CountShared<Ord<K, V>> sh;
  __shared__ int flag;
  note_began(&w.head->level[level].began_ns[kCount]);
  const u32 blocks = level_blocks(w, level);
  for (u32 v = blockIdx.x; v < blocks; v += gridDim.x) count_block<K, V>(b, w, level, block_of<K, V>(w, level, v), sh);
  if (!last_block(&w.head->level[level].done[kCount], flag)) return;
  if (threadIdx.x == 0) w.head->level[level].ended_ns[kCount] = global_ns();
  if (!w.device_launches) return;
  hand_on(b, w, level, kPlace, flag);
}

// Shared memory of the plan of one segment (plan_segment).
struct PlanShared {
  typename cub::BlockScan<ull, kGridThreads>::TempStorage scan;
  PoolClaim made;  // what the block's new segments take of the next level's pools, then its bases there
  ull start_of[kSampleMaxBuckets + 1];
  LeafItem run[kSampleMaxBuckets];
  ull run_base;
  u32 runs;
};

template <typename K, typename V>
__device__ void plan_segment(const SampleWork<Ord<K, V>>& w, int level, u32 index, PlanShared& sh);

template <typename K, typename V>
struct PlaceShared {
  using Scan = cub::BlockScan<ull, kGridThreads>;
  static constexpr u64 tile = Elem<K, V>::tile;
  typename Scan::TempStorage scan;
  u32 count[kSampleMaxBuckets];       // the tile's bucket sizes
  u32 tile_start[kSampleMaxBuckets];  // their starts in the tile
  ull dest[kSampleMaxBuckets];        // where the block's next key of a bucket goes
  ull run[kSampleMaxBuckets];         // where the tile's run of a bucket goes, less its start in the tile
  K keys[tile];
  std::conditional_t<Elem<K, V>::carries, V, char> vals[Elem<K, V>::carries ? tile : 1];
  std::uint16_t bucket[tile];
};

// Block t of the level's place work: its keys to their buckets' places in the other buffer.
template <typename K, typename V>
__device__ void place_block(const ElemBuffers<K, V>& b, const SampleWork<Ord<K, V>>& w, int level, const BlockOf& t,
                            PlaceShared<K, V>& sh) {
  constexpr int I = Elem<K, V>::grid_items;
  constexpr u64 tile = Elem<K, V>::tile;
  constexpr bool carries = Elem<K, V>::carries;
  const int p = level & 1;
  const u64 from = t.seg.begin + t.begin;
  K x[I];
  V y[I];
  int bk[I];
  load_striped(b.buf[t.seg.buf] + from, t.len < tile ? t.len : tile, x);
  if constexpr (carries) load_striped(b.val[t.seg.buf] + from, t.len < tile ? t.len : tile, y);
  load_buckets(w.key_buckets + from, t.len < tile ? t.len : tile, bk);
  const int nb = bucket_count((1 << t.seg.bits) - 1);
  // Where this block's run of each bucket starts: the bucket's start in the segment (a scan of
  // the segment's sizes) plus the slots claimed before it, one atomic for the block's tiles.
  {
    const ull* totals = w.totals[p] + t.seg.bucket_at;
    const u32* hist = w.hist[p] + t.seg.hist_at + u64(t.index) * nb;
    ull size[2], start[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int k = 2 * threadIdx.x + j;
      size[j] = k < nb ? totals[k] : 0;
    }
    typename PlaceShared<K, V>::Scan(sh.scan).ExclusiveSum(size, start);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int k = 2 * threadIdx.x + j;
      if (k >= nb) continue;
      const u32 mine = hist[k];
      sh.dest[k] = t.seg.begin + start[j] + (mine != 0 ? atomicAdd(&w.claimed[p][t.seg.bucket_at + k], ull(mine)) : 0);
    }
  }
  __syncthreads();  // dest
  for (u64 at = 0; at < t.len; at += tile) {
    const u64 tl = t.len - at < tile ? t.len - at : tile;
    if (at > 0) {
      load_striped(b.buf[t.seg.buf] + from + at, tl, x);
      if constexpr (carries) load_striped(b.val[t.seg.buf] + from + at, tl, y);
      load_buckets(w.key_buckets + from + at, tl, bk);
    }
    for (int k = threadIdx.x; k < nb; k += kGridThreads) sh.count[k] = 0;
    __syncthreads();
    u32 slot[I];
    warp_count<true>(bk, sh.count, slot);
    __syncthreads();
    // The tile's bucket starts (a scan of its sizes); dest becomes the run's start less that.
    ull size[2], start[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int k = 2 * threadIdx.x + j;
      size[j] = k < nb ? sh.count[k] : 0;
    }
    typename PlaceShared<K, V>::Scan(sh.scan).ExclusiveSum(size, start);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int k = 2 * threadIdx.x + j;
      if (k >= nb) continue;
      sh.tile_start[k] = u32(start[j]);
      sh.run[k] = sh.dest[k] - start[j];
      sh.dest[k] += size[j];  // the next tile's keys of bucket k follow these
    }
    __syncthreads();
#pragma unroll
    for (int it = 0; it < I; ++it)
      if (bk[it] >= 0) {
        const u32 to = sh.tile_start[bk[it]] + slot[it];
        sh.keys[to] = x[it];
        if constexpr (carries) sh.vals[to] = y[it];
        sh.bucket[to] = std::uint16_t(bk[it]);
      }
    __syncthreads();
    K* dst = b.buf[1 - t.seg.buf];
    for (u32 i = threadIdx.x; i < tl; i += kGridThreads) {
      const u64 to = sh.run[sh.bucket[i]] + i;
      dst[to] = sh.keys[i];
      if constexpr (carries) b.val[1 - t.seg.buf][to] = sh.vals[i];
    }
    __syncthreads();  // the staging buffers are refilled by the next tile
  }
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads, 3) place_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w,
                                                                int level) {
  // A block whose plan launch was refused plans in the place staging's memory.
  __shared__ union {
    PlaceShared<K, V> place;
    PlanShared plan;
  } shared;
  __shared__ int flag;
  note_began(&w.head->level[level].began_ns[kPlace]);
  const u32 blocks = level_blocks(w, level);
  for (u32 v = blockIdx.x; v < blocks; v += gridDim.x)
    place_block<K, V>(b, w, level, block_of<K, V>(w, level, v), shared.place);
  if (!last_block(&w.head->level[level].done[kPlace], flag)) return;
  if (threadIdx.x == 0) {
    w.head->level[level].ended_ns[kPlace] = global_ns();
    flag = !w.device_launches || launch_stage(b, w, level, kPlan);
  }
  __syncthreads();
  if (flag) return;
  // The plan grid was refused: this block plans every segment itself, then starts the next level.
  const u32 count = *(volatile u32*)&w.head->level[level].size.segment;
  for (u32 i = 0; i < count; ++i) plan_segment<K, V>(w, level, i, shared.plan);
  __syncthreads();
  if (threadIdx.x == 0) flag = launch_stage(b, w, level + 1, kPivots);
  __syncthreads();
  if (!flag) abandon_level(w, level + 1);
}

// Every thread of the block: hands out the buckets of segment `index` of `level` (placed in
// buffer 1 - buf). A bucket between pivots above the leaf size becomes a segment of the next
// level, an equal-key bucket above it is copied to buffer 0 in chunks (or left where it is);
// the rest are gathered into leaves (sample_leaf_runs), so that keys equal to a pivot (a
// bucket of one key, for distinct keys) ride in the leaf beside them. A run of equal-key
// buckets only is in order already: a copy leaf, or nothing in buffer 0. Thread 0 finds the
// runs in shared memory and the block appends them with one atomic: appending each from
// thread 0 cost a global atomic's round trip a leaf (128 of the 3100 us of 2^26 keys).
template <typename K, typename V>
__device__ void plan_segment(const SampleWork<Ord<K, V>>& w, int level, u32 index, PlanShared& sh) {
  using Scan = cub::BlockScan<ull, kGridThreads>;
  constexpr u64 leaf_max = Elem<K, V>::radix_max;
  const int p = level & 1;
  const SampleSegment s = w.segments[p][index];
  const int nb = bucket_count((1 << s.bits) - 1), out = 1 - s.buf;
  const ull* totals = w.totals[p] + s.bucket_at;
  if (threadIdx.x == 0) sh.made = PoolClaim{};
  __syncthreads();
  ull len[2], start[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int k = 2 * threadIdx.x + j;
    len[j] = k < nb ? totals[k] : 0;
  }
  Scan(sh.scan).ExclusiveSum(len, start);
  // New segments claim their places in the next level's pools in shared memory first, then
  // with one global atomic a pool for the block (from each thread, 128 to 256 segments of
  // 2^24 to 2^26 keys queued on the same five counters).
  const bool next_level = level + 1 < kMaxLevels;
  SampleSegment made[2];
  PoolClaim mine[2];
  bool makes[2] = {false, false};
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int k = 2 * threadIdx.x + j;
    if (k > nb) continue;
    sh.start_of[k] = start[j];
    if (len[j] <= leaf_max) continue;
    const u64 at = s.begin + start[j];
    if (!is_equal_bucket(k)) {
      if (next_level) {
        PoolClaim needs;
        made[j] = segment_of<K, V>(at, len[j], out, needs);
        mine[j] = claim(sh.made, needs);
        makes[j] = true;
      } else {
        append_segment<K, V>(w, level + 1, at, len[j], out);  // to the leaf list
      }
    } else {
      for (u64 c = 0; out != 0 && c < len[j]; c += kCopyChunk)
        append_leaf(w, LeafItem{at + c, len[j] - c < kCopyChunk ? len[j] - c : kCopyChunk, out, kLeafCopy});
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && sh.made.segment != 0) sh.made = claim(w.head->level[level + 1].size, sh.made);
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 2; ++j)
    if (makes[j]) store_segment(w, level + 1, made[j], sh.made + mine[j]);
  if (threadIdx.x == 0) {
    u32 n = 0, c = 0;
    sample_leaf_runs(sh.start_of, nb, leaf_max, [&](u64 run_begin, u64 run_len, bool equal_only) {
      if (equal_only && out == 0) return;
      sh.run[n++] = LeafItem{s.begin + run_begin, run_len, out, equal_only ? kLeafCopy : kLeafSort};
      c += equal_only ? 1 : 0;
    });
    sh.runs = n;
    sh.run_base = n != 0 ? atomicAdd(&w.head->leaves, ull(n)) : 0;
    if (c != 0) atomicAdd(&w.head->leaf_kinds[kLeafCopy], ull(c));
    if (n != c) atomicAdd(&w.head->leaf_kinds[kLeafSort], ull(n - c));
  }
  __syncthreads();
  for (u32 i = threadIdx.x; i < sh.runs; i += kGridThreads)
    if (sh.run_base + i < w.cap.leaves) w.leaves[sh.run_base + i] = sh.run[i];
  __syncthreads();  // the scan storage, starts and runs are reused by the next segment
}

template <typename K, typename V>
__global__ void __launch_bounds__(kGridThreads) plan_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w, int level) {
  __shared__ PlanShared sh;
  __shared__ int flag;
  note_began(&w.head->level[level].began_ns[kPlan]);
  plan_segment<K, V>(w, level, blockIdx.x, sh);
  if (!last_block(&w.head->level[level].done[kPlan], flag)) return;
  if (threadIdx.x == 0) w.head->level[level].ended_ns[kPlan] = global_ns();
  if (!w.device_launches) return;
  hand_on(b, w, level + 1, kPivots, flag);
}

// The whole input: one leaf when it fits one, else the first level's segment (depth 0).
template <typename K, typename V>
__global__ void root_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w, u64 n) {
  w.head->root_ns = global_ns();
  if (n <= Elem<K, V>::radix_max) {
    append_leaf(w, LeafItem{0, n, 0, kLeafSort});
    return;
  }
  append_segment<K, V>(w, 0, 0, n, 0);
  if (w.device_launches && !launch_stage(b, w, 0, kPivots)) append_leaf(w, LeafItem{0, n, 0, kLeafBitonic});
}

// Every thread of the block: one leaf into buffer 0.
template <typename K, typename V>
__device__ void finish_leaf(ElemBuffers<K, V> b, const LeafItem& leaf,
                            RadixLeafShared<K, V, kSampleLeafThreads>& sh) {
  V* vals = nullptr;
  V* vout = nullptr;
  if constexpr (Elem<K, V>::carries) {
    vals = b.val[leaf.buf] + leaf.begin;
    vout = b.val[0] + leaf.begin;
  }
  K* keys = b.buf[leaf.buf] + leaf.begin;
  K* out = b.buf[0] + leaf.begin;
  if (leaf.kind == kLeafSort) {
    radix_finish(keys, static_cast<const V*>(vals), leaf.len, out, vout, sh);
  } else if (leaf.kind == kLeafCopy) {
    block_copy(keys, static_cast<const V*>(vals), out, vout, leaf.len);
    __syncthreads();
  } else {
    block_finish(b, Segment{leaf.begin, leaf.len, leaf.buf});
  }
}

// The leaf grid (host-launched after the tree, no device launches): each block takes the
// next leaf of the list until none is left. quick-sample-nodp may run one after a level and
// another after a level it did not expect: each takes the leaves the ones before it left.
template <typename K, typename V>
__global__ void __launch_bounds__(kSampleLeafThreads, kSampleLeafMinBlocks)
    sample_leaf_kernel(ElemBuffers<K, V> b, SampleWork<Ord<K, V>> w) {
  __shared__ RadixLeafShared<K, V, kSampleLeafThreads> sh;
  __shared__ ull taken;
  __shared__ int flag;
  if (blockIdx.x == 0 && threadIdx.x == 0 && w.head->leaf_began_ns == 0) w.head->leaf_began_ns = global_ns();
  const ull count = w.head->leaves < w.cap.leaves ? w.head->leaves : w.cap.leaves;
  for (;;) {
    if (threadIdx.x == 0) taken = atomicAdd(&w.head->leaf_taken, 1ull);
    __syncthreads();
    const ull i = taken;
    __syncthreads();  // `taken` is rewritten for the next leaf
    if (i >= count) break;
    finish_leaf(b, w.leaves[i], sh);
  }
  if (last_block(&w.head->leaf_blocks_done, flag) && threadIdx.x == 0) {
    w.head->leaf_ended_ns = global_ns();
    w.head->leaf_taken = count;  // every block took one past the list: the next leaf grid starts here
    w.head->leaf_blocks_done = 0;
  }
}

constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Where the workspace's parts start, for elements of element_bytes and keys of key_bytes.
struct SampleLayout {
  SampleCapacity cap;
  std::size_t segments[2], block_segment[2], pivots[2], totals[2], claimed[2], hist[2], key_buckets, leaves, bytes;
};
SampleLayout sample_layout(std::uint64_t n, int element_bytes, int key_bytes) {
  SampleLayout l;
  l.cap = sample_capacity(n, kTilesPerBlock * grid_tile_elements(element_bytes), radix_leaf_elements(element_bytes),
                          kCopyChunk, kMaxLevels);
  std::size_t at = aligned(sizeof(SampleHeader));
  auto take = [&at](std::size_t bytes) {
    const std::size_t here = at;
    at += aligned(bytes);
    return here;
  };
  for (int p = 0; p < 2; ++p) {
    l.segments[p] = take(l.cap.segments * sizeof(SampleSegment));
    l.block_segment[p] = take(l.cap.blocks * sizeof(u32));
    l.pivots[p] = take(l.cap.pivots * std::size_t(key_bytes));
    l.totals[p] = take(l.cap.buckets * sizeof(ull));
    l.claimed[p] = take(l.cap.buckets * sizeof(ull));
    l.hist[p] = take(l.cap.hists * sizeof(u32));
  }
  l.key_buckets = take(n * sizeof(std::int16_t));
  l.leaves = take(l.cap.leaves * sizeof(LeafItem));
  l.bytes = at;
  return l;
}

// Blocks of `kernel` (kGridThreads or kSampleLeafThreads threads) that the GPU runs at once.
template <typename Kernel>
u32 resident_blocks(Kernel kernel, int threads) {
  int device = 0, sms = 0, per_sm = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return u32(sms) * u32(per_sm > 0 ? per_sm : 1);
}

// The leaf grid's and the device-launched count and place grids' blocks (queried once per element type).
struct ResidentGrids {
  u32 leaf, count, place;
};
template <typename K, typename V>
const ResidentGrids& resident_grids() {
  static const ResidentGrids grids{resident_blocks(sample_leaf_kernel<K, V>, kSampleLeafThreads),
                                   resident_blocks(count_kernel<K, V>, kGridThreads),
                                   resident_blocks(place_kernel<K, V>, kGridThreads)};
  return grids;
}

}  // namespace

std::size_t sample_workspace_bytes(std::uint64_t n, int key_bytes, int value_bytes) {
  return sample_layout(n, key_bytes + value_bytes, key_bytes).bytes;
}

template <typename K, typename V>
void launch_quick_sample(K* const keys[2], V* const vals[2], std::uint64_t n, bool device_launches, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream) {
  using U = Ord<K, V>;
  if (n < 2) return;
  const SampleLayout l = sample_layout(n, Elem<K, V>::bytes, int(sizeof(K)));
  if (workspace_bytes < l.bytes) throw std::invalid_argument("quick-sample: workspace too small");
  char* base = static_cast<char*>(workspace);
  SampleWork<U> w;
  w.head = reinterpret_cast<SampleHeader*>(base);
  for (int p = 0; p < 2; ++p) {
    w.segments[p] = reinterpret_cast<SampleSegment*>(base + l.segments[p]);
    w.block_segment[p] = reinterpret_cast<u32*>(base + l.block_segment[p]);
    w.pivots[p] = reinterpret_cast<U*>(base + l.pivots[p]);
    w.totals[p] = reinterpret_cast<ull*>(base + l.totals[p]);
    w.claimed[p] = reinterpret_cast<ull*>(base + l.claimed[p]);
    w.hist[p] = reinterpret_cast<u32*>(base + l.hist[p]);
  }
  w.key_buckets = reinterpret_cast<std::int16_t*>(base + l.key_buckets);
  w.leaves = reinterpret_cast<LeafItem*>(base + l.leaves);
  w.cap = l.cap;
  w.device_launches = device_launches;
  const ResidentGrids& resident = resident_grids<K, V>();
  w.resident_count = resident.count;
  w.resident_place = resident.place;
  ElemBuffers<K, V> b{{keys[0], keys[1]}, {nullptr, nullptr}};
  if constexpr (Elem<K, V>::carries) {
    b.val[0] = vals[0];
    b.val[1] = vals[1];
  }
  SB_CUDA_CHECK(cudaMemsetAsync(w.head, 0, sizeof(SampleHeader), stream));
  root_kernel<<<1, 1, 0, stream>>>(b, w, n);
  SB_CUDA_CHECK_LAUNCH();
  auto launch_leaves = [&] {
    sample_leaf_kernel<<<resident.leaf, kSampleLeafThreads, 0, stream>>>(b, w);
    SB_CUDA_CHECK_LAUNCH();
  };
  if (device_launches) {
    // The stream starts the leaf grid once the root and every grid launched below it are done.
    launch_leaves();
    return;
  }
  // The paper's noDP form: the host launches each level's four grids at the sizes it reads
  // back (one stream synchronization a level), but knows the first level's (the root's
  // segment), and queues the leaf grid after the level it expects to be the last, before
  // reading the next level's sizes: 2^24 keys wait for one read-back instead of three.
  const int expected = sample_expected_levels(n, Elem<K, V>::radix_max);
  bool leaves_queued = false;
  for (int level = 0; level < kMaxLevels; ++level) {
    PoolClaim size{};
    if (level == 0) {
      if (n > Elem<K, V>::radix_max) size = PoolClaim{1, segment_blocks<K, V>(n), 0, 0, 0};
    } else {
      SB_CUDA_CHECK(cudaMemcpyAsync(&size, &w.head->level[level].size, sizeof size, cudaMemcpyDeviceToHost, stream));
      SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (size.segment == 0) break;
    pivots_kernel<K, V><<<size.segment, kGridThreads, 0, stream>>>(b, w, level);
    count_kernel<K, V><<<size.block, kGridThreads, 0, stream>>>(b, w, level);
    place_kernel<K, V><<<size.block, kGridThreads, 0, stream>>>(b, w, level);
    plan_kernel<K, V><<<size.segment, kGridThreads, 0, stream>>>(b, w, level);
    SB_CUDA_CHECK_LAUNCH();
    leaves_queued = level + 1 >= expected;
    if (leaves_queued) launch_leaves();
  }
  if (!leaves_queued) launch_leaves();
}

SampleReport read_sample_report(const void* workspace, cudaStream_t stream) {
  SampleHeader h;
  SB_CUDA_CHECK(cudaMemcpyAsync(&h, workspace, sizeof h, cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  SampleReport r;
  auto us = [](ull from, ull to) { return to > from ? double(to - from) * 1e-3 : 0.0; };
  ull tree_end = h.root_ns;
  for (int level = 0; level < kMaxLevels; ++level) {
    const LevelState& l = h.level[level];
    if (l.size.segment == 0) break;
    r.segments.push_back(l.size.segment);
    r.blocks.push_back(l.size.block);
    std::array<double, 4> stage{};
    for (int k = 0; k < kGridsPerLevel; ++k) {
      stage[k] = us(l.began_ns[k], l.ended_ns[k]);
      if (l.ended_ns[k] > tree_end) tree_end = l.ended_ns[k];
    }
    r.stage_us.push_back(stage);
  }
  r.tree_us = us(h.root_ns, tree_end);
  r.leaf_us = us(h.leaf_began_ns, h.leaf_ended_ns);
  r.sort_leaves = h.leaf_kinds[kLeafSort];
  r.copy_leaves = h.leaf_kinds[kLeafCopy];
  r.bitonic_leaves = h.leaf_kinds[kLeafBitonic];
  r.launches = h.launches;
  r.refused = h.refused;
  return r;
}

#define SB_QS_SAMPLE_INSTANTIATE(K, V)                                                                             \
  template void launch_quick_sample<K, V>(K* const[2], V* const[2], std::uint64_t, bool, void*, std::size_t, \
                                          cudaStream_t);
SB_FOR_EACH_SCALAR_ELEMENT(SB_QS_SAMPLE_INSTANTIATE)
#undef SB_QS_SAMPLE_INSTANTIATE

}  // namespace sb::qs
