// Host side of the bitonic family: launch shapes read from the device, the padded buffers,
// the launch loop of a schedule, and the traffic it moves (bitonic_sort.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bitonic_schedule.hpp"
#include "sortbench/algorithm.hpp"

namespace sb::bitonic {

// Block and tile sizes of one run: from the device's limits, or from --param tile= / block= /
// shared_block= / round=.
struct LaunchShape {
  unsigned log_n = 0;           // padded size 2^log_n
  unsigned tile_log = 0;        // shared-memory tile: 2^tile_log elements (<= log_n)
  unsigned shared_round = 1;    // steps per shared-memory round (the schedule's, or --param round=)
  unsigned shared_threads = 0;  // threads of a shared-memory block
  unsigned tiles_per_sm = 0;    // shared-memory blocks resident per SM (shared memory and registers)
  unsigned global_threads = 0;  // threads of a B2..B16 / split block
};

// The most threads per block the schedule's kernels can launch with, for this key type and
// payload (their register use decides): global-memory kernels (B2.. and split) and the
// shared-memory kernel of `shared_round` steps per round, whose registers per thread decide
// how many of its blocks share an SM. 0 for key types the family does not sort.
struct KernelLimits {
  unsigned global_threads;
  unsigned shared_threads;
  unsigned shared_regs;
};
KernelLimits kernel_limits(const Schedule& s, unsigned shared_round, KeyType key, bool payload);

// Throws UsageError for a tile or block parameter the device cannot take.
LaunchShape launch_shape(const Schedule& s, const SortProblem& p);
// Why this input cannot be taken (parameters included), or nullopt.
std::optional<std::string> unsupported_reason(const Schedule& s, const SortProblem& p);

// The workspace holds the padded keys, then (at this offset) the padded payloads.
inline std::size_t padded_vals_offset(std::uint64_t padded, std::size_t key_bytes) {
  return (padded * key_bytes + 255) & ~std::size_t{255};
}
std::size_t workspace_bytes(const SortProblem& p);
int sort_device(const Schedule& s, const SortProblem& p, const DeviceBuffers& b);

Details details(const Schedule& s, const SortProblem& p);

}  // namespace sb::bitonic
