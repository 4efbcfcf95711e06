// Host entry points of the radix family (seed 001: LSD radix sort of 4-word rows).
//   radix-lsd-seed  the chapter's kernels: atomic histogram, Blelloch up/down sweeps looped
//                   from the host, one-thread rearrange (radix_seed.cu); the seed's 32-bit
//                   words (u32, i32, f32, u32x4) and a 32-bit payload column
//   radix-lsd       the same three phases made parallel: per-block histograms, a device-wide
//                   scan of (digit, block) counts, a stable warp-match ranking scatter
//                   (radix_lsd.cu); every key type and payload
// Both are written once over (key type K, value type V) and registered through
// set_device_run<Keys, Values> with the lists below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "radix_index.hpp"
#include "sortbench/algo/algorithm.hpp"

namespace sb::radix {

using SeedKeys = TypeList<std::uint32_t, std::int32_t, float, Row4>;
using SeedValues = TypeList<NoValue, std::uint32_t>;  // none, index, u32
using LsdKeys = AllKeys;
using LsdValues = AllValues;

// The seed's single-thread rearrange makes larger inputs take minutes.
inline constexpr std::uint64_t kSeedMaxN = std::uint64_t{1} << 20;

// --param radix-bits (1..8, default 8); throws UsageError outside that range.
unsigned radix_bits_param(const SortProblem& p);
// The passes a problem needs: digit width from radix-bits, sorted bits from the realized
// minimum and maximum (see PassPlan).
PassPlan pass_plan(const SortProblem& p);

std::size_t seed_workspace_bytes(const SortProblem& p);
// Explicitly instantiated in radix_seed.cu for SeedKeys x SeedValues.
template <typename K, typename V>
int seed_sort(const Buffers<K, V>& b, const SortProblem& p);

enum class LsdPhase { histogram, scan, scatter };
const char* to_string(LsdPhase phase);
// Called on the host right after a phase of a pass is enqueued (the phase test records an
// event there); the sort itself never synchronizes.
using PhaseHook = std::function<void(unsigned pass, LsdPhase phase)>;

std::size_t lsd_workspace_bytes(const SortProblem& p);
// Explicitly instantiated in radix_lsd.cu for LsdKeys x LsdValues.
template <typename K, typename V>
int lsd_sort(const Buffers<K, V>& b, const SortProblem& p, const PhaseHook& hook = {});
// The same on untyped buffers, dispatched on the problem's key type and payload.
int lsd_sort(const SortProblem& p, const DeviceBuffers& b, const PhaseHook& hook = {});
// Launch facts recorded with a result: keys per tile, blocks.
std::string lsd_launch_summary(const SortProblem& p);

}  // namespace sb::radix
