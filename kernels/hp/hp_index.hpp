// Index arithmetic of the H-P family (seed 004, Kozakai 2022), shared by the CUDA kernels,
// the CPU versions and the CPU tests. No CUDA includes: g++ compiles this file.
//
// Keys u32 and i32 are handled as 32-bit words: offset = key - minVal and key = minVal +
// offset in modular uint32 arithmetic, which is exact for any range <= 2^32 and any sign of
// minVal. minVal and maxVal - 1 are the input's realized minimum and maximum, as the
// paper's Assumptions state ("minVal: minimum value among input data").
#pragma once

#include <cstddef>
#include <cstdint>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::hp {

// The 32-bit word of a realized minimum (u32 or i32 value, as int64).
SB_HD_INLINE std::uint32_t word_of(std::int64_t v) { return static_cast<std::uint32_t>(v); }
SB_HD_INLINE std::uint32_t key_offset(std::uint32_t key, std::uint32_t min_word) { return key - min_word; }
SB_HD_INLINE std::uint32_t key_at(std::uint32_t offset, std::uint32_t min_word) { return min_word + offset; }

// range = maxVal - minVal with maxVal = realized max + 1.
SB_HD_INLINE std::uint64_t range_of(std::int64_t min, std::int64_t max) {
  return static_cast<std::uint64_t>(max - min) + 1;
}

// 64-bit keys (u64, i64) as 64-bit words: the offset ordered(key) - ordered(min) equals
// word(key) - word(min) modulo 2^64 (the signed order flip cancels), and it is a 32-bit bin
// offset whenever range <= 2^32. W is the key's word type (std::uint32_t or std::uint64_t).
template <typename W>
SB_HD_INLINE std::uint32_t word_offset(W key_word, W min_word) {
  return static_cast<std::uint32_t>(key_word - min_word);
}
template <typename W>
SB_HD_INLINE W word_at(std::uint32_t offset, W min_word) {
  return static_cast<W>(min_word + offset);
}
// The word of a realized minimum given in ordered form (integer keys): the raw key bits.
template <typename K>
SB_HD_INLINE typename KeyTraits<K>::Ordered min_word_of(std::uint64_t min_ordered) {
  using W = typename KeyTraits<K>::Ordered;
  return static_cast<W>(KeyTraits<K>::from_ordered(static_cast<W>(min_ordered)));
}
// The range max - min + 1 of ordered-form extremes, saturated at 2^64 - 1 (a full 64-bit
// range, 2^64, is past every limit anyway).
SB_HD_INLINE std::uint64_t range_of_ordered(std::uint64_t min_ordered, std::uint64_t max_ordered) {
  const std::uint64_t span = max_ordered - min_ordered;
  return span == ~std::uint64_t{0} ? span : span + 1;
}
// Offsets are 32-bit bin numbers: the ranges the histogram can index.
constexpr std::uint64_t kMaxRange = std::uint64_t{1} << 32;

SB_HD_INLINE std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
SB_HD_INLINE std::uint64_t min_u64(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }
SB_HD_INLINE std::uint64_t max_u64(std::uint64_t a, std::uint64_t b) { return a > b ? a : b; }

// Carves the one workspace allocation into aligned arrays (paper section 5: one cudaMalloc
// for all auxiliary arrays). The same sequence of take() calls sizes and lays it out.
struct Carve {
  static constexpr std::size_t kAlign = 256;
  std::size_t used = 0;
  std::size_t take(std::size_t bytes) {
    const std::size_t at = used;
    used += (bytes + kAlign - 1) / kAlign * kAlign;
    return at;
  }
};

// The part [lo, hi) of n items that part p of parts takes; parts cover 0..n in order, each
// starting at a multiple of align (vector loads).
SB_HD_INLINE void part_bounds(std::uint64_t n, std::uint64_t parts, std::uint64_t p, std::uint64_t align,
                              std::uint64_t& lo, std::uint64_t& hi) {
  const std::uint64_t per = ceil_div(ceil_div(n, parts), align) * align;
  lo = min_u64(p * per, n);
  hi = min_u64(lo + per, n);
}

// The largest [mid_lo, mid_hi) inside [lo, hi) whose ends are multiples of align: the
// vector part of a span, with scalar heads [lo, mid_lo) and tails [mid_hi, hi).
SB_HD_INLINE void aligned_span(std::uint64_t lo, std::uint64_t hi, std::uint64_t align, std::uint64_t& mid_lo,
                               std::uint64_t& mid_hi) {
  mid_lo = min_u64(ceil_div(lo, align) * align, hi);
  mid_hi = hi / align * align;
  if (mid_hi < mid_lo) mid_hi = mid_lo;
}

