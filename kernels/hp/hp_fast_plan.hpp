// What the fast H-P versions' launchers (hp_fast.cu) and their rule, support checks and
// registration (hp_fast_rule.cpp) share: the run's device facts, the histogram variants and
// the bucket widths (beyond seed 004; method notes in docs/hp.md). Host code only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "hp.hpp"
#include "hp_index.hpp"
#include "sortbench/algo/algorithm.hpp"
#include "sortbench/core/device_context.hpp"
#include "sortbench/core/element.hpp"

namespace sb::hp::fast {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// What the launches need to know about the run's device: from its context (docs/architecture.md,
// "Devices and contexts"), or, for a problem with none (a CPU-side support check), the current
// device's properties.
struct DeviceFacts {
  int sms = 0;
  std::size_t smem_per_block = 0;  // opt-in maximum of dynamic shared memory per block
  std::size_t smem_per_sm = 0;
  // The context they came from, whose memo keeps the kernels' attributes and occupancy (null:
  // none, asked of the current device on each call).
  const DeviceContext* context = nullptr;
};
DeviceFacts device_facts(const DeviceContext* device);
DeviceFacts device_facts(const SortProblem& p);

// Hybrid: bins per bucket (2^low_bits words of shared memory; --param low_bits, 12..15) and
// the most buckets a part's counters may use; together the largest range the hybrid takes.
constexpr unsigned kLowBits = 15;
constexpr unsigned kLowBitsMin = 12;
constexpr std::uint64_t kMaxBuckets = 4096;
// hp-tiled: bucket width (--param low_bits, same bounds as the hybrid) and the most buckets.
// The grouping block keeps two words per bucket beside its 80 KB of tiles (low words of keys); at
// 2048 buckets that is 16 KB, so two blocks still share an SM, and the segment table costs
// at most (2048 + 1) * 4 bytes per 8192-key tile, one byte a key.
constexpr unsigned kTiledLowBits = 14;
constexpr std::uint64_t kTiledMaxBuckets = 2048;

// hp-tiled in two levels (keys only): past kTiledOneLevelMaxBuckets 2^14-bin buckets (a
// tile's segments then average fewer than 8 keys) the keys are first partitioned into at most
// kSplitMaxSupers super-buckets of at least 2^kSplitMinFineBits buckets each, the buckets' bits
// split evenly between the levels (balanced_fine_bits, split_plan; docs/hp.md, two levels).
// --param levels=1|2 and fine_bits=N choose.
constexpr std::uint64_t kTiledOneLevelMaxBuckets = 1024;
constexpr std::uint64_t kSplitMaxSupers = 256;
constexpr unsigned kSplitMinFineBits = 5;
unsigned tiled_levels(const SortProblem& p);
// The two levels' plan (supers == 0: one level).
SplitPlan tiled_split(const SortProblem& p);
// The width of hp-tiled's and hp-hybrid's counts, offsets and run ends: 64 where n >= 2^32 or
// --param count_bits=64 (keys only), else 32.
unsigned count_bits_of(const SortProblem& p);

// Whether a keys-only run expands densely (dense_expansion on the facts' distinct count;
// --param expansion=dense|runs forces it); UsageError for another value.
bool expansion_is_dense(const SortProblem& p);

inline std::uint64_t shared_bins_max(const DeviceFacts& d) { return d.smem_per_block / sizeof(u32); }
// hp-smem counts a range of up to kSmemMaxBands blocks' worth of 32-bit bins: one band in
// one pass, two as 16-bit pairs in one pass (hist_shared_pairs); measured against hp-tiled
// just past one band in docs/hp.md (delta = 256 at n = 2^24, range 65,536).
constexpr std::uint64_t kSmemMaxBands = 2;
inline std::uint64_t shared_range_max(const DeviceFacts& d) { return kSmemMaxBands * shared_bins_max(d); }

// tiled_stable is hp-tiled whose key-value path ranks in input order (hp-tiled-stable).
enum class Histogram { shared, global, hybrid, tiled, tiled_stable };
inline bool tiles(Histogram h) { return h == Histogram::tiled || h == Histogram::tiled_stable; }
// The hybrid and the tiled variants keep 2-byte low bits in keys[1] until the scan.
inline bool splits(Histogram h) { return h == Histogram::hybrid || tiles(h); }
// Whether variant h counts p in 64-bit words (count_bits_of; keys only, the variants that split).
inline bool wide_counts(Histogram h, const SortProblem& p) {
  return splits(h) && !p.has_payload() && count_bits_of(p) == 64;
}

// The fast versions take integer keys of both widths and every payload.
using FastKeys = IntegerKeys;
using FastValues = AllValues;

// Shared memory the driver keeps per resident block.
constexpr std::size_t kReservedSharedPerBlock = 1024;

// The hybrid's scatter: buffered (bucket_scatter_buffered) from kBufferedScatterMinBuckets
// buckets, where a tile holds on average less than a chunk of each, and where the buffers fit
// in a block of this device's shared memory; --param scatter=grouped|buffered chooses. With
// 64-bit counts it is always buffered (the grouped scatter's positions are 32-bit).
constexpr std::uint64_t kBufferedScatterMinBuckets = 512;
bool hybrid_scatter_buffered(const SortProblem& p, const DeviceFacts& d);
// The buffered scatter's block: kScatterThreadsPaired threads where two such blocks' buffers
// share an SM, else kScatterThreadsAlone, so that one block an SM keeps as many keys in flight
// as two; --param scatter_threads=512|1024 chooses. 0: the grouped scatter.
constexpr unsigned kScatterThreadsPaired = 512;
constexpr unsigned kScatterThreadsAlone = 1024;
unsigned hybrid_scatter_threads(const SortProblem& p, const DeviceFacts& d);
// hp-auto's widest range for the buffered hybrid: the buckets whose buffers (at 64-bit positions
// where wide) let two blocks share an SM, of 2^16 bins (hybrid_low_bits takes 2^15 where those
// pair). With one block an SM (2,048 and 2,731 buckets of 2^15 on an H200) it lost to hp-tiled's
// two levels; with two it won: 683 to 1,311 buckets of 2^15, and 1,024 to 1,366 of 2^16 once
// their histograms kept four loads a thread in flight (docs/hp.md, the buffered scatter).
constexpr std::size_t kBufferedScatterBlocksPerSm = 2;
std::uint64_t buffered_hybrid_max_range(const DeviceFacts& d, bool wide);

// A bucket width from --param low_bits (fallback when absent); UsageError outside
// kLowBitsMin..max_bits.
unsigned low_bits_of(const SortProblem& p, unsigned fallback = kLowBits, const char* who = "hp-hybrid",
                     unsigned max_bits = kLowBits);
// The hybrid's buckets may be 2^16 bins wide (the 2-byte low bits hold 16 bits): its histograms
// then count in 16-bit pairs (bucket_hist), since 2^16 32-bit counters pass a block's shared
// memory. By default 2^15, or 2^16 where that halves the buckets into buffers two scatter blocks
// share an SM with and 2^15 does not (hybrid_low_bits; docs/hp.md, the buffered scatter).
constexpr unsigned kHybridMaxLowBits = 16;
unsigned hybrid_low_bits(const SortProblem& p);
inline const char* tiled_name(bool stable) { return stable ? "hp-tiled-stable" : "hp-tiled"; }
// The widest buckets place_pairs holds in shared memory beside a batch of p's values.
unsigned widest_pair_width(const SortProblem& p, bool stable);
// hp-tiled's bucket width with a payload (0: --param low_bits asks for buckets too wide).
unsigned tiled_pair_width(const SortProblem& p, bool stable);

// The launchers (hp_fast.cu): a run's workspace, the kernels' shared-memory limits on a
// device (untimed), and the run.
std::size_t fast_bytes(Histogram h, const SortProblem& p);
void prepare_fast(Histogram h, const SortProblem& p, const DeviceContext& device);
int run_fast_any(Histogram h, const SortProblem& p, const DeviceBuffers& b);
// The histogram dist-hp reuses for n of the problem's keys (hp_fast_rule.cpp).
Histogram histogram_for(const SortProblem& p, u64 n);
// What a member of histogram h records of a run: its counts' width, for keys alone its expansion
// and hp-tiled's levels, and the bytes a key its path moves (hp_traffic.hpp).
Details fast_details(Histogram h, const SortProblem& p);

}  // namespace sb::hp::fast
