// The workspace of a fast H-P run (hp_fast.cu's launches): the tuning constants the layout and
// the launches share, the scans' temporary sizes, the bucket widths and group counts, and
// FastArrays, which carves the workspace (docs/hp.md names where each constant was measured).
#pragma once

#include <algorithm>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include "hp.hpp"
#include "hp_fast_kernels.cuh"
#include "hp_split_kernels.cuh"
#include "hp_fast_plan.hpp"
#include "hp_index.hpp"
#include "sortbench/core/cuda_check.hpp"

namespace sb::hp::fast {

constexpr unsigned kHistBlock = 1024;
constexpr unsigned kPartBlock = 512;
// Shared memory a privatized histogram block aims at when the bins leave room for copies:
// two 1024-thread blocks still fit on one SM.
constexpr std::size_t kSharedCopiesBytes = 48 * 1024;
constexpr unsigned kWarpsPerHistBlock = kHistBlock / 32;
constexpr std::uint64_t kKeysPerPart = 16384;  // hybrid partition granularity
// tiled_low_bits narrows the buckets only while a tile's segments average this many keys: 256
// buckets of 8192-key tiles, faster than 512 (docs/hp.md, tiled_low_bits).
constexpr std::uint64_t kTiledMinSegmentKeys = 32;
// A group past the first adds its bucket's counts to A with one atomic per non-empty bin;
// groups * range stays within n / kKeysPerFlushedBin (bucket_groups).
constexpr std::uint64_t kKeysPerFlushedBin = 8;
// Past one wave of segment_hist blocks (n above ~2^26.6 on an H200), bucket_groups keeps a
// block to about this many keys: the group counts fastest at n = 2^28 (docs/hp.md,
// kSegKeysPerBlock).
constexpr std::uint64_t kSegKeysPerBlock = std::uint64_t{1} << 18;
// segment_runs (one block a bucket that also writes the bucket's runs) replaces segment_hist
// and the scan where each bucket is one group and a thread counts at most this many tiles:
// faster at 4, slower at 16 and 64 (docs/hp.md, kRunsMaxTilesPerThread).
constexpr std::uint64_t kRunsMaxTilesPerThread = 4;
// hp-tiled with a payload: place_pairs blocks for this many waves of the resident ones
// (pair_groups), the groups' counts at most one word per kPairKeysPerCountWord keys.
constexpr std::uint64_t kPairWaves = 4;
constexpr std::uint64_t kPairKeysPerCountWord = 2;

template <typename Count = u32>
using RunsIn = thrust::transform_iterator<PackBin<Count>, thrust::counting_iterator<u64>>;
template <typename W, typename Count = u32>
using RunsOut = thrust::tabulate_output_iterator<EmitRun<W, Count>>;

using PackedRunsIn = thrust::transform_iterator<PackWideBin, thrust::counting_iterator<u64>>;
template <typename W>
using PackedRunsOut = thrust::tabulate_output_iterator<EmitPackedRun<W>>;

template <typename W, typename Count>
std::size_t runs_scan_temp_bytes(u64 range) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes,
                                              RunsIn<Count>(thrust::counting_iterator<u64>(0), PackBin<Count>{}),
                                              RunsOut<W, Count>(EmitRun<W, Count>{}), static_cast<std::int64_t>(range)));
  if constexpr (std::is_same_v<Count, u64>) {
    std::size_t packed = 0;
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, packed,
                                                PackedRunsIn(thrust::counting_iterator<u64>(0), PackWideBin{}),
                                                PackedRunsOut<W>(EmitPackedRun<W>{}),
                                                static_cast<std::int64_t>(range)));
    bytes = std::max(bytes, packed);
  }
  return bytes;
}

// Temporary bytes of the dense expansion's inclusive scan of A in place.
template <typename Count>
std::size_t dense_scan_temp_bytes(u64 range) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<Count*>(nullptr), static_cast<Count*>(nullptr),
                                              static_cast<std::int64_t>(range)));
  return bytes;
}

// The hybrid's bucket counts read as 64-bit words, scanned into 64-bit offsets (2^32 keys or more).
struct WidenCount {
  __host__ __device__ u64 operator()(u32 c) const { return c; }
};
using WideCounts = thrust::transform_iterator<WidenCount, const u32*>;
inline std::size_t wide_offsets_scan_temp_bytes(u64 n) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, WideCounts(nullptr, WidenCount{}),
                                              static_cast<u64*>(nullptr), static_cast<std::int64_t>(n)));
  return bytes;
}

