// Host launchers of the quicksort family (seed 002). Each enqueues one sort of keys[0]
// on a stream; the sorted keys end in keys[0]. keys[1] is scratch of the same size.
#pragma once

#include <cstddef>
#include <array>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "sortbench/core/device_context.hpp"

namespace sb::qs {

// The paper's Partition variants (section 4).
enum class Method {
  seq,      // Sequential: one thread partitions
  prefix,   // Prefix: one warp, warp-shuffle prefix sum, K parts in log2 K rounds
  pprefix,  // P-Prefix: round r splits its 2^r parts with 2^r warps at once
  direct,   // Direct-Prefix: one warp, one K-way pass, two prefix sums (count, place)
};

const char* to_string(Method m);

// Dynamic Parallelism: one block per segment, children launched from the device.
template <typename T>
void launch_quick_dp(Method m, T* const keys[2], std::uint64_t n, int arity, cudaStream_t stream);

// noDP: the host drives the recursion level by level (one launch per level, one block per
// segment) and reads the next level's segment count: one stream synchronization per level.
std::size_t nodp_workspace_bytes(std::uint64_t n);
template <typename T>
void run_quick_nodp(Method m, T* const keys[2], std::uint64_t n, int arity, void* workspace, cudaStream_t stream);

// Merge sort with Dynamic Parallelism: children sort the halves, a tail launch merges them.
template <typename T>
void launch_merge_dp(T* const keys[2], std::uint64_t n, cudaStream_t stream);

// quick-fast: grid-wide K-way splits above 2^grid_log2 keys (DP), then one leaf grid in which
// each block sorts one smaller part: block-wide splits in global memory above 2^smem_log2
// keys, in shared memory below, CUB BlockRadixSort for parts up to 4096 4-byte keys (fewer
// for wider elements). K: any scalar key type; V: NoValue (keys only), std::uint32_t or
// std::uint64_t, the values moving with their keys (vals[] as keys[]; unused for NoValue).
// device: the run's context, whose memo keeps the leaf grid's shared-memory limit and occupancy
// (null: asked of the current device on every call).
struct FastOptions {
  int arity;      // split arity K: 2, 4, 8
  int smem_log2;  // leaf parts of up to 2^smem_log2 elements are split in shared memory
  int grid_log2;  // segments above 2^grid_log2 elements are split by grids
};
std::size_t fast_workspace_bytes(std::uint64_t n, int grid_log2);
template <typename K, typename V>
void launch_quick_fast(K* const keys[2], V* const vals[2], std::uint64_t n, const FastOptions& opt, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream, const DeviceContext* device = nullptr);

// quick-sample: sample sort, up to 255 pivots a split from a sorted sample, every segment of a
// level split by one set of grids (quick_sample.cu), leaves of up to 4096 4-byte elements
// sorted by one leaf grid. The device launches each level's grids (device_launches), or the
// host does after reading the level's sizes back, one stream synchronization a level past the
// first (noDP; its leaf grid goes after the level it expects to be the last, and another
// follows any level it did not expect).
// K, V and device as for quick-fast (the memo keeps the grids' occupancy).
std::size_t sample_workspace_bytes(std::uint64_t n, int key_bytes, int value_bytes);
template <typename K, typename V>
void launch_quick_sample(K* const keys[2], V* const vals[2], std::uint64_t n, bool device_launches, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream, const DeviceContext* device = nullptr);
// What the last quick-sample sort in `workspace` did, read back after `stream` is done.
struct SampleReport {
  std::vector<std::uint64_t> segments;  // per level: segments split, tiles (blocks) of its grids
  std::vector<std::uint64_t> blocks;
  std::uint64_t sort_leaves = 0, copy_leaves = 0, bitonic_leaves = 0;
  std::uint32_t launches = 0, refused = 0;  // grids the device launched, and launches it refused
  // Microseconds, on the GPU's clock: each level's pivots, count, place and plan grids (first
  // block's start to last block's end), the whole tree (root to the last grid's end), the leaf
  // grids (the first one's start to the last one's end).
  std::vector<std::array<double, 4>> stage_us;
  double tree_us = 0, leaf_us = 0;
};
SampleReport read_sample_report(const void* workspace, cudaStream_t stream);

// The pending-launch buffer of the DP sorts (cudaLimitDevRuntimePendingLaunchCount), a
// device-wide limit. raise_pending_launches (prepare, untimed) raises it on the current device
// to at least `count` and keeps the value it found in the device's context;
// release_pending_launches (release) puts that value back.
void raise_pending_launches(const DeviceContext& device, std::uint64_t count);
void release_pending_launches(const DeviceContext& device) noexcept;

}  // namespace sb::qs
