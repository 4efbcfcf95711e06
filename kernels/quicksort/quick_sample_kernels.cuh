// quick-sample's grids (beyond seed 002; issue 18; the method in quick_sample.cu): each
// level's pivots, count, place and plan grids, each launched from the device by the last
// block of the one before it, the root that starts the tree, and the leaf grid. Included by
// quick_sample.cu alone: its kernels stay in that file's unnamed namespace.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "quick_leaf.cuh"
#include "quick_sample_lists.cuh"
#include "quick_sample_plan.cuh"

namespace sb::qs {
namespace {

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
// pivots, 4 for splits of up to 63, whose pivots grid a full-size sort slows where a level has
// thousands of small segments (docs/quicksort.md, PivotSort).
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
// thread 0 cost a global atomic's round trip a leaf (docs/quicksort.md, plan_segment).
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

}  // namespace
}  // namespace sb::qs