// Temporary bytes of the exclusive scan of n u32 words (bucket and bin cursors).
inline std::size_t cursor_scan_temp_bytes(u64 n) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<u32*>(nullptr), static_cast<u32*>(nullptr),
                                              static_cast<std::int64_t>(n)));
  return bytes;
}

// hp-tiled's bucket width: --param low_bits, else tiled_low_bits at the segment_hist blocks
// the kernel is built to keep on each SM (the same on every call, so the workspace's layout
// and the run agree). Two levels keep 2^14-bin buckets: a super-bucket's tiles are whole.
inline unsigned tiled_width(const SortProblem& p, bool stable) {
  if (p.params.count("low_bits")) return low_bits_of(p, kTiledLowBits, tiled_name(stable));
  if (!p.has_payload() && tiled_levels(p) == 2) return kTiledLowBits;
  const std::uint64_t resident = std::uint64_t(kSegBlocksPerSm) * device_facts(p).sms;
  return tiled_low_bits(p.n(), problem_range(p), kTile, resident, kKeysPerFlushedBin, kSegKeysPerBlock, kLowBitsMin,
                        kTiledLowBits, kTiledMinSegmentKeys);
}

// place_pairs' shared memory, static part included.
inline std::size_t place_shared_total(unsigned low_bits, std::size_t value_bytes, bool stable) {
  return place_shared_bytes(low_bits, value_bytes, stable) + sizeof(PlaceScan::TempStorage);
}

// Bucket width of the variants that split (0: no split).
inline unsigned low_bits_for(Histogram h, const SortProblem& p) {
  if (h == Histogram::hybrid) return hybrid_low_bits(p);
  const bool stable = h == Histogram::tiled_stable;
  if (tiles(h)) return p.has_payload() ? tiled_pair_width(p, stable) : tiled_width(p, stable);
  return 0;
}

// Groups per bucket of hp-tiled's key-value path: segment_hist and place_pairs share them.
inline std::uint64_t tiled_pair_groups(u64 n, u64 range, u64 buckets, unsigned low_bits, std::size_t value_bytes,
                                bool stable, const DeviceFacts& d) {
  const std::size_t per_block = place_shared_total(low_bits, value_bytes, stable) + kReservedSharedPerBlock;
  const std::uint64_t per_sm = std::clamp<std::uint64_t>(d.smem_per_sm / per_block, 1, 2);
  return pair_groups(buckets, ceil_div(n, kTile), per_sm * d.sms, kPairWaves, n, range, kPairKeysPerCountWord);
}

inline std::uint64_t hybrid_parts(u64 n, const DeviceFacts& d) {
  const u64 by_size = ceil_div(n ? n : 1, kKeysPerPart);
  return min_u64(by_size, std::uint64_t(d.sms) * 8);
}
// Two levels: the partition's parts, one persistent split_scatter block each (three an SM).
inline std::uint64_t split_parts(u64 n, const DeviceFacts& d) {
  return min_u64(ceil_div(n ? n : 1, kTile), std::uint64_t(d.sms) * kSplitScatterBlocksPerSm);
}

