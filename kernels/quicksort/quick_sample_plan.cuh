// quick-sample's plan (beyond seed 002; issue 18; the method in quick_sample.cu): its
// constants, the workspace's parts that the grids and the host launcher share (the header,
// two sets of level pools, the leaf list) and where each part starts. Included by
// quick_sample.cu alone: its names stay in that file's unnamed namespace.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quick_leaf.cuh"
#include "quicksort_index.hpp"

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
// quarter of one a tile (docs/quicksort.md, kTilesPerBlock).
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
  // taking every gridDim.x-th block of the level's work, which beat a block per 4 tiles
  // (docs/quicksort.md, resident_count).
  u32 resident_count, resident_place;
};

template <typename K, typename V>
using Ord = typename Elem<K, V>::Ordered;

// Blocks of the count and place grids of a segment of len elements.
template <typename K, typename V>
__host__ __device__ u32 segment_blocks(u64 len) {
  return u32((len + kBlockElements<K, V> - 1) / kBlockElements<K, V>);
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

}  // namespace
}  // namespace sb::qs