// hp-smem past one block's shared memory: the range is cut into `bands` equal bands of at
// most bins_max bins, each counted by its own pass over the keys (part_bounds(range, bands,
// band, 1, ...) gives a band's bins).
SB_HD_INLINE std::uint64_t shared_bands(std::uint64_t range, std::uint64_t bins_max) {
  return range ? ceil_div(range, bins_max) : 1;
}

// hp-smem past one band of 32-bit counters: two 16-bit counters a shared word, bin 2w in the
// low half of word w and bin 2w + 1 in the high half, so that a range of up to two bands is
// counted in one pass over the keys instead of one pass a band. A half may pass 65535; the
// atomic that makes it wrap sees so in the value it returns, and its thread moves the 2^16
// into A instead (pair_wraps): a low half's wrap carries one into the high half, which the
// same thread takes back (kPairTakeBack), and a high half's wrap leaves the word. Every add
// and take-back is one atomic, so each change of a half is seen by exactly one thread, and
// A's 2^16 units plus the halves left at the end are the exact counts, in any order of the
// atomics. Adds are under 2^16 keys (kPairRunMax), so one add wraps a half at most once.
// (Flushing the counters in rounds instead was slower than two passes: docs/hp.md,
// kPairRunMax.)
inline constexpr std::uint32_t kPairRunMax = 0xffff;
inline constexpr std::uint32_t kPairTakeBack = 0xffff0000u;  // adding it takes 2^16 back from the high half
SB_HD_INLINE std::uint32_t pair_word(std::uint32_t bin) { return bin >> 1; }
SB_HD_INLINE std::uint32_t pair_add(std::uint32_t bin, std::uint32_t count) { return count << ((bin & 1u) * 16); }
SB_HD_INLINE std::uint32_t pair_count(std::uint32_t word, std::uint32_t bin) {
  return (word >> ((bin & 1u) * 16)) & 0xffffu;
}
// Wraps of 2^16 keys found by the add of `count` keys to `bin` whose word held `before`: `low`
// and `high` for the word's two bins (its even and odd one); `carried`: the low half carried
// into the high one, and the thread must add kPairTakeBack to the word (pair_take_back_wraps).
struct PairWraps {
  std::uint32_t low = 0, high = 0;
  bool carried = false;
};
SB_HD_INLINE PairWraps pair_wraps(std::uint32_t before, std::uint32_t bin, std::uint32_t count) {
  PairWraps w;
  const std::uint32_t low = before & 0xffffu, high = before >> 16;
  if (bin & 1u) {
    w.high = high + count > 0xffffu;
  } else if (low + count > 0xffffu) {
    w.low = 1;
    w.carried = true;
    w.high = high == 0xffffu;  // the carry wrapped the high half too
  }
  return w;
}
// The take-back found the high half at 0 (it wrapped down): one 2^16 fewer for the odd bin.
SB_HD_INLINE bool pair_take_back_wraps(std::uint32_t before) { return (before >> 16) == 0; }

// Large-range hybrid: an offset splits into a bucket (its high bits) and a bin inside the
// bucket (its low_bits low bits), so that each bucket's histogram fits in shared memory.
SB_HD_INLINE std::uint32_t bucket_of(std::uint32_t offset, unsigned low_bits) { return offset >> low_bits; }
SB_HD_INLINE std::uint32_t bin_in_bucket(std::uint32_t offset, unsigned low_bits) {
  return offset & ((std::uint32_t{1} << low_bits) - 1);
}
SB_HD_INLINE std::uint64_t buckets_for(std::uint64_t range, unsigned low_bits) {
  return ceil_div(range, std::uint64_t{1} << low_bits);
}

// Tiled hybrid (hp-tiled): each tile of `tile` keys is grouped by bucket in place, so the
// split needs no global bucket offsets (no counting pass, no scan); the start of every
// (bucket, tile) segment inside its tile is kept in a table of buckets + 1 rows of tiles
// words, bucket-major so that the histogram of one bucket reads its row contiguously. Row
// `buckets` holds each tile's length: the end of its last segment.
SB_HD_INLINE std::uint64_t segment_row(std::uint64_t bucket, std::uint64_t tile, std::uint64_t tiles) {
  return bucket * tiles + tile;
}
SB_HD_INLINE std::uint64_t segment_table_words(std::uint64_t buckets, std::uint64_t tiles) {
  return (buckets + 1) * tiles;
}

