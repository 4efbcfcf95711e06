// dist-sample-sort partition-first's split on two ranks (issue 51): the slice split by
// destination in one pass, its own part from the front of the split slice and the peer's from
// the back. In a header of its own so that the quick GPU tier runs it on one GPU
// (tests/gpu/split_in_two_gpu_test.cu); dist_sample_sort_partition.cu launches it. The
// placement arithmetic is dist_index.hpp's pack_ends and two_way_place, CPU-tested.
#pragma once

#include <cstdint>

#include "dist_index.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::dist {

// The stable split reads the slice twice and scans an offset per tile and slot: 7.7 ms for
// 2^30 keys a rank on an H200, where one read and one write take about 2. With two ranks and
// keys alone each tile instead takes its places at both ends of the split slice by one atomic
// add per end; its (item, warp) groups count both ends in one packed word, and one warp scans
// the tile's words. 16 items a thread: half as many tiles, so half as many atomic adds, as
// the stable split's 8 would make.
constexpr int kTwoWayBlock = 256;
constexpr int kTwoWayWarps = kTwoWayBlock / 32;
constexpr int kTwoWayItems = 16;
constexpr std::uint64_t kTwoWayTile = std::uint64_t{kTwoWayBlock} * kTwoWayItems;
constexpr int kTwoWayGroups = kTwoWayItems * kTwoWayWarps;
static_assert(kTwoWayTile < (std::uint64_t{1} << kEndBits), "a tile's count at an end must fit half a word");
static_assert(kTwoWayGroups == 4 * 32, "one warp scans the groups, four a lane");

// Rank `me` of two splits its slice keys[0, count) into out, by the one splitter: out[0, front)
// holds its elements for itself, out[front, count) those for the peer, in no particular order,
// where front = ends[0] and count - front = ends[1] afterwards (ends zeroed before the launch).
// One block a tile of kTwoWayTile keys.
template <typename K>
__global__ void __launch_bounds__(kTwoWayBlock)
    split_in_two(const K* keys, std::uint64_t count, const Splitter* splitters, std::uint32_t me, std::uint64_t* ends,
                 K* out) {
  __shared__ std::uint32_t group_prefix[kTwoWayGroups];  // the groups' packed counts, then their scan
  __shared__ std::uint64_t tile_base[2];                 // the tile's first place at each end
  const Splitter splitter = splitters[0];
  const std::uint64_t begin = blockIdx.x * kTwoWayTile;
  const std::uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::uint32_t lanes_below = (1u << lane) - 1;
  K k[kTwoWayItems];
#pragma unroll
  for (int j = 0; j < kTwoWayItems; ++j) {
    const std::uint64_t i = begin + std::uint64_t(j) * kTwoWayBlock + threadIdx.x;
    if (i < count) k[j] = keys[i];
  }
  // The lanes of item j's group that hold an element: recomputed, not kept (16 registers less).
  auto valid_lanes = [&](int j) {
    const std::uint64_t first = begin + std::uint64_t(j) * kTwoWayBlock + warp * 32;
    return first >= count ? 0u : count - first >= 32 ? 0xffffffffu : (1u << (count - first)) - 1;
  };
  std::uint32_t fronts[kTwoWayItems];
#pragma unroll
  for (int j = 0; j < kTwoWayItems; ++j) {
    const std::uint64_t i = begin + std::uint64_t(j) * kTwoWayBlock + threadIdx.x;
    const std::uint64_t key = i < count ? static_cast<std::uint64_t>(KeyTraits<K>::ordered(k[j])) : 0;
    const bool front = i < count && destination_of(key, me, i, &splitter, 1) == me;
    fronts[j] = __ballot_sync(0xffffffffu, front);
    if (lane == 0)
      group_prefix[j * kTwoWayWarps + warp] = pack_ends(__popc(fronts[j]), __popc(valid_lanes(j) & ~fronts[j]));
  }
  __syncthreads();
  if (warp == 0) {
    std::uint32_t group[4], sum = 0;
#pragma unroll
    for (int q = 0; q < 4; ++q) sum += group[q] = group_prefix[lane * 4 + q];
    std::uint32_t inclusive = sum;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const std::uint32_t up = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= std::uint32_t(d)) inclusive += up;
    }
    std::uint32_t running = inclusive - sum;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      group_prefix[lane * 4 + q] = running;
      running += group[q];
    }
    if (lane == 31) {
      using ull = unsigned long long;
      tile_base[0] = atomicAdd(reinterpret_cast<ull*>(&ends[0]), ull{front_of(inclusive)});
      tile_base[1] = atomicAdd(reinterpret_cast<ull*>(&ends[1]), ull{back_of(inclusive)});
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kTwoWayItems; ++j) {
    const std::uint32_t valid = valid_lanes(j);
    if (!(valid >> lane & 1u)) continue;
    const std::uint32_t prefix = group_prefix[j * kTwoWayWarps + warp];
    const bool front = fronts[j] >> lane & 1u;
    const std::uint64_t taken = front ? tile_base[0] + front_of(prefix) + __popc(fronts[j] & lanes_below)
                                      : tile_base[1] + back_of(prefix) + __popc(valid & ~fronts[j] & lanes_below);
    out[two_way_place(front, taken, count)] = k[j];
  }
}

}  // namespace sb::dist
