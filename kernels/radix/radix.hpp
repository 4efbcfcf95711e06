// Host entry points of the radix family (seed 001: LSD radix sort of 4-word rows).
//   radix-lsd-seed  the chapter's kernels: atomic histogram, Blelloch up/down sweeps looped
//                   from the host, one-thread rearrange (radix_seed.cu)
//   radix-lsd       the same three phases made parallel: per-block histograms, a device-wide
//                   scan of (digit, block) counts, a stable warp-match ranking scatter
//                   (radix_lsd.cu)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "radix_index.hpp"
#include "sortbench/algorithm.hpp"

namespace sb::radix {

// The seed's single-thread rearrange makes larger inputs take minutes.
inline constexpr std::uint64_t kSeedMaxN = std::uint64_t{1} << 20;

// --param radix-bits (1..8, default 8); throws UsageError outside that range.
unsigned radix_bits_param(const SortProblem& p);
// The passes a problem needs: digit width from radix-bits, sorted bits from the realized
// minimum and maximum (see PassPlan).
PassPlan pass_plan(const SortProblem& p);

std::size_t seed_workspace_bytes(const SortProblem& p);
int seed_sort(const SortProblem& p, const DeviceBuffers& b);

enum class LsdPhase { histogram, scan, scatter };
const char* to_string(LsdPhase phase);
// Called on the host right after a phase of a pass is enqueued (the phase test records an
// event there); the sort itself never synchronizes.
using PhaseHook = std::function<void(unsigned pass, LsdPhase phase)>;

std::size_t lsd_workspace_bytes(const SortProblem& p);
int lsd_sort(const SortProblem& p, const DeviceBuffers& b, const PhaseHook& hook = {});
// Launch facts recorded with a result: keys per tile, blocks.
std::string lsd_launch_summary(const SortProblem& p);

}  // namespace sb::radix