// The words of `per_word` values (2-byte low bits; 8 to a 16-byte load) of the grouped
// array that cover its positions [lo, hi): [q0, q1). Tiles start at multiples of per_word
// values, so a segment read as whole words overlaps its neighbours by at most per_word - 1
// values on each side, which the reader masks.
SB_HD_INLINE void word_span(std::uint64_t lo, std::uint64_t hi, std::uint64_t per_word, std::uint64_t& q0,
                            std::uint64_t& q1) {
  q0 = lo / per_word;
  q1 = hi > lo ? ceil_div(hi, per_word) : q0;
}

// Whether value k of word q (positions per_word * q + k) lies in the segment [lo, lo + len),
// in one 32-bit compare: a position before lo wraps past len (a segment lies in one tile, so
// len < 2^32); two 64-bit compares a value made hp-tiled slower (docs/hp.md, in_segment).
SB_HD_INLINE bool in_segment(std::uint64_t q, std::uint32_t k, std::uint64_t per_word, std::uint64_t lo,
                             std::uint32_t len) {
  return static_cast<std::uint32_t>(per_word * q - lo) + k < len;
}

// How many blocks (groups of tiles) share one bucket's histogram. Every group past the first
// costs one global atomic per non-empty bin of the range when it adds its counts to A; one
// group writes A with plain stores. So: as many groups as fill one wave of resident blocks
// (a second, partial wave would leave SMs idle for a whole block's time), or where n is larger
// as keep a block to about keys_per_block keys (a block's share of an SM then evens out over
// several waves), but no more than keep groups * range within n / keys_per_flushed_bin, and
// no more than there are tiles.
SB_HD_INLINE std::uint64_t bucket_groups(std::uint64_t buckets, std::uint64_t tiles, std::uint64_t resident_blocks,
                                         std::uint64_t n, std::uint64_t range, std::uint64_t keys_per_flushed_bin,
                                         std::uint64_t keys_per_block) {
  const std::uint64_t blocks = max_u64(resident_blocks, n / keys_per_block);
  std::uint64_t g = buckets ? blocks / buckets : 1;
  const std::uint64_t by_flush = range ? n / (range * keys_per_flushed_bin) : 1;
  g = min_u64(g, by_flush);
  g = min_u64(g, tiles);
  return g ? g : 1;
}

