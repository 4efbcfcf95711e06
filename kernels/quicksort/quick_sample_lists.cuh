// quick-sample's lists on the device (beyond seed 002; issue 18; the method in quick_sample.cu):
// a level's segments and the leaves, appended by one thread and claimed from the pools, and the
// GPU clock its grids note their times with. Included by quick_sample_kernels.cuh alone (so by
// quick_sample.cu alone): like the grids, these stay in that file's unnamed namespace.
#pragma once

#include "quick_sample_plan.cuh"

namespace sb::qs {
namespace {

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

// One thread: appends a leaf (a full list is impossible by sample_capacity; refused anyway).
template <typename U>
__device__ void append_leaf(const SampleWork<U>& w, LeafItem item) {
  const ull at = atomicAdd(&w.head->leaves, 1ull);
  if (at < w.cap.leaves) w.leaves[at] = item;
  atomicAdd(&w.head->leaf_kinds[item.kind], 1ull);
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

}  // namespace
}  // namespace sb::qs
