// Host side of the bitonic family that needs no kernels: block and tile sizes from the
// device's numbers (or --param tile= / block=), host arithmetic that the CPU tests run on
// made-up devices; the workspace of the padded buffers; and the details recorded with a
// result (launches and the global traffic they move).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "bitonic_index.hpp"
#include "bitonic_sort.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"

namespace sb::bitonic {
namespace {

// Tiles resident per SM at least: two, so that one block's global loads overlap another's
// rounds (the tile is the largest that allows this; the block size may let more share an SM).
constexpr unsigned kTilesPerSm = 2;
// Registers are allocated per warp in units of this many (CUDA occupancy calculator, compute
// capability 5.0 to 9.0); cudaDeviceProp does not report it.
constexpr unsigned kRegisterAllocationUnit = 256;
// Warps per block of the global-memory kernels (a full SM takes several such blocks).
constexpr unsigned kGlobalWarps = 8;
// Largest padded size: 2^32, as before 64-bit keys (an index payload holds 32-bit input
// positions; larger sizes have not been tried).
constexpr std::uint64_t kMaxPadded = std::uint64_t{1} << 32;

// The limits of `device`, else of the current device (docs/architecture.md, "Devices and
// contexts": no per-process cache of device state).
DeviceLimits device_limits(const DeviceContext* device) {
  const cudaDeviceProp d = device ? device->props : current_device_context(nullptr).props;
  return DeviceLimits{static_cast<unsigned>(d.warpSize),
                      static_cast<unsigned>(d.maxThreadsPerBlock),
                      d.sharedMemPerBlockOptin,
                      d.sharedMemPerMultiprocessor,
                      d.reservedSharedMemPerBlock,
                      static_cast<unsigned>(d.maxThreadsPerMultiProcessor),
                      static_cast<unsigned>(d.maxBlocksPerMultiProcessor),
                      static_cast<unsigned>(d.regsPerMultiprocessor)};
}

bool is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

std::size_t element_bytes(KeyType key, Payload payload) { return key_bytes(key) + payload_bytes(payload); }

std::uint64_t default_tile(std::size_t elem, const DeviceLimits& d) {
  std::uint64_t tile = 1;
  while ((2 * tile) * elem <= d.shared_per_block_optin &&
         kTilesPerSm * ((2 * tile) * elem + d.shared_reserved_per_block) <= d.shared_per_sm)
    tile *= 2;
  return tile;
}

unsigned shared_round_of(const Schedule& sc, const SortProblem& p) {
  const long round = p.param_int("round", sc.shared_round);
  if (round != 1 && round != 2 && round != 4)
    throw UsageError(fmt::format("--param round={} is not 1 (C2), 2 (C2C4) or 4 (C16)", round));
  return static_cast<unsigned>(round);
}

LaunchShape launch_shape(const Schedule& sc, const SortProblem& p, const DeviceLimits& d, const KernelLimits& limits) {
  LaunchShape sh;
  sh.log_n = ceil_log2(p.n() < 1 ? 1 : p.n());
  const unsigned warp = d.warp;
  const long block = p.param_int("block", static_cast<long>(warp) * kGlobalWarps);
  if (block <= 0 || block % warp != 0 || block > static_cast<long>(d.max_block_threads))
    throw UsageError(fmt::format("--param block={} is not a multiple of {} up to {}", block, warp,
                                 d.max_block_threads));
  sh.shared_round = shared_round_of(sc, p);
  sh.global_threads = std::min(static_cast<unsigned>(block), limits.global_threads / warp * warp);
  if (!sc.shared) return sh;

  // 8-byte keys and values take more of the tile: u64 keys with a u64 payload, 16 bytes an
  // element, halve the tile of 32-bit keys with an index payload.
  const std::size_t elem = element_bytes(p.shape.key, p.shape.payload);
  const long tile = p.param_int("tile", static_cast<long>(default_tile(elem, d)));
  if (!is_pow2(tile) || tile < 2 || static_cast<std::size_t>(tile) * elem > d.shared_per_block_optin)
    throw UsageError(fmt::format("--param tile={} is not a power of two from 2 whose {} bytes per element fit {} "
                                 "bytes of shared memory",
                                 tile, elem, d.shared_per_block_optin));
  sh.tile_log = std::min(ceil_log2(static_cast<std::uint64_t>(tile)), sh.log_n);
  sh.tile_bytes = (std::size_t{1} << sh.tile_log) * elem;
  // Block size: the power of two that keeps the most threads resident per SM, counting what
  // shared memory, registers and threads allow. (Sizing blocks by the kernel's own thread
  // limit alone ran C16's 128-register blocks of 512 threads and C2C4's 40-register blocks
  // of 1024 one per SM: their loads, rounds and stores not overlapped with another tile's.)
  const SmLimits sm{limits.shared_regs,
                    limits.shared_threads / warp * warp,
                    static_cast<unsigned>(d.shared_per_sm / (sh.tile_bytes + d.shared_reserved_per_block)),
                    d.threads_per_sm,
                    d.blocks_per_sm,
                    d.regs_per_sm,
                    warp,
                    kRegisterAllocationUnit};
  const unsigned groups = sh.tile_log > sh.shared_round ? (1u << (sh.tile_log - sh.shared_round)) : 1u;
  const SharedBlock chosen = shared_block(sm, groups);
  const long threads = p.param_int("shared_block", chosen.threads);
  if (threads <= 0 || threads > static_cast<long>(limits.shared_threads))
    throw UsageError(fmt::format("--param shared_block={} is not between 1 and the kernel's limit {}", threads,
                                 limits.shared_threads));
  sh.shared_threads = static_cast<unsigned>(threads);
  sh.tiles_per_sm = resident_blocks(sm, sh.shared_threads);
  return sh;
}

LaunchShape launch_shape(const Schedule& sc, const SortProblem& p, const DeviceContext* device) {
  return launch_shape(sc, p, device_limits(device),
                      kernel_limits(sc, shared_round_of(sc, p), p.shape.key, p.shape.payload, device));
}

LaunchShape launch_shape(const Schedule& sc, const SortProblem& p) { return launch_shape(sc, p, p.device); }

std::optional<std::string> unsupported_reason(const Schedule& sc, const SortProblem& p) {
  if (p.n() > kMaxPadded)
    return std::string("n above 2^32: the padded size is at most 2^32 elements");
  try {
    launch_shape(sc, p);
  } catch (const UsageError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::size_t workspace_bytes(const SortProblem& p) {
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  const std::uint64_t padded = std::uint64_t{1} << ceil_log2(n);
  if (padded == n) return 0;
  return padded_vals_offset(padded, key_bytes(p.shape.key)) + padded * payload_bytes(p.shape.payload);
}

Details details(const Schedule& s, const SortProblem& p) {
  const LaunchShape sh = launch_shape(s, p);
  const std::vector<Launch> launches = p.n() < 2 ? std::vector<Launch>{} : plan_launches(s, sh.log_n, sh.tile_log);
  std::map<std::string, int> per_kernel;
  for (const Launch& l : launches) ++per_kernel[kernel_name(l, sh.shared_round)];
  std::string kernels;
  for (const auto& [name, count] : per_kernel)
    kernels += fmt::format("{}{}x{}", kernels.empty() ? "" : " ", count, name);
  Details d{{"padded_n", std::to_string(std::uint64_t{1} << sh.log_n)},
            {"global_passes", std::to_string(launches.size())},
            {"launches", kernels},
            {"traffic_bytes", std::to_string(traffic_bytes(launches.size(), sh.log_n, p.n(),
                                                           element_bytes(p.shape.key, p.shape.payload)))},
            {"block", std::to_string(sh.global_threads)}};
  if (s.shared) {
    d.emplace_back("tile", std::to_string(std::uint64_t{1} << sh.tile_log));
    d.emplace_back("shared_block", std::to_string(sh.shared_threads));
    d.emplace_back("shared_round", std::to_string(sh.shared_round));
    d.emplace_back("tiles_per_sm", std::to_string(sh.tiles_per_sm));
  }
  return d;
}

}  // namespace sb::bitonic