// hp-tiled past tiled_one_level_buckets buckets (two levels): a tile of 8192 keys spread over
// thousands of buckets leaves segments of a few keys (at n = 2^31, delta = 50: 2,622 buckets of
// 2^14 bins, about 3 keys), each read as a whole sector, and a segment table of a word per
// (bucket, tile). So a first pass partitions the keys by their super-bucket (high bits, at most
// max_supers of them, as one radix pass does) into a padded array whose every tile belongs to
// one super-bucket, and the grouping then sees only that super-bucket's fine buckets
// (fine_per_super; 2^min_fine_bits or more). Each key goes to the partitioned array as its offset
// inside its super-bucket; the padding holds split_pad(plan), an offset of fine bucket
// fine_per_super (one past the last), which the grouping counts as a bucket of its own and
// the histograms never read.
struct SplitPlan {
  unsigned low_bits = 0;    // a fine bucket holds 2^low_bits bins
  unsigned super_bits = 0;  // a super-bucket holds 2^super_bits bins
  std::uint64_t supers = 0;
  std::uint32_t fine_per_super = 0;
};
SB_HD_INLINE SplitPlan split_plan(std::uint64_t range, unsigned low_bits, std::uint64_t max_supers,
                                  unsigned min_fine_bits) {
  SplitPlan plan;
  plan.low_bits = low_bits;
  unsigned fine_bits = min_fine_bits;
  while (fine_bits + low_bits < 32 && ceil_div(range, std::uint64_t{1} << (low_bits + fine_bits)) > max_supers)
    ++fine_bits;
  plan.super_bits = low_bits + fine_bits;
  plan.supers = ceil_div(range, std::uint64_t{1} << plan.super_bits);
  plan.fine_per_super = std::uint32_t{1} << fine_bits;
  return plan;
}
// The two levels trade the partition's runs (tile / supers keys of a super-bucket a tile) for
// the grouping's segments (tile / fine_per_super keys of a bucket a tile): the fine bits that
// split the buckets' bits evenly between them, at least min_fine_bits (n = 2^31, delta = 50:
// 2,622 buckets, 6 bits, 41 super-buckets of 64 buckets; docs/hp.md, two levels).
SB_HD_INLINE unsigned balanced_fine_bits(std::uint64_t range, unsigned low_bits, unsigned min_fine_bits) {
  std::uint64_t buckets = buckets_for(range, low_bits);
  unsigned bits = 0;
  while ((std::uint64_t{1} << bits) < buckets) ++bits;
  const unsigned half = (bits + 1) / 2;
  return half > min_fine_bits ? half : min_fine_bits;
}
SB_HD_INLINE std::uint32_t super_of(std::uint32_t offset, const SplitPlan& plan) {
  return plan.super_bits < 32 ? offset >> plan.super_bits : 0;
}
SB_HD_INLINE std::uint32_t offset_in_super(std::uint32_t offset, const SplitPlan& plan) {
  return plan.super_bits < 32 ? offset & ((std::uint32_t{1} << plan.super_bits) - 1) : offset;
}
SB_HD_INLINE std::uint32_t split_pad(const SplitPlan& plan) { return plan.fine_per_super << plan.low_bits; }
// The first offset of fine bucket b of super-bucket s.
SB_HD_INLINE std::uint64_t split_bucket_first(const SplitPlan& plan, std::uint64_t s, std::uint64_t b) {
  return (s << plan.super_bits) + (b << plan.low_bits);
}
// A super-bucket of `keys` keys takes whole tiles; the last one padded.
SB_HD_INLINE std::uint64_t padded_tiles(std::uint64_t keys, std::uint64_t tile) { return ceil_div(keys, tile); }
// The tiles of the padded array, bounded without the counts (the launches are sized on the host
// and the counts stay on the device): each super-bucket pads fewer than one tile.
SB_HD_INLINE std::uint64_t split_tiles_bound(std::uint64_t n, std::uint64_t supers, std::uint64_t tile) {
  return ceil_div(n, tile) + supers;
}
// How many consecutive lanes read one tile's segment in segment_hist: 4 where a tile's
// segments average at least 64 keys, else 2. Lanes on one segment share its lines, and each
// reads every lanes-th of its 16-byte words, so more of a segment is in flight at once; 4
// lanes won on ~100-key segments, 2 on 25 and 32 (docs/hp.md, segment_lanes).
SB_HD_INLINE unsigned segment_lanes(std::uint64_t buckets, std::uint64_t tile) { return buckets * 64 <= tile ? 4 : 2; }

// hp-tiled where each bucket is counted by one block (bucket_groups == 1, keys only): the
// block also emits its bucket's runs. Warp w of `warps` owns bins [w * per_warp, (w + 1) *
// per_warp) and walks them in chunks of 32, lane l taking the chunk's bin l, so that the runs
// of a chunk are consecutive in run_end (whole-warp stores) and (warp, chunk, lane) visits
// the bins in order. bins is a power of two >= 32 * warps.
SB_HD_INLINE std::uint32_t chunk_bin(std::uint32_t warp, std::uint32_t chunk, std::uint32_t lane,
                                     std::uint32_t per_warp) {
  return warp * per_warp + chunk * 32 + lane;
}

// hp-tiled's bucket width (low bits) when --param low_bits does not set it. Narrower buckets
// buy segment_hist blocks where the flush bound caps the groups per bucket (bucket_groups);
// wider ones keep the grouping pass cheap and its segments long (tile / buckets keys a tile
// on average). So: among the widths lo..hi whose segments average at least min_segment keys,
// the widest whose segment_hist grid holds at least 9/10 of the most blocks any of them gets
// (resident: the segment_hist blocks the GPU holds at once); hi when none qualifies. It
// picked the fastest width at all but one of the sizes measured (docs/hp.md, tiled_low_bits).
SB_HD_INLINE unsigned tiled_low_bits(std::uint64_t n, std::uint64_t range, std::uint64_t tile,
                                     std::uint64_t resident, std::uint64_t keys_per_flushed_bin,
                                     std::uint64_t keys_per_block, unsigned lo, unsigned hi,
                                     std::uint64_t min_segment) {
  const std::uint64_t tiles = ceil_div(n, tile);
  std::uint64_t blocks[32] = {};
  std::uint64_t most = 0;
  for (unsigned w = lo; w <= hi; ++w) {
    const std::uint64_t buckets = buckets_for(range, w);
    if (buckets * min_segment > tile) continue;
    const std::uint64_t grid =
        buckets * bucket_groups(buckets, tiles, resident, n, range, keys_per_flushed_bin, keys_per_block);
    blocks[w] = min_u64(grid, resident);
    most = max_u64(most, blocks[w]);
  }
  for (unsigned w = hi + 1; most != 0 && w-- > lo;)
    if (10 * blocks[w] >= 9 * most) return w;
  return hi;
}