// The workspace of a fast run; a layout pass (base == nullptr) only sums the sizes. Keys
// only: the runs (dense: A's scan is the runs, dense_expansion) and the expansion windows;
// with a payload A alone (it becomes the cursors),
// for hp-tiled one A a group (value_bytes: the payload's width). Count: the width of A and
// the run ends (u64 where n >= 2^32, hp-tiled's and the hybrid's keys-only paths). split.supers != 0: hp-tiled
// in two levels, with the partitioned array, its counts and offsets, and its tiles' firsts.
template <typename W, typename Count = u32>
struct FastArrays {
  Count *A, *run_end = nullptr, *len = nullptr;
  u32* counts = nullptr;
  u64* wide_offsets = nullptr;  // the hybrid with 64-bit counts: the counts' exclusive scan
  u32* seg_start = nullptr;  // hp-tiled: where each bucket's segment starts in each tile
  void* bucket_scan = nullptr;  // hp-tiled, keys only: the buckets' look-back states (segment_runs)
  std::size_t bucket_scan_bytes = 0;
  W* run_val = nullptr;
  uint2* window = nullptr;  // each expansion tile's (first run, run count)
  void* temp;
  std::size_t temp_bytes;
  u64 parts = 0, buckets = 0;
  u64 groups = 1;  // hp-tiled with a payload: groups per bucket, each with its own A ...
  u32* bin_total = nullptr;  // ... and the bins' totals over the groups
  unsigned low_bits = 0;
  SplitPlan split;  // two levels: the plan, and
  u64 split_tiles = 0;  // the padded array's tiles (a bound: the counts stay on the device)
  u32* xpart = nullptr;  // the partitioned array (offsets inside each super-bucket)
  std::uint16_t* split_low = nullptr;  // the grouped low bits, where keys[1] is too small for them
  u64 *split_totals = nullptr, *split_offsets = nullptr, *tile_first = nullptr;
  FastArrays(char* base, u64 n, u64 range, unsigned hybrid_low_bits, bool pairs, const DeviceFacts& d,
             bool tiled = false, std::size_t value_bytes = 0, bool stable = false, SplitPlan two_levels = {},
             bool dense = false)
      : low_bits(hybrid_low_bits), split(two_levels) {
    Carve c;
    const u64 m = min_u64(n, range);
    // value_bytes 0 with pairs: hp-tiled's histogram alone (hp::histogram), no groups.
    const bool tiled_pairs = pairs && tiled && low_bits && value_bytes;
    if (tiled_pairs)
      groups = tiled_pair_groups(n, range, buckets_for(range, low_bits), low_bits, value_bytes, stable, d);
    A = reinterpret_cast<Count*>(base + c.take(groups * range * sizeof(Count)));
    if (tiled_pairs) {
      bin_total = reinterpret_cast<u32*>(base + c.take(range * sizeof(u32)));
      temp_bytes = cursor_scan_temp_bytes(range);
    } else if (pairs) {
      temp_bytes = cursor_scan_temp_bytes(range);
    } else if (dense) {
      window = reinterpret_cast<uint2*>(base + c.take(ceil_div(n, kExpandTile) * sizeof(uint2)));
      temp_bytes = dense_scan_temp_bytes<Count>(range);
    } else {
      run_end = reinterpret_cast<Count*>(base + c.take(m * sizeof(Count)));
      run_val = reinterpret_cast<W*>(base + c.take(m * sizeof(W)));
      len = reinterpret_cast<Count*>(base + c.take(sizeof(Count)));
      window = reinterpret_cast<uint2*>(base + c.take(ceil_div(n, kExpandTile) * sizeof(uint2)));
      temp_bytes = runs_scan_temp_bytes<W, Count>(range);
    }
    if (split.supers) {
      buckets = split.fine_per_super + 1;  // and the padding's bucket
      parts = split_parts(n, d);
      split_tiles = split_tiles_bound(n, split.supers, kTile);
      counts = reinterpret_cast<u32*>(base + c.take(split.supers * parts * sizeof(u32)));
      split_totals = reinterpret_cast<u64*>(base + c.take(split.supers * sizeof(u64)));
      split_offsets = reinterpret_cast<u64*>(base + c.take(split.supers * parts * sizeof(u64)));
      tile_first = reinterpret_cast<u64*>(base + c.take((split.supers + 1) * sizeof(u64)));
      xpart = reinterpret_cast<u32*>(base + c.take(split_tiles * kTile * sizeof(u32)));
      if (split_tiles * kTile * sizeof(std::uint16_t) > n * sizeof(W))
        split_low = reinterpret_cast<std::uint16_t*>(base + c.take(split_tiles * kTile * sizeof(std::uint16_t)));
      seg_start = reinterpret_cast<u32*>(base + c.take(segment_table_words(buckets, split_tiles) * sizeof(u32)));
    } else if (low_bits && tiled) {
      buckets = buckets_for(range, low_bits);
      seg_start = reinterpret_cast<u32*>(base + c.take(segment_table_words(buckets, ceil_div(n, kTile)) * sizeof(u32)));
      if (!pairs) {
        SB_CUDA_CHECK(BucketScanState::AllocationSize(static_cast<int>(buckets), bucket_scan_bytes));
        bucket_scan = base + c.take(bucket_scan_bytes);
      }
    } else if (low_bits) {
      parts = hybrid_parts(n, d);
      buckets = buckets_for(range, low_bits);
      counts = reinterpret_cast<u32*>(base + c.take(parts * buckets * sizeof(u32)));
      if constexpr (std::is_same_v<Count, u64>) {
        wide_offsets = reinterpret_cast<u64*>(base + c.take(parts * buckets * sizeof(u64)));
        temp_bytes = std::max(temp_bytes, wide_offsets_scan_temp_bytes(parts * buckets));
      } else {
        temp_bytes = std::max(temp_bytes, cursor_scan_temp_bytes(parts * buckets));
      }
    }
    temp = base + c.take(temp_bytes);
    bytes = c.used;
  }
  std::size_t bytes = 0;
};

}  // namespace sb::hp::fast
