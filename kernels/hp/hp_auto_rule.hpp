// hp-auto's rule (seed 004, Kozakai 2022, with the variants of docs/hp.md): which H-P variant,
// or CUB, sorts an input from n, the range and the distinct count, and a GPU profile's measured
// crossovers in place of the built-in ones. Shared by hp_fast_rule.cpp and the CPU tests. No CUDA
// includes: g++ compiles this file.
#pragma once

#include <cstdint>

#include "hp_index.hpp"
#include "sortbench/core/hd.hpp"

namespace sb::hp {

// hp-auto's rule, calibrated on an H200 (results/h200/hp.json, n = 2^24 and 2^26): the
// shared-memory histogram when the range fits in shared memory; with at least
// dense_keys_per_bin keys per bin and a range the hybrid's buckets cover, the hybrid; with
// at least sparse_keys_per_bin keys per bin the global (L2) histogram (ranges beyond the
// hybrid's buckets); otherwise CUB radix sort on the range's bits (it won at delta = 1).
// hp-tiled, where its buckets cover the range (tiled_max_range; 0: never), with at least
// tiled_keys_per_bin keys per bin and tiled_keys_per_value keys per distinct value (len; 0:
// unknown, taken as all keys distinct), comes before the hybrid. Past one band of hp-smem's
// counters (band_bins; 0: none) it counts 16-bit pairs, and where fewer than
// band_bins_per_value bins a distinct value are in the range (most bins hold a value),
// hp-tiled comes first there too.
enum class AutoChoice { smem, hybrid, global, cub, tiled };
struct AutoRule {
  std::uint64_t shared_bins;
  std::uint64_t hybrid_max_range;
  std::uint64_t dense_keys_per_bin;
  std::uint64_t sparse_keys_per_bin;
  std::uint64_t tiled_max_range = 0;
  std::uint64_t tiled_keys_per_bin = 1;
  std::uint64_t tiled_keys_per_value = 1;
  std::uint64_t band_bins = 0;
  std::uint64_t band_bins_per_value = 0;
  // With a payload: hp-tiled's key-value path for ranges in [pairs_min_range,
  // pairs_max_range] (0: never) with at least pairs_keys_per_bin keys per bin and
  // pairs_bins_per_value bins per distinct value (sigma).
  std::uint64_t pairs_max_range = 0;
  std::uint64_t pairs_keys_per_bin = 0;
  std::uint64_t pairs_bins_per_value = 0;
  std::uint64_t pairs_min_range = 0;
  // Keys alone past split_min_range (0: no such bound), where hp-tiled partitions first (two
  // levels): hp-tiled from split_keys_per_bin keys per bin, or from one key a bin where each
  // distinct value has split_keys_per_value keys (0: not that way).
  std::uint64_t split_min_range = 0;
  std::uint64_t split_keys_per_bin = 0;
  std::uint64_t split_keys_per_value = 0;
  // Keys alone past split_min_range up to this range (0: never), from dense_keys_per_bin keys a
  // bin: the hybrid with its buffered scatter (16 bytes a key against two levels' 24; docs/hp.md,
  // the buffered scatter), where its buffers fit in shared memory (buffered_hybrid_max_range).
  std::uint64_t hybrid_buffered_max_range = 0;
};
SB_HD_INLINE AutoChoice auto_choice(std::uint64_t n, std::uint64_t range, const AutoRule& rule,
                                    std::uint64_t len = 0) {
  const std::uint64_t distinct = len ? len : min_u64(n, range);
  const bool split_dense = !rule.split_min_range || range <= rule.split_min_range ||
                           range * rule.split_keys_per_bin <= n ||
                           (rule.split_keys_per_value && range <= n && distinct * rule.split_keys_per_value <= n);
  const bool tiled = range <= rule.tiled_max_range && range * rule.tiled_keys_per_bin <= n &&
                     distinct * rule.tiled_keys_per_value <= n && split_dense;
  if (range <= rule.shared_bins) {
    const bool dense_pairs = rule.band_bins && range > rule.band_bins && distinct * rule.band_bins_per_value > range;
    return tiled && dense_pairs ? AutoChoice::tiled : AutoChoice::smem;
  }
  if (tiled) {
    const bool two_levels = rule.split_min_range && range > rule.split_min_range;
    if (two_levels && range <= rule.hybrid_buffered_max_range && range * rule.dense_keys_per_bin <= n)
      return AutoChoice::hybrid;
    return AutoChoice::tiled;
  }
  if (range <= rule.hybrid_max_range && range * rule.dense_keys_per_bin <= n) return AutoChoice::hybrid;
  if (range * rule.sparse_keys_per_bin <= n) return AutoChoice::global;
  return AutoChoice::cub;
}

// The whole rule: what no H-P variant takes (float keys, ranges past 32-bit offsets, n at
// or above 2^32 with a payload) goes to CUB, 2^32 keys or more to the hybrid or else hp-tiled
// (64-bit counts) where auto_choice would take an H-P variant, the rest to auto_choice. With a payload, hp-tiled's
// key-value path where the pairs rule admits it, CUB otherwise: the other variants claim
// each slot with a global atomic, and with many keys per bin those serialize (docs/hp.md,
// hp-auto with a payload), and hp-tiled's
// batches write short runs where few of a bucket's bins hold keys (small sigma) and pay for
// every bin where the buckets' segments are short (many buckets) or few (few buckets).
struct AutoInput {
  std::uint64_t n;
  std::uint64_t range;  // saturated, range_of_ordered
  bool integer_keys;
  bool payload = false;
  std::uint64_t len = 0;  // distinct values, 0: unknown
};
SB_HD_INLINE AutoChoice auto_choice(const AutoInput& in, const AutoRule& rule) {
  if (!in.integer_keys || in.range > kMaxRange) return AutoChoice::cub;
  if (in.n >= kMaxRange) {
    // 2^32 keys or more: hp-tiled's and the hybrid's keys-only paths count in 64-bit words.
    if (in.payload) return AutoChoice::cub;
    const AutoChoice c = auto_choice(in.n, in.range, rule, in.len);
    return c == AutoChoice::cub || c == AutoChoice::hybrid ? c : AutoChoice::tiled;
  }
  if (in.payload) {
    const std::uint64_t distinct = in.len ? in.len : min_u64(in.n, in.range);
    const bool tiled = in.range <= rule.pairs_max_range && in.range >= rule.pairs_min_range &&
                       in.range * rule.pairs_keys_per_bin <= in.n && distinct * rule.pairs_bins_per_value <= in.range;
    return tiled ? AutoChoice::tiled : AutoChoice::cub;
  }
  return auto_choice(in.n, in.range, rule, in.len);
}

// A GPU profile's measured crossover (sortbench tune; core/choice_profile.hpp) in place of the
// built-in one between hp-tiled and CUB, for integer keys alone: hp-tiled from min_delta keys a
// bin (n / range) up where it takes the input, CUB below; the other variants' ranges stand (the
// profile measured only this boundary).
inline AutoChoice measured_tiled_choice(AutoChoice built, const AutoInput& in, double min_delta, bool tiled_takes_it) {
  if (in.payload || !in.integer_keys || in.range == 0) return built;
  if (built != AutoChoice::tiled && built != AutoChoice::cub) return built;
  const double delta = static_cast<double>(in.n) / static_cast<double>(in.range);
  if (delta >= min_delta) return tiled_takes_it ? AutoChoice::tiled : built;
  return AutoChoice::cub;
}

// The same for pairs with 4-byte values (tune's pairs ladder measures u32 values; index
// positions are 4 bytes too): hp-tiled from min_delta keys a bin up, CUB below, in place of the
// built-in keys-a-bin and bins-a-value thresholds, which the ladder measures a sigma at a time.
// The range limits of hp-tiled's pair path stand (it takes no other range); 2^32 keys or more
// keep the built-in rule (their pairs go to CUB).
inline AutoChoice measured_pairs_choice(AutoChoice built, const AutoInput& in, const AutoRule& rule,
                                        double min_delta) {
  if (!in.payload || !in.integer_keys || in.n >= kMaxRange) return built;
  if (in.range < rule.pairs_min_range || in.range > rule.pairs_max_range) return built;
  const double delta = static_cast<double>(in.n) / static_cast<double>(in.range);
  return delta >= min_delta ? AutoChoice::tiled : AutoChoice::cub;
}

}  // namespace sb::hp