// ---- hp-tiled with a payload ----
// The expansion regenerates keys from counts and cannot carry values, so with a payload
// every (key, value) pair must move to its slot. Group g of bucket b (the same tiles as its
// segment_hist block) stores its own counts H[g][x]; one scan over the bins makes them the
// group's cursors: bin x's first slot plus what the groups before g hold of x. Each group
// then places its pairs from cursors in shared memory, so no slot costs a global atomic.
// group_cursors is the step after the scan of the bins' totals for bin x, whose exclusive
// scan is `start`: H[g * range + x] becomes the group's first slot of x.
// Eight groups' counts are read before any is written: a read after each write waited for
// it (the compiler cannot tell that they never overlap).
SB_HD_INLINE void group_cursors(std::uint32_t* H, std::uint64_t range, std::uint32_t groups, std::uint64_t x,
                                std::uint32_t start) {
  constexpr std::uint32_t kAhead = 8;
  for (std::uint32_t g0 = 0; g0 < groups; g0 += kAhead) {
    std::uint32_t count[kAhead];
    for (std::uint32_t k = 0; k < kAhead; ++k) count[k] = g0 + k < groups ? H[(g0 + k) * range + x] : 0;
    for (std::uint32_t k = 0; k < kAhead && g0 + k < groups; ++k) {
      H[(g0 + k) * range + x] = start;
      start += count[k];
    }
  }
}

// Groups per bucket of the key-value path: enough blocks for `waves` waves of the resident
// ones (a block's share of a bucket varies with the data, so several waves even out the
// tail), no more than there are tiles, and the groups' counts (groups * range words) within
// words_per_key words a key beyond one range.
SB_HD_INLINE std::uint64_t pair_groups(std::uint64_t buckets, std::uint64_t tiles, std::uint64_t resident_blocks,
                                       std::uint64_t waves, std::uint64_t n, std::uint64_t range,
                                       std::uint64_t keys_per_word) {
  std::uint64_t g = buckets ? ceil_div(waves * resident_blocks, buckets) : 1;
  const std::uint64_t by_memory = range ? n / (range * keys_per_word) : 1;
  g = min_u64(g, by_memory > 1 ? by_memory : 1);
  g = min_u64(g, tiles);
  return g ? g : 1;
}

// A group places its pairs a batch at a time: the segments of consecutive tiles that fit in
// one tile's worth of slots (a segment never holds more than a tile). end[s] is the inclusive
// prefix of the batch's segment lengths, so element j of the batch is in segment
// run_at(end, 0, k, j), the first s with end[s] > j (j < end[k - 1]), as a position is in
// the first run ending after it.
// Inside a batch, the bins' counters are scanned by thread t over bins [t * per, (t + 1) *
// per): one padding word every 32 puts those 32 threads' k-th bins in 32 different banks.
SB_HD_INLINE constexpr std::uint32_t padded_bin(std::uint32_t x) { return x + (x >> 5); }
SB_HD_INLINE constexpr std::uint32_t padded_bins(std::uint32_t bins) { return bins + (bins >> 5); }

