// Index arithmetic of hp-split-stable (issue 40; docs/hp.md, "Stable key-value H-P"), shared by
// its kernels, the CPU tests and the CPU model: a stable partition of the pairs by bucket, then
// every bucket's chunks counting-sorted by bin in input order. The rest of the family's index
// arithmetic is hp_index.hpp's. No CUDA includes: g++ compiles this file.
#pragma once

#include <cstdint>

#include "hp_index.hpp"

namespace sb::hp {

// A block ranks its items (warp_major_item order) by a digit with per-warp peer masks, a
// constant number of instructions a step where lanes_with_digit votes once a digit bit: in a
// step each lane ORs its lane bit into its warp's mask word of its digit (a lane without an
// item into a sink digit past the last, so that a step has no branch for it); after
// a warp barrier that word holds the step's peers (the lanes of equal digits), an item's rank
// among them is the peers below its lane, and the lowest peer (the leader) adds the peers to
// the warp's count of the digit and clears the mask before a last warp barrier (without it, a
// peer's OR of the next step could land before the clear and be lost). The mask is zero again
// between steps; the count before the step plus the rank is the item's rank among its warp's
// items of that digit.
SB_HD_INLINE std::uint32_t peer_rank(std::uint32_t peers, std::uint32_t lane) {
  return static_cast<std::uint32_t>(popcount32(peers & ((std::uint32_t{1} << lane) - 1)));
}
SB_HD_INLINE bool peer_leader(std::uint32_t peers, std::uint32_t lane) {
  return (peers >> lane & 1u) && peer_rank(peers, lane) == 0;
}
// The count a leader stores: the warp's count of the digit before the step plus its peers.
SB_HD_INLINE std::uint32_t peer_count_after(std::uint32_t before, std::uint32_t peers) {
  return before + static_cast<std::uint32_t>(popcount32(peers));
}
// A pass ranks at most kSplitRankDigits digits (the mask rows: 16 warps x 256 words x 4 bytes,
// the counts 2 bytes a word beside them), so the partition takes at most that many buckets and
// a chunk is ranked by its bins' ordinals in one pass where its bucket holds at most that many
// present bins, else in two passes over the bin's low and high digits (low_digit_bits).
inline constexpr std::uint32_t kSplitRankDigits = 256;
SB_HD_INLINE unsigned split_rank_passes(std::uint32_t present_bins) {
  return present_bins <= kSplitRankDigits ? 1u : 2u;
}
SB_HD_INLINE unsigned split_pass_shift(unsigned low_bits, unsigned pass) { return pass ? low_digit_bits(low_bits) : 0u; }
SB_HD_INLINE unsigned split_pass_bits(unsigned low_bits, unsigned pass) {
  return pass ? low_bits - low_digit_bits(low_bits) : low_digit_bits(low_bits);
}
// The narrowest buckets in [lo, hi] bits whose count is at most max_buckets (0: none): a chunk
// pays for its bucket's bins (presence, cursors) and a batch's stores are runs of a present
// bin's keys, so narrow; the partition ranks by bucket in one pass, so at most max_buckets.
SB_HD_INLINE unsigned split_stable_low_bits(std::uint64_t range, unsigned lo, unsigned hi,
                                            std::uint64_t max_buckets) {
  for (unsigned w = lo; w <= hi; ++w)
    if (buckets_for(range, w) <= max_buckets) return w;
  return 0;
}
// Group g of `groups` takes the positions [lo, hi) of its bucket's [bucket_lo, bucket_hi) in
// the partitioned array: consecutive chunks in input order, so that group g's cursors (the
// bins' starts plus what groups 0..g-1 hold of each: group_cursors) place it stably.
SB_HD_INLINE void bucket_chunk(std::uint64_t bucket_lo, std::uint64_t bucket_hi, std::uint64_t groups,
                               std::uint64_t g, std::uint64_t& lo, std::uint64_t& hi) {
  part_bounds(bucket_hi - bucket_lo, groups, g, 1, lo, hi);
  lo += bucket_lo;
  hi += bucket_lo;
}
// Whether bin x of a range of `range` bins holds a key, from the exclusive scan of the bins'
// totals (start) and n: a bin holds keys where the next bin's start is past its own.
SB_HD_INLINE bool bin_present(const std::uint32_t* start, std::uint64_t x, std::uint64_t range, std::uint64_t n) {
  const std::uint64_t next = x + 1 < range ? start[x + 1] : n;
  return next != start[x];
}
// A partition item in a register: its offset (under 2^22: at most 256 buckets of 2^14 bins) and
// its rank in its warp (under 2^9, a warp ranking 512 items) above it: with a register each
// the items of a tile spilled at two blocks an SM.
SB_HD_INLINE std::uint32_t split_part_item(std::uint32_t offset, std::uint32_t rank) { return offset | rank << 22; }
SB_HD_INLINE std::uint32_t split_part_offset(std::uint32_t item) { return item & 0x3fffffu; }
SB_HD_INLINE std::uint32_t split_part_rank(std::uint32_t item) { return item >> 22; }
// A batch item in a register: its bin (under 2^14) and its element (its place in the batch in
// input order, under 2^13), which a second pass must carry: in a register of their own the
// elements spilled at two blocks an SM.
SB_HD_INLINE std::uint32_t split_item(std::uint32_t bin, std::uint32_t elem) { return bin | elem << 14; }
SB_HD_INLINE std::uint32_t split_item_bin(std::uint32_t item) { return item & 0x3fffu; }
SB_HD_INLINE std::uint32_t split_item_elem(std::uint32_t item) { return item >> 14; }

}  // namespace sb::hp
