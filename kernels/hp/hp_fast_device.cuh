// What every kernel of the faster H-P versions uses (beyond seed 004; method notes in
// docs/hp.md): index helpers and the ranking of a tile's keys by bucket that the hybrid's split
// and hp-tiled's grouping share.
#pragma once

#include <cstdint>
#include <type_traits>

#include "hp_index.hpp"
#include "sortbench/core/element.hpp"

namespace sb::hp::fast {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

__device__ __forceinline__ u64 global_thread() { return blockIdx.x * u64{blockDim.x} + threadIdx.x; }
__device__ __forceinline__ u64 global_threads() { return u64{gridDim.x} * blockDim.x; }

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x % 32; }

// Adds to a bin count of either width: std::uint64_t is unsigned long here, which atomicAdd
// does not take.
__device__ __forceinline__ void add_count(u32* count, u32 v) { atomicAdd(count, v); }
__device__ __forceinline__ void add_count(u64* count, u32 v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(count), static_cast<unsigned long long>(v));
}

// A key's rank among the tile's keys of its bucket, counted in s_count (bucket >= buckets: no
// key, rank 0). A shared atomic per key; a warp whose keys share one bucket (sorted or
// clustered input) takes its 32 ranks with one atomic instead of 32 conflicting ones, and no
// __match_any_sync, which left the hybrid's scatter compute bound (docs/hp.md,
// rank_in_bucket). Every lane of the warp calls it.
__device__ __forceinline__ u32 rank_in_bucket(u32 bucket, u32 buckets, u32* s_count) {
  const u32 lane0_bucket = __shfl_sync(0xffffffffu, bucket, 0);
  if (__all_sync(0xffffffffu, bucket == lane0_bucket)) {
    u32 base = 0;
    if (lane_id() == 0 && lane0_bucket < buckets) base = atomicAdd(&s_count[lane0_bucket], 32u);
    return __shfl_sync(0xffffffffu, base, 0) + lane_id();
  }
  return bucket < buckets ? atomicAdd(&s_count[bucket], 1u) : 0;
}

// The exclusive scan of a tile's bucket counts, per_thread consecutive buckets a thread;
// first(b, slot) hears each bucket's first slot in the tile.
template <typename Scan, typename First>
__device__ __forceinline__ void scan_bucket_counts(const u32* s_count, u32 buckets, u32 per_thread,
                                                   typename Scan::TempStorage& temp, First first) {
  const u32 b0 = threadIdx.x * per_thread;
  u32 sum = 0;
  for (u32 b = b0; b < b0 + per_thread && b < buckets; ++b) sum += s_count[b];
  Scan(temp).ExclusiveSum(sum, sum);
  for (u32 b = b0; b < b0 + per_thread && b < buckets; ++b) {
    first(b, sum);
    sum += s_count[b];
  }
}

}  // namespace sb::hp::fast