// hp-tiled-stable ranks a block's items by a digit in input order, whatever order shared
// atomics land in. Items are in warp-major order: warp w holds items [w * items * 32,
// (w + 1) * items * 32), its lane l the step-th one at w * items * 32 + step * 32 + l, so
// input order is (warp, step, lane). Each warp counts its own items in its row of `digits`
// counters (warp_counter: a row a warp, so that a step's leaders write words spread by digit
// over the banks); one exclusive scan of the counters digit by digit, and inside a digit warp
// by warp, then makes each warp's counter of digit d its first item's rank among all of d.
SB_HD_INLINE std::uint32_t warp_major_item(std::uint32_t warp, std::uint32_t step, std::uint32_t lane,
                                           std::uint32_t items) {
  return (warp * items + step) * 32 + lane;
}
SB_HD_INLINE std::uint32_t warp_counter(std::uint32_t digit, std::uint32_t warp, std::uint32_t digits) {
  return warp * digits + digit;
}
// A batch's bins (up to 2^14) are ranked in two such passes, the low digit first: a row of
// 2^14 counters a warp would not fit in shared memory, 2^7 do.
SB_HD_INLINE constexpr unsigned low_digit_bits(unsigned low_bits) { return low_bits / 2; }
// Where a bucket holds few distinct bins, one pass ranks a batch by each bin's ordinal among
// the bucket's present bins instead (present_ordinal), in rows as wide as the two passes'
// together: up to 2^ordinal_digit_bits ordinals.
SB_HD_INLINE constexpr unsigned ordinal_digit_bits(unsigned low_bits) {
  return low_bits - low_digit_bits(low_bits) + 1;
}
SB_HD_INLINE int popcount32(std::uint32_t v) {
#ifdef __CUDA_ARCH__
  return __popc(v);
#else
  return __builtin_popcount(v);
#endif
}
// Bin q of a thread's run of bins, whose presence is the bits of `present`, is its run's
// `before`-th present bin plus the present ones below it in the run.
SB_HD_INLINE std::uint32_t present_ordinal(std::uint32_t before, std::uint32_t present, unsigned q) {
  return before + static_cast<std::uint32_t>(popcount32(present & ((std::uint32_t{1} << q) - 1)));
}

// Fused binarize + scan + compress: one 64-bit scan carries both prefix sums of
// Algorithm 5 (A01p in the high word, Ap in the low word). Ap <= n < 2^32 never carries.
SB_HD_INLINE std::uint64_t pack_bin(std::uint32_t count) {
  return (count ? std::uint64_t{1} << 32 : 0) | count;
}
SB_HD_INLINE std::uint32_t packed_nonzero(std::uint64_t p) { return static_cast<std::uint32_t>(p >> 32); }
SB_HD_INLINE std::uint32_t packed_count(std::uint64_t p) { return static_cast<std::uint32_t>(p); }
// Bits of a digit that takes `range` values (the stable variants' digits and buckets).
SB_HD_INLINE constexpr unsigned bits_for_range(std::uint64_t range) {
  unsigned b = 0;
  while (b < 64 && (std::uint64_t{1} << b) < range) ++b;
  return b;
}
// With 64-bit counts (n >= 2^32) the two sums share a word where n and the non-empty bins leave
// room (the count in the low `shift` bits; 0: none), else the scan adds WideBinSum pairs (10x slower).
SB_HD_INLINE unsigned wide_pack_shift(std::uint64_t n, std::uint64_t range) {
  const unsigned count_bits = bits_for_range(n + 1), nonzero_bits = bits_for_range(min_u64(n, range) + 1);
  return count_bits + nonzero_bits <= 64 ? count_bits : 0;
}
SB_HD_INLINE std::uint64_t pack_bin(std::uint64_t count, unsigned shift) {
  return (count ? std::uint64_t{1} << shift : 0) | count;
}
SB_HD_INLINE std::uint64_t packed_nonzero(std::uint64_t p, unsigned shift) { return p >> shift; }
SB_HD_INLINE std::uint64_t packed_count(std::uint64_t p, unsigned shift) { return p & ~(~std::uint64_t{0} << shift); }
struct WideBinSum {
  std::uint64_t count = 0, nonzero = 0;
};
SB_HD_INLINE WideBinSum operator+(WideBinSum a, WideBinSum b) { return {a.count + b.count, a.nonzero + b.nonzero}; }
SB_HD_INLINE WideBinSum pack_wide_bin(std::uint64_t count) { return {count, count ? 1u : 0u}; }
SB_HD_INLINE std::uint64_t packed_nonzero(WideBinSum p) { return p.nonzero; }
SB_HD_INLINE std::uint64_t packed_count(WideBinSum p) { return p.count; }

