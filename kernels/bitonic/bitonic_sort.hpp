// Host side of the bitonic family: launch shapes read from the device, the padded buffers,
// the launch loop of a schedule, and the traffic it moves (bitonic_sort.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bitonic_schedule.hpp"
#include "sortbench/algo/algorithm.hpp"
#include "sortbench/core/element.hpp"

namespace sb::bitonic {

// The element types a schedule takes (Schedule::all_types). The seeds' schedules keep what
// the seeds define: 32-bit keys and the 32-bit index payload (whose column also carries u32).
// Ours take every scalar key type and value column.
using SeedKeys = Keys32;
using SeedValues = TypeList<NoValue, std::uint32_t>;
using AllTypesKeys = ScalarKeys;
using AllTypesValues = AllValues;

// Block and tile sizes of one run: from the device's limits, or from --param tile= / block= /
// shared_block= / round=.
struct LaunchShape {
  unsigned log_n = 0;           // padded size 2^log_n
  unsigned tile_log = 0;        // shared-memory tile: 2^tile_log elements (<= log_n)
  std::size_t tile_bytes = 0;   // dynamic shared memory of a shared-memory block: the tile's keys and values
  unsigned shared_round = 1;    // steps per shared-memory round (the schedule's, or --param round=)
  unsigned shared_threads = 0;  // threads of a shared-memory block
  unsigned tiles_per_sm = 0;    // shared-memory blocks resident per SM (shared memory and registers)
  unsigned global_threads = 0;  // threads of a B2..B16 / split block
};

// The most threads per block the schedule's kernels can launch with, for this key type and
// payload (their register use decides): global-memory kernels (B2.. and split) and the
// shared-memory kernel of `shared_round` steps per round, whose registers per thread decide
// how many of its blocks share an SM. Key types and payloads outside AllTypesKeys x
// AllTypesValues throw std::logic_error (the harness checks them first). The kernels'
// attributes come from device's memo, asked once per device (a run's launch shape is read in
// its timed region); without a device, from the current device on every call.
struct KernelLimits {
  unsigned global_threads;
  unsigned shared_threads;
  unsigned shared_regs;
};
KernelLimits kernel_limits(const Schedule& s, unsigned shared_round, KeyType key, Payload payload,
                           const DeviceContext* device = nullptr);

// The device's numbers that launch_shape reads (cudaDeviceProp), so that its arithmetic runs
// on the CPU in tests.
struct DeviceLimits {
  unsigned warp;
  unsigned max_block_threads;
  std::size_t shared_per_block_optin;  // a block's opt-in shared memory
  std::size_t shared_per_sm;
  std::size_t shared_reserved_per_block;
  unsigned threads_per_sm;
  unsigned blocks_per_sm;
  unsigned regs_per_sm;
};

// Bytes of one element in global and shared memory: the key, plus the value column's word
// (u64 keys with a u64 payload: 16).
std::size_t element_bytes(KeyType key, Payload payload);
// The default tile: the largest power of two of elem-byte elements that one block may hold
// in its opt-in shared memory, with at least two such blocks sharing an SM.
std::uint64_t default_tile(std::size_t elem, const DeviceLimits& d);
// The steps per shared-memory round: the schedule's, or --param round= (1, 2 or 4; else
// UsageError).
unsigned shared_round_of(const Schedule& s, const SortProblem& p);

// The launch shape from the device's numbers and the kernels' limits (kernel_limits for
// shared_round_of(s, p)): host arithmetic only. Throws UsageError for a tile or block
// parameter the device cannot take.
LaunchShape launch_shape(const Schedule& s, const SortProblem& p, const DeviceLimits& d, const KernelLimits& k);
// The same on `device` (null: the current device).
LaunchShape launch_shape(const Schedule& s, const SortProblem& p, const DeviceContext* device);
// The same on the problem's device (p.device, else the current one).
LaunchShape launch_shape(const Schedule& s, const SortProblem& p);
// Why this input cannot be taken (parameters included), or nullopt.
std::optional<std::string> unsupported_reason(const Schedule& s, const SortProblem& p);

// The workspace holds the padded keys, then (at this offset, 256-byte aligned) the padded
// values.
inline std::size_t padded_vals_offset(std::uint64_t padded, std::size_t key_bytes) {
  return (padded * key_bytes + 255) & ~std::size_t{255};
}
std::size_t workspace_bytes(const SortProblem& p);

// Sorts one run of element type (K, V), K in AllTypesKeys and V in AllTypesValues (explicit
// instantiations in bitonic_sort.cu); the registration's set_device_run calls it.
template <typename K, typename V>
int sort_device(const Schedule& s, const SortProblem& p, const Buffers<K, V>& b);

Details details(const Schedule& s, const SortProblem& p);

}  // namespace sb::bitonic