// The run (compressed non-empty bin) that holds output position pos: the first j in
// [lo, hi) with run_end[j] > pos, where run_end is the inclusive prefix sum of run lengths.
// Index is u64 over the whole output, u32 inside one expansion tile.
template <typename Index, typename End = std::uint32_t>
SB_HD_INLINE Index run_at(const End* run_end, Index lo, Index hi, Index pos) {
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (run_end[mid] > pos) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// run_at over run_end[0, len) as a warp searches it: `ways` lanes probe the span [lo, hi]
// that holds the answer at once (wide_probe), and the span shrinks to the gap between the
// last probe at or below pos and the first above it (wide_narrow), ceil(size / ways) at most:
// 6 rounds of dependent loads over 4M runs at 16 ways, against 22 for the binary search.
struct RunSpan {
  std::uint64_t lo, hi;  // inclusive; run_end[hi] > pos
};
inline constexpr std::uint32_t kLocateWays = 16;  // locate_tiles: a half-warp per search
SB_HD_INLINE std::uint64_t wide_probe(RunSpan s, std::uint32_t k, std::uint32_t ways) {
  const std::uint64_t step = ceil_div(s.hi - s.lo + 1, ways);
  return min_u64(s.lo + k * step, s.hi);
}
// at_or_below: how many probes found run_end <= pos (the first ones, run_end being sorted).
SB_HD_INLINE RunSpan wide_narrow(RunSpan s, std::uint32_t at_or_below, std::uint32_t ways) {
  if (at_or_below == 0) return {s.lo, s.lo};
  const std::uint64_t last_low = wide_probe(s, at_or_below - 1, ways);
  return {last_low + 1, at_or_below < ways ? wide_probe(s, at_or_below, ways) : s.hi};
}
// The same search one probe at a time (the CPU's form of the warp's, for tests). len >= 1,
// run_end[len - 1] > pos.
inline std::uint64_t run_at_wide(const std::uint32_t* run_end, std::uint64_t len, std::uint64_t pos,
                                 std::uint32_t ways) {
  RunSpan s{0, len - 1};
  while (s.lo < s.hi) {
    std::uint32_t at_or_below = 0;
    for (std::uint32_t k = 0; k < ways; ++k) at_or_below += run_end[wide_probe(s, k, ways)] <= pos;
    s = wide_narrow(s, at_or_below, ways);
  }
  return s.lo;
}

// The runs an output tile [t0, t1) needs (0 <= t0 < t1 <= n): from the first run ending
// after t0 to the run holding t1 - 1, found as locate_tiles finds them (`ways` probes a
// round). Every run holds at least one position, so count <= t1 - t0.
inline void tile_runs(const std::uint32_t* run_end, std::uint64_t len, std::uint64_t t0, std::uint64_t t1,
                      std::uint32_t ways, std::uint64_t& first, std::uint64_t& count) {
  first = run_at_wide(run_end, len, t0, ways);
  count = run_at_wide(run_end, len, t1 - 1, ways) + 1 - first;
}

// The dense expansion: a run for every bin, an empty bin's of length 0, whose value is its bin,
// so the runs are A's inclusive scan alone: one count a bin read and written instead of a
// (value, end) pair a non-empty bin, fewer bytes wherever more than half the bins hold a key.
// A tile's window then holds the empty bins between its keys too. Taken where the facts
// promise every bin a key (len == range: a window holds at most a tile's positions), or more
// than half of them with at least two keys a bin (a window averages half a tile); a window
// wider than the tile is expanded by a search per position (expand_runs). len: distinct keys
// (0: unknown).
SB_HD_INLINE bool dense_expansion(std::uint64_t n, std::uint64_t range, std::uint64_t len) {
  if (len == 0 || range == 0) return false;
  return len >= range || (2 * len >= range && 2 * range <= n);
}

// The bucket holding position pos of the bucketed array, given start(b) (non-decreasing,
// start(0) = 0 <= pos): the last b with start(b) <= pos.
template <typename Start>
SB_HD_INLINE std::uint32_t bucket_holding(const Start& start, std::uint32_t buckets, std::uint64_t pos) {
  std::uint32_t first = 0, last = buckets;
  while (last - first > 1) {
    const std::uint32_t mid = first + (last - first) / 2;
    if (start(mid) <= pos) first = mid;
    else last = mid;
  }
  return first;
}

// hp-stable: LSD passes of a stable counting sort over digits of digit_bits bits.
SB_HD_INLINE std::uint32_t digit_of(std::uint32_t offset, unsigned shift, unsigned digit_bits) {
  return (offset >> shift) & ((std::uint32_t{1} << digit_bits) - 1);
}

}  // namespace sb::hp
