// CPU tests of the hp family: the SB_HD index math of kernels/hp/hp_index.hpp, and the
// sequential Algorithms 2, 3, 5 (cpu-hp, cpu-hp-1, cpu-hp-0c) against std::sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "../../kernels/hp/hp_auto_rule.hpp"
#include "../../kernels/hp/hp_index.hpp"
#include "../../kernels/hp/hp_scatter_index.hpp"
#include "../../kernels/hp/hp_pairs_cpu.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

using namespace sb::hp;

TEST(HpIndex, OffsetsWrapForNegativeMinimum) {
  const std::uint32_t min_word = word_of(-5);
  EXPECT_EQ(key_offset(static_cast<std::uint32_t>(-5), min_word), 0u);
  EXPECT_EQ(key_offset(static_cast<std::uint32_t>(3), min_word), 8u);
  EXPECT_EQ(static_cast<std::int32_t>(key_at(8, min_word)), 3);
  const std::uint32_t lo = word_of(std::int64_t{-2147483648LL});
  EXPECT_EQ(key_offset(0x7fffffffu, lo), 0xffffffffu);
  EXPECT_EQ(range_of(-2147483648LL, 2147483647LL), std::uint64_t{1} << 32);
  EXPECT_EQ(range_of(7, 7), 1u);
}

TEST(HpIndex, PartsCoverEverythingOnceAndAligned) {
  for (std::uint64_t n : {0ull, 1ull, 7ull, 1000ull, 4097ull, 1ull << 20})
    for (std::uint64_t parts : {1ull, 3ull, 132ull, 1024ull}) {
      std::uint64_t next = 0;
      for (std::uint64_t p = 0; p < parts; ++p) {
        std::uint64_t lo, hi;
        part_bounds(n, parts, p, 4, lo, hi);
        EXPECT_EQ(lo, next) << n << " " << parts << " " << p;
        EXPECT_LE(lo, hi);
        if (lo < n) EXPECT_EQ(lo % 4, 0u);
        next = hi;
      }
      EXPECT_EQ(next, n);
    }
}

TEST(HpIndex, AlignedSpanSplitsIntoHeadBodyTail) {
  for (std::uint64_t lo : {0ull, 1ull, 7ull, 8ull, 9ull, 100ull})
    for (std::uint64_t len : {0ull, 1ull, 6ull, 8ull, 15ull, 16ull, 17ull, 1000ull}) {
      const std::uint64_t hi = lo + len;
      std::uint64_t mid_lo, mid_hi;
      aligned_span(lo, hi, 8, mid_lo, mid_hi);
      EXPECT_LE(lo, mid_lo) << lo << " " << hi;
      EXPECT_LE(mid_lo, mid_hi) << lo << " " << hi;
      EXPECT_LE(mid_hi, hi) << lo << " " << hi;
      // An aligned body with head and tail shorter than one vector, or no body when no
      // aligned vector fits in the span.
      if (mid_lo < mid_hi) {
        EXPECT_EQ(mid_lo % 8, 0u);
        EXPECT_EQ(mid_hi % 8, 0u);
        EXPECT_LT(mid_lo - lo, 8u);
        EXPECT_LT(hi - mid_hi, 8u);
      } else {
        EXPECT_GT(ceil_div(lo, 8) * 8 + 8, hi) << lo << " " << hi;
      }
    }
}

TEST(HpIndex, BucketSplitRecombines) {
  for (unsigned low : {10u, 15u})
    for (std::uint32_t off : {0u, 1u, 32767u, 32768u, 1000000u, 0xffffffffu})
      EXPECT_EQ((bucket_of(off, low) << low) | bin_in_bucket(off, low), off);
  EXPECT_EQ(buckets_for(1, 15), 1u);
  EXPECT_EQ(buckets_for(32768, 15), 1u);
  EXPECT_EQ(buckets_for(32769, 15), 2u);
  EXPECT_EQ(buckets_for(std::uint64_t{1} << 32, 15), std::uint64_t{1} << 17);
}

TEST(HpIndex, SharedBandsCoverTheRangeInBandsThatFit) {
  EXPECT_EQ(shared_bands(1, 58112), 1u);
  EXPECT_EQ(shared_bands(58112, 58112), 1u);
  EXPECT_EQ(shared_bands(58113, 58112), 2u);
  EXPECT_EQ(shared_bands(65536, 58112), 2u);  // delta = 256 at n = 2^24
  for (std::uint64_t range : {1ull, 1000ull, 58113ull, 65536ull, 116224ull}) {
    const std::uint64_t bands = shared_bands(range, 58112);
    std::uint64_t next = 0;
    for (std::uint64_t band = 0; band < bands; ++band) {
      std::uint64_t lo, hi;
      part_bounds(range, bands, band, 1, lo, hi);
      EXPECT_EQ(lo, next);
      EXPECT_LE(hi - lo, 58112u);
      next = hi;
    }
    EXPECT_EQ(next, range);
  }
}

TEST(HpIndex, SegmentTableIsBucketMajorWithALengthRow) {
  EXPECT_EQ(segment_table_words(3, 10), 40u);
  EXPECT_EQ(segment_row(0, 0, 10), 0u);
  EXPECT_EQ(segment_row(0, 9, 10), 9u);
  EXPECT_EQ(segment_row(1, 0, 10), 10u);
  EXPECT_EQ(segment_row(3, 9, 10), 39u);  // the last tile's length, the table's last word
}

TEST(HpIndex, WordSpanCoversTheSegmentWithWholeWords) {
  for (std::uint64_t per : {4ull, 8ull})
    for (std::uint64_t lo : {0ull, 1ull, 3ull, 4ull, 5ull, 7ull, 8ull, 9ull, 8191ull, 8192ull})
      for (std::uint64_t len : {0ull, 1ull, 2ull, 3ull, 4ull, 5ull, 7ull, 8ull, 9ull, 100ull}) {
        std::uint64_t q0, q1;
        word_span(lo, lo + len, per, q0, q1);
        if (len == 0) {
          EXPECT_EQ(q0, q1);
          continue;
        }
        EXPECT_LE(per * q0, lo);
        EXPECT_GT(per * q0 + per, lo);  // the first word holds lo
        EXPECT_GE(per * q1, lo + len);
        EXPECT_LT(per * q1 - per, lo + len);  // the last word holds lo + len - 1
      }
}

TEST(HpIndex, InSegmentMasksTheNeighboursOfTheFirstAndLastWords) {
  for (std::uint64_t per : {4ull, 8ull})
    for (std::uint64_t lo : {0ull, 1ull, 7ull, 8ull, 9ull, 8191ull, (1ull << 33) + 5})
      for (std::uint64_t len : {0ull, 1ull, 2ull, 7ull, 8ull, 9ull, 100ull, 8192ull}) {
        std::uint64_t q0, q1;
        word_span(lo, lo + len, per, q0, q1);
        for (std::uint64_t q = q0 > 0 ? q0 - 1 : 0; q <= q1; ++q)
          for (std::uint32_t k = 0; k < per; ++k) {
            const std::uint64_t pos = per * q + k;
            EXPECT_EQ(in_segment(q, k, per, lo, static_cast<std::uint32_t>(len)), pos >= lo && pos < lo + len)
                << "lo " << lo << " len " << len << " pos " << pos;
          }
      }
}

TEST(HpIndex, BucketGroupsFillOneWaveOrKeepBlocksSmallWithinTheFlushBudget) {
  // 82 buckets, 396 resident blocks: 4 groups (328 blocks, one wave).
  EXPECT_EQ(bucket_groups(82, 8192, 396, 1ull << 26, (1ull << 26) / 50, 8, 1u << 18), 4u);
  // More buckets than resident blocks: one group, A written with stores.
  EXPECT_EQ(bucket_groups(500, 8192, 396, 1ull << 26, 500ull << 14, 8, 1u << 18), 1u);
  // delta = 16: the flush budget (16 / 8 keys per flushed bin) allows 2 groups only.
  EXPECT_EQ(bucket_groups(64, 2048, 396, 1ull << 24, 1ull << 20, 8, 1u << 18), 2u);
  // delta below keys_per_flushed_bin: one group.
  EXPECT_EQ(bucket_groups(4, 2048, 396, 1ull << 24, 1ull << 22, 8, 1u << 18), 1u);
  // Past one wave (n / 2^18 > 396 blocks), blocks of about 2^18 keys: 328 buckets at n = 2^28
  // take 3 groups where one wave gives them one; 1,024 buckets still one.
  EXPECT_EQ(bucket_groups(328, 32768, 396, 1ull << 28, (1ull << 28) / 50, 8, 1u << 18), 3u);
  EXPECT_EQ(bucket_groups(1024, 32768, 396, 1ull << 28, (1ull << 28) / 16, 8, 1u << 18), 1u);
  // ... within the flush budget (delta = 16: 2 groups).
  EXPECT_EQ(bucket_groups(16, 32768, 396, 1ull << 28, (1ull << 28) / 16, 8, 1u << 18), 2u);
  // Never more groups than tiles, never none.
  EXPECT_EQ(bucket_groups(1, 3, 396, 1ull << 20, 1000, 8, 1u << 18), 3u);
  EXPECT_EQ(bucket_groups(1, 0, 396, 0, 1, 8, 1u << 18), 1u);
}

TEST(HpIndex, SegmentLanesAreFourForLongSegmentsElseTwo) {
  EXPECT_EQ(segment_lanes(82, 8192), 4u);    // n = 2^26, delta = 50: ~100 keys a segment
  EXPECT_EQ(segment_lanes(128, 8192), 4u);   // 64 keys
  EXPECT_EQ(segment_lanes(129, 8192), 2u);
  EXPECT_EQ(segment_lanes(328, 8192), 2u);   // n = 2^28, delta = 50: ~25 keys
  EXPECT_EQ(segment_lanes(2048, 8192), 2u);  // the most buckets: 4 keys
  EXPECT_EQ(segment_lanes(1, 8192), 4u);
}

TEST(HpIndex, PairGroupsFillSeveralWavesWithinTheCountBudget) {
  // 82 buckets, 264 resident blocks, 4 waves: 13 groups (1,066 blocks).
  EXPECT_EQ(pair_groups(82, 8192, 264, 4, 1ull << 26, (1ull << 26) / 50, 2), 13u);
  // delta = 4: the groups' counts may take n / 2 words, so 2 groups of the range.
  EXPECT_EQ(pair_groups(82, 2048, 264, 4, 1ull << 24, 1ull << 22, 2), 2u);
  // delta = 1: one group, its counts are A.
  EXPECT_EQ(pair_groups(1024, 2048, 264, 4, 1ull << 24, 1ull << 24, 2), 1u);
  // Never more groups than tiles, never none.
  EXPECT_EQ(pair_groups(1, 3, 264, 4, 20000, 1000, 2), 3u);
  EXPECT_EQ(pair_groups(1, 0, 264, 4, 0, 1, 2), 1u);
}

TEST(HpIndex, GroupCursorsStartEachGroupAfterTheGroupsBeforeIt) {
  const std::uint64_t range = 37;
  const std::uint32_t groups = 5;
  std::mt19937 rng(3);
  std::vector<std::uint32_t> H(groups * range);
  for (auto& h : H) h = rng() % 4;  // zeros among them
  const std::vector<std::uint32_t> counts = H;
  std::uint32_t start = 0;
  for (std::uint64_t x = 0; x < range; ++x) {
    std::uint32_t total = 0;
    for (std::uint32_t g = 0; g < groups; ++g) total += H[g * range + x];
    group_cursors(H.data(), range, groups, x, start);
    start += total;
  }
  std::uint32_t slot = 0;  // bins in order, groups in order inside a bin
  for (std::uint64_t x = 0; x < range; ++x)
    for (std::uint32_t g = 0; g < groups; ++g) {
      EXPECT_EQ(H[g * range + x], slot) << "bin " << x << " group " << g;
      slot += counts[g * range + x];
    }
  EXPECT_EQ(start, slot);
}

TEST(HpIndex, RunAtFindsTheSegmentHoldingABatchElement) {
  const std::vector<std::uint32_t> end = {0, 3, 3, 3, 10, 11, 11, 8192};  // empty segments among them
  for (std::uint32_t j = 0; j < end.back(); ++j) {
    const std::uint32_t s = run_at(end.data(), 0u, static_cast<std::uint32_t>(end.size()), j);
    ASSERT_LT(s, end.size());
    EXPECT_GT(end[s], j);
    if (s) EXPECT_LE(end[s - 1], j);
  }
}

TEST(HpIndex, PaddedBinsPutAWarpsKthBinsInDistinctBanks) {
  // place_pairs: 2^12 to 2^14 bins over 512 threads (2^15 bins do not fit beside a batch).
  for (std::uint32_t per : {8u, 16u, 32u})
    for (std::uint32_t k = 0; k < per; ++k) {
      std::vector<bool> bank(32, false);
      for (std::uint32_t t = 0; t < 32; ++t) {
        const std::uint32_t b = padded_bin(t * per + k) % 32;
        EXPECT_FALSE(bank[b]) << "per " << per << " k " << k << " thread " << t;
        bank[b] = true;
      }
    }
  EXPECT_EQ(padded_bins(1u << 14), (1u << 14) + 512);
  EXPECT_LE(padded_bin((1u << 14) - 1) + 1, padded_bins(1u << 14));  // every bin has its word
}

// hp-tiled's key-value path as its kernels do it, one thread at a time: tiles grouped by
// bucket (shuffled inside a bucket, as shared atomics leave them), each group's counts, the
// cursor scan, and the groups placing their pairs batch by batch (tiles whose segments fit in
// a tile, at most `batch_tiles` of them) in a shuffled counting order. Every slot must be
// written once and the pairs must come out sorted by key.
std::vector<std::pair<std::uint32_t, std::uint32_t>> tiled_pairs_model(const std::vector<std::uint32_t>& off,
                                                                       std::uint64_t range, unsigned low_bits,
                                                                       std::uint32_t groups, std::uint32_t tile,
                                                                       std::uint32_t batch_tiles, std::mt19937& rng) {
  const std::uint64_t n = off.size(), tiles = ceil_div(n, tile), buckets = buckets_for(range, low_bits);
  std::vector<std::uint32_t> seg(segment_table_words(buckets, tiles));
  std::vector<std::uint16_t> low(n);
  std::vector<std::uint32_t> val(n);  // the input position
  for (std::uint64_t t = 0; t < tiles; ++t) {
    const std::uint64_t t0 = t * tile, len = min_u64(tile, n - t0);
    std::vector<std::uint32_t> idx(len);
    std::iota(idx.begin(), idx.end(), static_cast<std::uint32_t>(t0));
    std::shuffle(idx.begin(), idx.end(), rng);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](auto a, auto b) { return bucket_of(off[a], low_bits) < bucket_of(off[b], low_bits); });
    std::uint32_t at = 0;
    for (std::uint64_t b = 0; b <= buckets; ++b) {
      seg[segment_row(b, t, tiles)] = at;
      while (b < buckets && at < len && bucket_of(off[idx[at]], low_bits) == b) {
        low[t0 + at] = static_cast<std::uint16_t>(bin_in_bucket(off[idx[at]], low_bits));
        val[t0 + at] = idx[at];
        ++at;
      }
    }
  }
  std::vector<std::uint32_t> H(groups * range, 0);
  for (std::uint64_t b = 0; b < buckets; ++b)
    for (std::uint32_t g = 0; g < groups; ++g) {
      std::uint64_t lo, hi;
      part_bounds(tiles, groups, g, 1, lo, hi);
      for (std::uint64_t t = lo; t < hi; ++t)
        for (std::uint32_t i = seg[segment_row(b, t, tiles)]; i < seg[segment_row(b + 1, t, tiles)]; ++i)
          ++H[g * range + (b << low_bits) + low[t * tile + i]];
    }
  // The bins' totals (segment_hist's atomics), their exclusive scan, and each group's first
  // slot two ways: as place_pairs adds the groups before it, and by group_cursors.
  std::vector<std::uint32_t> start(range, 0);
  for (std::uint64_t x = 0; x < range; ++x)
    for (std::uint32_t g = 0; g < groups; ++g) start[x] += H[g * range + x];
  std::exclusive_scan(start.begin(), start.end(), start.begin(), 0u);
  std::vector<std::uint32_t> inline_cursor(groups * range);
  for (std::uint64_t x = 0; x < range; ++x)
    for (std::uint32_t g = 0; g < groups; ++g) {
      inline_cursor[g * range + x] = start[x];
      for (std::uint32_t before = 0; before < g; ++before) inline_cursor[g * range + x] += H[before * range + x];
    }
  for (std::uint64_t x = 0; x < range; ++x) group_cursors(H.data(), range, groups, x, start[x]);
  EXPECT_EQ(H, inline_cursor);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out(n, {~0u, ~0u});
  const std::uint32_t bins = 1u << low_bits;
  for (std::uint64_t b = 0; b < buckets; ++b)
    for (std::uint32_t g = 0; g < groups; ++g) {
      std::uint64_t t_lo, t_hi;
      part_bounds(tiles, groups, g, 1, t_lo, t_hi);
      const std::uint64_t first = b << low_bits;
      std::vector<std::uint32_t> cur(bins, 0);
      for (std::uint32_t x = 0; x < bins && first + x < range; ++x) cur[x] = H[g * range + first + x];
      for (std::uint64_t t = t_lo; t < t_hi;) {
        std::vector<std::uint32_t> end, lo;
        for (std::uint64_t u = t; u < t_hi && u < t + batch_tiles; ++u) {
          const std::uint32_t a = seg[segment_row(b, u, tiles)], z = seg[segment_row(b + 1, u, tiles)];
          const std::uint32_t e = (end.empty() ? 0 : end.back()) + z - a;
          if (e > tile) break;
          end.push_back(e);
          lo.push_back(a);
        }
        const auto k = static_cast<std::uint32_t>(end.size());
        EXPECT_GE(k, 1u);
        const std::uint32_t total = end[k - 1];
        std::vector<std::uint16_t> s_low(total);
        std::vector<std::uint32_t> s_val(total), rank(total), cnt(bins, 0), perm(total);
        for (std::uint32_t j = 0; j < total; ++j) {
          const std::uint32_t s = run_at(end.data(), 0u, k, j);
          const std::uint64_t at = (t + s) * tile + lo[s] + (j - (s ? end[s - 1] : 0u));
          s_low[j] = low[at];
          s_val[j] = val[at];
        }
        std::vector<std::uint32_t> order(total);
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin(), order.end(), rng);
        for (std::uint32_t j : order) rank[j] = cnt[s_low[j]]++;
        std::uint32_t sum = 0;
        for (std::uint32_t x = 0; x < bins; ++x) {
          const std::uint32_t c = cnt[x];
          cnt[x] = sum;
          cur[x] -= sum;
          sum += c;
        }
        for (std::uint32_t j = 0; j < total; ++j) perm[cnt[s_low[j]] + rank[j]] = j;
        for (std::uint32_t slot = 0; slot < total; ++slot) {
          const std::uint32_t j = perm[slot];
          const std::uint32_t at = cur[s_low[j]] + slot;
          EXPECT_EQ(out.at(at).first, ~0u) << "slot " << at << " written twice";
          out.at(at) = {static_cast<std::uint32_t>(first + s_low[j]), s_val[j]};
        }
        for (std::uint32_t x = 0; x < bins; ++x) cur[x] += x + 1 < bins ? cnt[x + 1] : total;
        t += k;
      }
    }
  return out;
}

TEST(HpIndex, TiledPairsModelSortsEveryPairOnce) {
  std::mt19937 rng(11);
  struct Case {
    std::uint64_t n, range;
    unsigned low_bits;
    std::uint32_t groups, tile, batch_tiles;
    const char* what;
  };
  for (const Case& c : {Case{5000, 3000, 8, 3, 256, 16, "uniform, several groups and batches"},
                        Case{4099, 256, 8, 2, 256, 8, "one bucket: whole-tile segments, a partial last tile"},
                        Case{3000, 1 << 12, 8, 4, 128, 64, "sixteen buckets, short segments"},
                        Case{1, 1, 8, 1, 256, 16, "one key"}}) {
    SCOPED_TRACE(c.what);
    std::vector<std::uint32_t> off(c.n);
    for (auto& o : off) o = static_cast<std::uint32_t>(rng() % c.range);
    off[0] = static_cast<std::uint32_t>(c.range - 1);
    const auto out = tiled_pairs_model(off, c.range, c.low_bits, c.groups, c.tile, c.batch_tiles, rng);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> want(c.n);
    for (std::uint32_t i = 0; i < c.n; ++i) want[i] = {off[i], i};
    std::sort(want.begin(), want.end());
    for (std::uint64_t i = 0; i + 1 < c.n; ++i) ASSERT_LE(out[i].first, out[i + 1].first) << "at " << i;
    auto got = out;
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want);
  }
}

// hp-tiled-stable's ranking (count_warp_digits, scan_warp_counts) one lane at a time: items
// in warp-major order, each warp's counts in its row (a step's equal digits by lane), the
// exclusive scan digit by digit and warp by warp. The ranks must be a stable counting sort's
// positions, and two passes over a bin's low then high digit must sort a batch by bin in
// element order.
std::vector<std::uint32_t> warp_count_ranks(const std::vector<std::uint32_t>& digit, std::uint32_t total,
                                            std::uint32_t digits) {
  constexpr std::uint32_t warps = 16, items = 16;
  std::vector<std::uint32_t> count(warps * digits, 0), rank(total);
  for (std::uint32_t w = 0; w < warps; ++w)
    for (std::uint32_t step = 0; step < items; ++step) {
      for (std::uint32_t lane = 0; lane < 32; ++lane) {
        const std::uint32_t j = warp_major_item(w, step, lane, items);
        if (j >= total) continue;
        std::uint32_t peers_below = 0;  // lanes before this one in the step with its digit
        for (std::uint32_t l = 0; l < lane; ++l) {
          const std::uint32_t jl = warp_major_item(w, step, l, items);
          peers_below += jl < total && digit[jl] == digit[j];
        }
        rank[j] = count[warp_counter(digit[j], w, digits)] + peers_below;
      }
      // The step's leaders add their peers once every lane has its rank.
      for (std::uint32_t lane = 0; lane < 32; ++lane) {
        const std::uint32_t j = warp_major_item(w, step, lane, items);
        if (j < total) ++count[warp_counter(digit[j], w, digits)];
      }
    }
  std::vector<std::uint32_t> first(warps * digits);
  std::uint32_t sum = 0;
  for (std::uint32_t d = 0; d < digits; ++d)
    for (std::uint32_t w = 0; w < warps; ++w) {
      first[warp_counter(d, w, digits)] = sum;
      sum += count[warp_counter(d, w, digits)];
    }
  for (std::uint32_t j = 0; j < total; ++j) rank[j] += first[warp_counter(digit[j], j / (items * 32), digits)];
  return rank;
}

TEST(HpIndex, WarpCountsRankInInputOrder) {
  std::mt19937 rng(17);
  constexpr std::uint32_t kBatch = 8192;
  EXPECT_EQ(warp_major_item(0, 0, 31, 16), 31u);
  EXPECT_EQ(warp_major_item(0, 1, 0, 16), 32u);
  EXPECT_EQ(warp_major_item(15, 15, 31, 16), kBatch - 1);
  for (std::uint32_t digits : {1u, 5u, 64u, 328u, 2048u})
    for (std::uint32_t total : {kBatch, 1u, 33u, 5000u}) {
      SCOPED_TRACE(std::to_string(digits) + " digits, " + std::to_string(total) + " items");
      std::vector<std::uint32_t> digit(total);
      for (auto& d : digit) d = rng() % 4 == 0 ? digits - 1 : rng() % digits;  // runs of one digit too
      const auto rank = warp_count_ranks(digit, total, digits);
      std::vector<std::uint32_t> count(digits + 1, 0), want(total);
      for (auto d : digit) ++count[d + 1];
      std::partial_sum(count.begin(), count.end(), count.begin());
      for (std::uint32_t j = 0; j < total; ++j) want[j] = count[digit[j]]++;
      ASSERT_EQ(rank, want);
    }
  // A batch of 2^12 to 2^14 bins sorted by bin in two passes (sort_batch_by_bin).
  for (unsigned low_bits : {12u, 13u, 14u}) {
    const unsigned lo = low_digit_bits(low_bits), hi = low_bits - lo;
    EXPECT_LE(hi, 7u);  // a warp's row of 2^7 16-bit counters
    for (std::uint32_t total : {kBatch, 4097u}) {
      std::vector<std::uint32_t> bin(total);
      for (auto& b : bin) b = rng() % 3 == 0 ? 77 : rng() % (1u << low_bits);
      std::vector<std::uint32_t> digit(total), order(total), next(total);
      for (std::uint32_t j = 0; j < total; ++j) digit[j] = bin[j] & ((1u << lo) - 1);
      auto rank = warp_count_ranks(digit, total, 1u << lo);
      for (std::uint32_t j = 0; j < total; ++j) order[rank[j]] = j;
      for (std::uint32_t j = 0; j < total; ++j) digit[j] = bin[order[j]] >> lo;
      rank = warp_count_ranks(digit, total, 1u << hi);
      for (std::uint32_t j = 0; j < total; ++j) next[rank[j]] = order[j];
      std::vector<std::uint32_t> want(total);
      std::iota(want.begin(), want.end(), 0u);
      std::stable_sort(want.begin(), want.end(), [&](auto a, auto b) { return bin[a] < bin[b]; });
      ASSERT_EQ(next, want) << "low_bits " << low_bits << ", " << total << " elements";
      // One pass over the present bins' ordinals sorts it the same way, where there are few.
      const unsigned ordinal_bits = ordinal_digit_bits(low_bits);
      EXPECT_LE(ordinal_bits, 8u);  // an ordinal is a byte
      EXPECT_LE((1u << lo) + (1u << hi), 1u << ordinal_bits);  // the two passes' rows fit in its rows
      std::vector<std::uint32_t> few(total), ordinal(1u << low_bits, ~0u);
      const std::uint32_t spacing = (1u << low_bits) >> ordinal_bits;  // few bins, spread over the bucket
      for (std::uint32_t j = 0; j < total; ++j) few[j] = bin[j] * 37 % (1u << ordinal_bits) * spacing;
      for (auto b : few) ordinal[b] = 0;
      std::uint32_t count = 0;
      for (std::uint32_t b = 0; b < (1u << low_bits); b += 32) {  // 32 bins a thread, as place_pairs' runs
        std::uint32_t present = 0;
        for (unsigned q = 0; q < 32; ++q) present |= std::uint32_t{ordinal[b + q] == 0} << q;
        for (unsigned q = 0; q < 32; ++q)
          if (present >> q & 1) ordinal[b + q] = present_ordinal(count, present, q);
        count += static_cast<std::uint32_t>(popcount32(present));
      }
      ASSERT_LE(count, 1u << ordinal_bits);
      for (std::uint32_t j = 0; j < total; ++j) digit[j] = ordinal[few[j]];
      rank = warp_count_ranks(digit, total, count);
      for (std::uint32_t j = 0; j < total; ++j) next[rank[j]] = j;
      std::iota(want.begin(), want.end(), 0u);
      std::stable_sort(want.begin(), want.end(), [&](auto a, auto b) { return few[a] < few[b]; });
      ASSERT_EQ(next, want) << "ordinals, low_bits " << low_bits << ", " << total << " elements";
    }
  }
}

TEST(HpIndex, TiledLowBitsTakesTheWidestBucketsThatKeepSegmentHistBusy) {
  const std::uint64_t resident = 396;  // 132 SMs, 3 blocks each
  auto width = [&](std::uint64_t n, std::uint64_t delta) {
    return tiled_low_bits(n, n / delta, 8192, resident, 8, 1u << 18, 12, 14, 32);
  };
  // n = 2^24 (the winner map's n): the fastest width measured on an H200 at each delta.
  EXPECT_EQ(width(1ull << 24, 4), 14u);    // 256 buckets; narrower ones leave segments under 32 keys
  EXPECT_EQ(width(1ull << 24, 16), 13u);   // 256 segment_hist blocks against 128 at 14
  EXPECT_EQ(width(1ull << 24, 64), 12u);   // 384 against 256 and 128
  EXPECT_EQ(width(1ull << 24, 128), 12u);
  // n = 2^26 and 2^28: enough tiles per bucket for a wave at 14.
  EXPECT_EQ(width(1ull << 26, 50), 14u);
  EXPECT_EQ(width(1ull << 26, 64), 14u);   // 384 blocks at 13 and 14: the wider
  EXPECT_EQ(width(1ull << 26, 16), 14u);
  EXPECT_EQ(width(1ull << 28, 50), 14u);   // 328 buckets even at 14: no narrower width qualifies
  // Whatever n and range: a width in 12..14, and narrower than 14 only with segments of at
  // least 32 keys a tile on average (at most 256 buckets).
  for (std::uint64_t n = 1; n < (1ull << 34); n = n * 3 + 1)
    for (std::uint64_t range = 1; range < (1ull << 30); range = range * 5 + 3) {
      const unsigned w = tiled_low_bits(n, range, 8192, resident, 8, 1u << 18, 12, 14, 32);
      ASSERT_GE(w, 12u);
      ASSERT_LE(w, 14u);
      if (w < 14) ASSERT_LE(buckets_for(range, w) * 32, 8192u) << n << " " << range;
    }
}

TEST(HpIndex, SixteenBitPairsMoveEveryWrapIntoA) {
  // One word's two bins, counted as a block's threads count them: adds of runs under 2^16
  // keys, each an atomic whose returned value tells its thread which wraps to move into A,
  // and a low half's carry taken back by a later atomic of the same thread; the atomics of
  // different threads interleave in any order. A's 2^16 units plus the halves left at the
  // end must be the exact counts, however many times a half wraps.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int shape = trial % 4;  // 0: the low bin only, 1: the high bin only, 2: both, 3: short runs, both
    std::uint32_t word = 0;
    std::uint64_t A[2] = {0, 0}, want[2] = {0, 0};
    std::vector<int> take_backs;  // pending take-backs (one per carried add), by the bin they came from
    auto add_to_A = [&](std::uint32_t bin, std::uint32_t units) { A[bin] = (A[bin] + (std::uint64_t{units} << 16)) & 0xffffffffu; };
    const int adds = shape == 3 ? 10000 + static_cast<int>(rng() % 10000) : 20 + static_cast<int>(rng() % 400);
    for (int k = 0; k < adds || !take_backs.empty();) {
      if (k < adds && (take_backs.empty() || rng() % 3 != 0)) {
        const std::uint32_t bin = shape == 0 ? 0 : shape == 1 ? 1 : rng() % 2;
        const std::uint32_t run = shape == 3 ? 1 + rng() % 40 : 1 + rng() % kPairRunMax;
        const std::uint32_t before = word;
        word += pair_add(bin, run);
        want[bin] += run;
        const PairWraps w = pair_wraps(before, bin, run);
        add_to_A(0, w.low);
        add_to_A(1, w.high);
        if (w.carried) take_backs.push_back(0);
        ++k;
      } else {
        // Some thread's pending take-back lands now.
        const std::size_t i = rng() % take_backs.size();
        take_backs.erase(take_backs.begin() + static_cast<std::ptrdiff_t>(i));
        const std::uint32_t before = word;
        word += kPairTakeBack;
        if (pair_take_back_wraps(before)) add_to_A(1, 0xffffffffu);  // one 2^16 fewer
      }
    }
    for (std::uint32_t bin = 0; bin < 2; ++bin) {
      const std::uint64_t total = (A[bin] + pair_count(word, bin)) & 0xffffffffu;
      ASSERT_EQ(total, want[bin] & 0xffffffffu) << "trial " << trial << " bin " << bin;
    }
    ASSERT_GT(want[0] + want[1], 0xffffu) << "every shape wraps a half";
  }
  // The single cases: a low half that carries into a full high half wraps both; a take-back
  // from a high half at 0 wraps it down.
  const PairWraps both = pair_wraps(0xffffffffu, 0, 1);
  EXPECT_EQ(both.low, 1u);
  EXPECT_EQ(both.high, 1u);
  EXPECT_TRUE(both.carried);
  EXPECT_TRUE(pair_take_back_wraps(0x0000ffffu));
  EXPECT_FALSE(pair_take_back_wraps(0x00010000u));
  const PairWraps high = pair_wraps(0xfffe0000u, 1, 2);
  EXPECT_EQ(high.low, 0u);
  EXPECT_EQ(high.high, 1u);
  EXPECT_FALSE(high.carried);
  EXPECT_EQ(pair_wraps(0xfffe0000u, 1, 1).high, 0u);
}

TEST(HpIndex, PackedScanCarriesBothSums) {
  const std::vector<std::uint32_t> A{0, 3, 0, 0, 5, 1, 0};
  std::uint64_t sum = 0;
  std::vector<std::uint32_t> ends, nonzero;
  for (std::uint32_t a : A) {
    sum += pack_bin(a);
    ends.push_back(packed_count(sum));
    nonzero.push_back(packed_nonzero(sum));
  }
  EXPECT_EQ(ends, (std::vector<std::uint32_t>{0, 3, 3, 3, 8, 9, 9}));
  EXPECT_EQ(nonzero, (std::vector<std::uint32_t>{0, 1, 1, 1, 2, 3, 3}));
  // A full 32-bit count does not carry into the nonzero word.
  EXPECT_EQ(packed_nonzero(pack_bin(0xffffffffu)), 1u);
}

// 64-bit counts in one word: the count takes the bits n needs, the nonzero sum the rest, where
// n and the range leave room; a bin holding every key does not carry into the nonzero sum.
TEST(HpIndex, WidePackedScanCarriesBothSumsWhereTheyFit) {
  const std::uint64_t n32 = std::uint64_t{1} << 32;
  EXPECT_EQ(wide_pack_shift(n32, n32 / 50), 33u);           // the 2^32 bar: 33 + 27 bits
  EXPECT_EQ(wide_pack_shift(n32 - 1, n32), 32u);            // 32 + 32
  EXPECT_EQ(wide_pack_shift(n32, n32), 0u);                 // 33 + 33: pairs
  EXPECT_EQ(wide_pack_shift(n32 * 4, n32 / 2), 0u);         // 35 + 32
  EXPECT_EQ(wide_pack_shift(n32 * 4, (n32 / 8) - 1), 35u);  // 35 + 29
  const unsigned shift = wide_pack_shift(n32, n32 / 50);
  const std::vector<std::uint64_t> A{0, 3, 0, n32 - 9, 5, 1, 0};
  std::uint64_t sum = 0;
  std::vector<std::uint64_t> ends, nonzero;
  for (std::uint64_t a : A) {
    sum += pack_bin(a, shift);
    ends.push_back(packed_count(sum, shift));
    nonzero.push_back(packed_nonzero(sum, shift));
  }
  EXPECT_EQ(ends, (std::vector<std::uint64_t>{0, 3, 3, n32 - 6, n32 - 1, n32, n32}));
  EXPECT_EQ(nonzero, (std::vector<std::uint64_t>{0, 1, 1, 2, 3, 4, 4}));
  EXPECT_EQ(packed_nonzero(pack_bin(n32, shift), shift), 1u);
}

TEST(HpIndex, RunAtFindsTheRunOfEachPosition) {
  const std::vector<std::uint32_t> run_end{3, 4, 9, 10};  // runs of 3, 1, 5, 1
  std::vector<std::uint64_t> got;
  for (std::uint64_t pos = 0; pos < 10; ++pos) got.push_back(run_at<std::uint64_t>(run_end.data(), 0, run_end.size(), pos));
  EXPECT_EQ(got, (std::vector<std::uint64_t>{0, 0, 0, 1, 2, 2, 2, 2, 2, 3}));
  EXPECT_EQ(run_at<std::uint64_t>(run_end.data(), 2, 4, 9), 3u);
  EXPECT_EQ(run_at<std::uint32_t>(run_end.data(), 2, 4, 9), 3u);
}

TEST(HpIndex, WideSearchFindsWhatTheBinarySearchFinds) {
  // locate_tiles' search, `ways` probes a round, against run_at: runs of random lengths
  // (some of one position), every position, and spans of every size from 1 up.
  std::mt19937 rng(5);
  for (std::uint32_t ways : {2u, 3u, 16u, 32u}) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::uint32_t len = 1 + rng() % (trial < 20 ? 40 : 5000);
      std::vector<std::uint32_t> run_end(len);
      std::uint32_t end = 0;
      for (auto& e : run_end) e = end += 1 + (rng() % 4 == 0 ? rng() % 50 : 0);
      for (std::uint64_t pos = 0; pos < end; pos += 1 + (len > 40 ? rng() % 7 : 0))
        ASSERT_EQ(run_at_wide(run_end.data(), len, pos, ways), run_at<std::uint64_t>(run_end.data(), 0, len, pos))
            << "ways " << ways << " len " << len << " pos " << pos;
    }
  }
  // Each round leaves at most ceil(size / ways) candidates: 6 rounds for 4M runs at 16 ways.
  RunSpan s{0, (1u << 22) - 1};
  int rounds = 0;
  for (; s.lo < s.hi; ++rounds) s = wide_narrow(s, 7, kLocateWays);
  EXPECT_LE(rounds, 6);
}

TEST(HpIndex, SegmentRunsEmitTheScansRuns) {
  // segment_runs' order of work: per bucket, warps over consecutive bin ranges, each in
  // chunks of 32 lanes (chunk_bin), packed sums carried from bucket to bucket (the look-back)
  // and from warp to warp. Its runs must be the fused scan's: run j is the j-th non-empty bin.
  std::mt19937 rng(3);
  for (std::uint32_t bins : {512u, 4096u, 16384u}) {
    const std::uint32_t warps = 16, per_warp = bins / warps, buckets = 5;
    std::vector<std::uint32_t> A(std::size_t{buckets} * bins);
    for (auto& a : A) a = rng() % 3 == 0 ? 1 + rng() % 9 : 0;
    std::vector<std::uint32_t> want_end, got_end(A.size()), want_bin, got_bin(A.size());
    std::uint32_t total = 0;
    for (std::uint32_t i = 0; i < A.size(); ++i)
      if (A[i]) want_end.push_back(total += A[i]), want_bin.push_back(i);
    std::uint64_t before_bucket = 0;  // what the look-back gives bucket b
    std::vector<bool> seen(bins);
    for (std::uint32_t b = 0; b < buckets; ++b) {
      std::uint64_t before = before_bucket;
      for (std::uint32_t w = 0; w < warps; ++w)
        for (std::uint32_t c = 0; c < per_warp / 32; ++c)
          for (std::uint32_t lane = 0; lane < 32; ++lane) {
            const std::uint32_t bin = chunk_bin(w, c, lane, per_warp);
            ASSERT_LT(bin, bins);
            if (b == 0) {
              ASSERT_FALSE(seen[bin]);
              seen[bin] = true;
            }
            before += pack_bin(A[std::size_t{b} * bins + bin]);
            if (A[std::size_t{b} * bins + bin]) {
              got_end[packed_nonzero(before) - 1] = packed_count(before);
              got_bin[packed_nonzero(before) - 1] = b * bins + bin;
            }
          }
      before_bucket = before;
    }
    const std::uint32_t len = packed_nonzero(before_bucket);
    ASSERT_EQ(len, want_end.size());
    got_end.resize(len);
    got_bin.resize(len);
    EXPECT_EQ(got_end, want_end) << bins;
    EXPECT_EQ(got_bin, want_bin) << bins;
  }
}

TEST(HpIndex, DigitsCoverTheRange) {
  EXPECT_EQ(bits_for_range(1), 0u);
  EXPECT_EQ(bits_for_range(2), 1u);
  EXPECT_EQ(bits_for_range(256), 8u);
  EXPECT_EQ(bits_for_range(257), 9u);
  EXPECT_EQ(bits_for_range(std::uint64_t{1} << 32), 32u);
  EXPECT_EQ(digit_of(0xabcdu, 8, 8), 0xabu);
  EXPECT_EQ(digit_of(0xabcdu, 0, 4), 0xdu);
}

TEST(HpIndex, AutoChoiceFollowsRangeAndDensity) {
  const AutoRule rule{56000, std::uint64_t{1} << 27, 4, 4};
  EXPECT_EQ(auto_choice(1, 1, rule), AutoChoice::smem);
  EXPECT_EQ(auto_choice(1 << 26, 1000, rule), AutoChoice::smem);
  EXPECT_EQ(auto_choice(1 << 24, (1 << 24) / 50, rule), AutoChoice::hybrid);      // delta 50, range 335K
  EXPECT_EQ(auto_choice(1 << 26, (1 << 26) / 50, rule), AutoChoice::hybrid);      // delta 50, range 1.3M
  EXPECT_EQ(auto_choice(1 << 24, (1 << 24) / 10, rule), AutoChoice::hybrid);      // delta 10
  EXPECT_EQ(auto_choice(1ull << 30, (1ull << 30) / 4, rule), AutoChoice::global);  // range past the buckets
  EXPECT_EQ(auto_choice(1 << 24, (1 << 24) / 2, rule), AutoChoice::cub);          // delta 2
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, rule), AutoChoice::cub);                // delta 1
  // Payloads go to CUB where no pairs rule is given: the key-value scatter lost to it.
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, (1 << 26) / 50, true, true}, rule), AutoChoice::cub);
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, (1 << 26) / 50, true, false}, rule), AutoChoice::hybrid);
  EXPECT_EQ(auto_choice(1 << 21, 1 << 22, rule), AutoChoice::cub);                // delta 0.5
  // hp-tiled where its buckets cover the range and there are enough keys per bin and per value.
  AutoRule tiled = rule;
  tiled.tiled_max_range = std::uint64_t{1} << 25;
  tiled.tiled_keys_per_bin = 1;
  tiled.tiled_keys_per_value = 2;  // hp-auto's rule before 35ba4e7; it asks one now (`every` below)
  EXPECT_EQ(auto_choice(1 << 26, (1 << 26) / 50, tiled), AutoChoice::tiled);
  EXPECT_EQ(auto_choice(1 << 26, (1 << 26) / 2, tiled), AutoChoice::tiled);     // delta 2, len unknown
  EXPECT_EQ(auto_choice(1 << 26, 1 << 26, tiled), AutoChoice::cub);             // delta 1, len unknown
  EXPECT_EQ(auto_choice(1 << 26, (1 << 26) / 2, tiled, (1 << 26) / 2), AutoChoice::tiled);  // delta 2, sigma 1
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, tiled, 1 << 22), AutoChoice::tiled);  // delta 1, sigma 4
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, tiled, 1 << 24), AutoChoice::cub);    // delta = sigma = 1
  EXPECT_EQ(auto_choice(1 << 26, 1000, tiled), AutoChoice::smem);
  EXPECT_EQ(auto_choice(1ull << 28, (1ull << 28) / 4, tiled), AutoChoice::hybrid);  // range 2^26 past the tiles' buckets
  EXPECT_EQ(auto_choice(AutoInput{1 << 24, 1 << 24, true, false, 1 << 20}, tiled), AutoChoice::tiled);
  EXPECT_EQ(auto_choice(AutoInput{1 << 24, 1 << 24, true, true, 1 << 20}, tiled), AutoChoice::cub);  // payload
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, tiled), AutoChoice::cub);             // delta 1
  // One key a distinct value is enough (kAutoTiledKeysPerValue = 1): delta = sigma = 1 too.
  AutoRule every = tiled;
  every.tiled_keys_per_value = 1;
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, every, 1 << 24), AutoChoice::tiled);
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, every), AutoChoice::tiled);
  EXPECT_EQ(auto_choice(1 << 21, 1 << 22, every), AutoChoice::cub);  // delta 0.5
  // Past one band of 56,000 bins (hp-smem's 16-bit pairs), hp-tiled where many bins hold a
  // value (fewer than 8 bins a distinct value), hp-smem otherwise; within one band hp-smem.
  AutoRule bands = every;
  bands.shared_bins = 112000;
  bands.band_bins = 56000;
  bands.band_bins_per_value = 8;
  EXPECT_EQ(auto_choice(1 << 24, 1 << 16, bands, 1 << 16), AutoChoice::tiled);    // delta 256, sigma 1
  EXPECT_EQ(auto_choice(1 << 24, 1 << 16, bands, 1 << 14), AutoChoice::tiled);    // sigma 4
  EXPECT_EQ(auto_choice(1 << 24, 1 << 16, bands, 1 << 13), AutoChoice::smem);     // sigma 8
  EXPECT_EQ(auto_choice(1 << 24, 1 << 16, bands, 1 << 12), AutoChoice::smem);     // sigma 16
  EXPECT_EQ(auto_choice(1 << 24, 1 << 16, bands), AutoChoice::tiled);             // len unknown: all distinct
  EXPECT_EQ(auto_choice(1 << 24, 50000, bands, 50000), AutoChoice::smem);         // one band
  EXPECT_EQ(auto_choice(1 << 16, 100000, bands, 60000), AutoChoice::smem);        // under a key a bin: no tiled
  // With a payload, hp-tiled's key-value path only with many keys per bin, sigma >= 16 and a
  // range of 2^16..2^22 bins; CUB otherwise.
  AutoRule pairs = tiled;
  pairs.pairs_max_range = std::uint64_t{1} << 22;
  pairs.pairs_keys_per_bin = 16;
  pairs.pairs_bins_per_value = 16;
  pairs.pairs_min_range = std::uint64_t{1} << 16;
  const std::uint64_t n26 = 1 << 26;
  auto with_payload = [&](std::uint64_t n, std::uint64_t delta, std::uint64_t sigma) {
    return auto_choice(AutoInput{n, n / delta, true, true, n / delta / sigma}, pairs);
  };
  EXPECT_EQ(with_payload(n26, 50, 50), AutoChoice::tiled);
  EXPECT_EQ(with_payload(n26, 256, 1024), AutoChoice::tiled);
  EXPECT_EQ(with_payload(1 << 24, 16, 50), AutoChoice::tiled);
  EXPECT_EQ(with_payload(1 << 24, 64, 50) , AutoChoice::tiled);
  EXPECT_EQ(auto_choice(AutoInput{1 << 24, (1 << 18) - 5, true, true, 5000}, pairs), AutoChoice::tiled);  // a realized range just under 2^18
  EXPECT_EQ(with_payload(n26, 256, 4), AutoChoice::cub);       // sigma 4
  EXPECT_EQ(with_payload(n26, 16, 50), AutoChoice::tiled);       // range 2^22: 1,024 buckets
  EXPECT_EQ(with_payload(1 << 24, 256, 50), AutoChoice::tiled);  // range 2^16: 16 buckets
  EXPECT_EQ(with_payload(1ull << 28, 16, 50), AutoChoice::cub);  // range 2^24
  EXPECT_EQ(with_payload(1 << 20, 32, 50), AutoChoice::cub);     // range 2^15
  // The drawn keys of n = 2^24, delta = 256 span a little under 2^16 bins: CUB (16 % behind
  // hp-tiled in results/h200/pairs-grid.json; the least range is left where it was measured).
  EXPECT_EQ(auto_choice(AutoInput{1 << 24, (1 << 16) - 40, true, true, 1311}, pairs), AutoChoice::cub);
  EXPECT_EQ(with_payload(1 << 20, 4, 50), AutoChoice::cub);    // 4 keys per bin
  EXPECT_EQ(auto_choice(AutoInput{n26, n26 / 50, true, true, 0}, pairs), AutoChoice::cub);  // len unknown
  EXPECT_EQ(auto_choice(AutoInput{n26, n26 / 50, false, true, n26 / 2500}, pairs), AutoChoice::cub);  // floats
}

TEST(HpIndex, AutoChoiceSendsWhatHpCannotTakeToCub) {
  const AutoRule rule{56000, std::uint64_t{1} << 27, 4, 4};
  // 64-bit integer keys with a small range take the same variants as 32-bit ones.
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, (1 << 26) / 50, true}, rule), AutoChoice::hybrid);
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, 1000, true}, rule), AutoChoice::smem);
  // Floats, ranges past 32-bit offsets and n past 32-bit counters go to CUB.
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, 1000, false}, rule), AutoChoice::cub);
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, kMaxRange + 1, true}, rule), AutoChoice::cub);
  EXPECT_EQ(auto_choice(AutoInput{1 << 26, ~std::uint64_t{0}, true}, rule), AutoChoice::cub);
  EXPECT_EQ(auto_choice(AutoInput{kMaxRange - 1, 10, true}, rule), AutoChoice::smem);
  // 2^32 keys or more: hp-tiled (64-bit counts) where an H-P variant would be taken, CUB with a
  // payload or where CUB would be taken anyway.
  EXPECT_EQ(auto_choice(AutoInput{kMaxRange, 10, true}, rule), AutoChoice::tiled);
  EXPECT_EQ(auto_choice(AutoInput{kMaxRange, 10, true, true}, rule), AutoChoice::cub);
  EXPECT_EQ(auto_choice(AutoInput{kMaxRange, kMaxRange, true}, rule), AutoChoice::cub);  // delta 1
  EXPECT_EQ(auto_choice(AutoInput{kMaxRange, 10, false}, rule), AutoChoice::cub);
}

TEST(HpIndex, AutoChoiceTakesTwoLevelsFromEnoughKeysABin) {
  AutoRule rule{112000, std::uint64_t{1} << 27, 4, 4};
  rule.tiled_max_range = kMaxRange;
  rule.split_min_range = std::uint64_t{1} << 24;
  rule.split_keys_per_bin = 2;
  const std::uint64_t n31 = std::uint64_t{1} << 31;
  EXPECT_EQ(auto_choice(n31, n31 / 50, rule), AutoChoice::tiled);             // range 43M, two levels
  EXPECT_EQ(auto_choice(n31 / 2, n31 / 8, rule), AutoChoice::tiled);          // delta 4
  EXPECT_EQ(auto_choice(n31, n31 / 2, rule), AutoChoice::tiled);              // delta 2
  EXPECT_EQ(auto_choice(n31, n31 / 2 + 1, rule), AutoChoice::cub);            // under 2 keys a bin
  EXPECT_EQ(auto_choice(1 << 24, 1 << 24, rule, 1 << 22), AutoChoice::tiled);  // one level: a key a bin is enough
  EXPECT_EQ(auto_choice(AutoInput{4 * n31, 4 * n31 / 50, true}, rule), AutoChoice::tiled);  // 2^33 keys
  // One key a bin: only where each distinct value has split_keys_per_value keys.
  const std::uint64_t n28 = std::uint64_t{1} << 28;
  EXPECT_EQ(auto_choice(n28, n28, rule, n28 / 50), AutoChoice::cub);  // no per-value rule given
  rule.split_keys_per_value = 16;
  EXPECT_EQ(auto_choice(n28, n28, rule, n28 / 50), AutoChoice::tiled);      // delta 1, sigma 50
  EXPECT_EQ(auto_choice(n28, n28, rule, n28 / 16), AutoChoice::tiled);      // sigma 16
  EXPECT_EQ(auto_choice(n28, n28, rule, n28 / 4), AutoChoice::cub);         // sigma 4
  EXPECT_EQ(auto_choice(n28, n28, rule), AutoChoice::cub);                  // len unknown: all distinct
  EXPECT_EQ(auto_choice(n28, 2 * n28, rule, n28 / 64), AutoChoice::cub);    // delta 0.5
}

TEST(HpIndex, AutoChoiceTakesTheBufferedHybridWhereTwoLevelsWouldRun) {
  AutoRule rule{112000, std::uint64_t{1} << 27, 4, 4};
  rule.tiled_max_range = kMaxRange;
  rule.split_min_range = std::uint64_t{1} << 24;
  rule.split_keys_per_bin = 2;
  // Two blocks of an H200's 228 KiB an SM: 1,522 buckets, of 2^16 bins at the widest.
  rule.hybrid_buffered_max_range = ((233472 / 2 - 1024) / scatter_shared_bytes(1)) << 16;
  EXPECT_EQ(rule.hybrid_buffered_max_range, std::uint64_t{1522} << 16);
  const std::uint64_t n31 = std::uint64_t{1} << 31, n29 = std::uint64_t{1} << 29, n30 = n29 * 2;
  EXPECT_EQ(auto_choice(n31, n31 / 50, rule), AutoChoice::hybrid);     // range 43M: 1,311 buckets of 2^15
  EXPECT_EQ(auto_choice(n29, n29 / 24, rule), AutoChoice::hybrid);     // range 22M: 683 buckets
  EXPECT_EQ(auto_choice(n29, n29 / 6, rule), AutoChoice::hybrid);      // range 89M: 1,366 buckets of 2^16
  EXPECT_EQ(auto_choice(n30, n30 / 16, rule), AutoChoice::hybrid);     // 67M: 1,024 of 2^16
  EXPECT_EQ(auto_choice(n31, n31 / 2, rule), AutoChoice::tiled);       // 2 keys a bin: under the hybrid's 4
  EXPECT_EQ(auto_choice(n31, n31 / 20, rule), AutoChoice::tiled);      // 107M: 1,639 of 2^16, one block an SM
  EXPECT_EQ(auto_choice(1 << 28, (1 << 28) / 16, rule), AutoChoice::tiled);  // 2^24: one level
  EXPECT_EQ(auto_choice(AutoInput{4 * n31, 4 * n31 / 50, true}, rule), AutoChoice::tiled);  // 2^33 keys: 64-bit counts
  // From 2^32 keys: 64-bit positions (84 bytes a bucket), buckets of 2^16 bins.
  rule.hybrid_buffered_max_range = ((233472 / 2 - 1024 - 4) / 84) << 16;
  EXPECT_EQ(rule.hybrid_buffered_max_range, std::uint64_t{1377} << 16);
  EXPECT_EQ(auto_choice(AutoInput{2 * n31, 2 * n31 / 50, true}, rule), AutoChoice::hybrid);  // 2^32: 1,311 buckets
  EXPECT_EQ(auto_choice(AutoInput{4 * n31, 4 * n31 / 50, true}, rule), AutoChoice::tiled);   // 2^33: 2,622
  EXPECT_EQ(auto_choice(AutoInput{2 * n31, 2 * n31 / 50, true, true}, rule), AutoChoice::cub);  // with a payload
  rule.hybrid_buffered_max_range = 0;  // a device without the room: two levels
  EXPECT_EQ(auto_choice(n31, n31 / 50, rule), AutoChoice::tiled);
}

TEST(HpIndex, SplitPlanCoversTheRangeInAtMostMaxSupers) {
  for (unsigned low_bits : {12u, 14u, 15u})
    for (std::uint64_t range : {std::uint64_t{1}, std::uint64_t{1} << 14, (std::uint64_t{1} << 20) + 1,
                                std::uint64_t{42949601}, std::uint64_t{1} << 28, (std::uint64_t{1} << 30) + 7,
                                kMaxRange})
      for (std::uint64_t max_supers : {4ull, 256ull}) {
        const SplitPlan plan = split_plan(range, low_bits, max_supers, 5);
        SCOPED_TRACE(::testing::Message() << "range " << range << " low " << low_bits << " max " << max_supers);
        EXPECT_EQ(plan.low_bits, low_bits);
        EXPECT_GE(plan.super_bits, low_bits + 5);
        EXPECT_LE(plan.super_bits, 31u);
        EXPECT_LE(plan.supers, max_supers);
        EXPECT_GE(plan.supers << plan.super_bits, range);  // every offset has a super-bucket
        EXPECT_LT((plan.supers - 1) << plan.super_bits, range);  // and none is empty by construction
        EXPECT_EQ(std::uint64_t{plan.fine_per_super} << low_bits, std::uint64_t{1} << plan.super_bits);
        // The padding's offset is fine bucket fine_per_super, past every key's.
        EXPECT_EQ(bucket_of(split_pad(plan), low_bits), plan.fine_per_super);
        for (std::uint64_t off : {std::uint64_t{0}, range / 3, range - 1}) {
          const auto o = static_cast<std::uint32_t>(off);
          const std::uint32_t s = super_of(o, plan), in = offset_in_super(o, plan);
          EXPECT_LT(s, plan.supers);
          EXPECT_LT(bucket_of(in, low_bits), plan.fine_per_super);
          EXPECT_EQ(split_bucket_first(plan, s, bucket_of(in, low_bits)) + bin_in_bucket(in, low_bits), off);
        }
      }
  // The smallest plan past one level at n = 2^31, delta = 50: 82 super-buckets of 32 buckets.
  const SplitPlan big = split_plan(42949601, 14, 256, 5);
  EXPECT_EQ(big.supers, 82u);
  EXPECT_EQ(big.fine_per_super, 32u);
  EXPECT_EQ(split_plan(kMaxRange, 14, 256, 5).supers, 256u);
  // The levels share the buckets' bits: 2,622 buckets (12 bits) give 6 and 6.
  EXPECT_EQ(balanced_fine_bits(42949601, 14, 5), 6u);
  EXPECT_EQ(split_plan(42949601, 14, 256, 6).supers, 41u);
  EXPECT_EQ(balanced_fine_bits(std::uint64_t{1} << 28, 14, 5), 7u);  // 2^30, delta 4: 128 x 128
  EXPECT_EQ(balanced_fine_bits(std::uint64_t{1} << 25, 14, 5), 6u);  // 2,048 buckets
  EXPECT_EQ(balanced_fine_bits(std::uint64_t{1} << 20, 14, 5), 5u);  // the floor
  EXPECT_EQ(split_plan(kMaxRange, 14, 256, balanced_fine_bits(kMaxRange, 14, 5)).supers, 256u);
  EXPECT_EQ(split_tiles_bound(8192 * 3 + 1, 5, 8192), 4u + 5u);
  EXPECT_EQ(padded_tiles(0, 8192), 0u);
  EXPECT_EQ(padded_tiles(8193, 8192), 2u);
}

TEST(HpIndex, WordOffsetsOf64BitKeys) {
  using u64 = std::uint64_t;
  // u64 keys in a small window just below 2^64.
  const u64 top = ~u64{0};
  EXPECT_EQ(word_offset<u64>(top, top - 99), 99u);
  EXPECT_EQ(word_at<u64>(99, top - 99), top);
  EXPECT_EQ(range_of_ordered(top - 99, top), 100u);
  // A range of exactly 2^32 has offsets 0 .. 2^32 - 1.
  EXPECT_EQ(word_offset<u64>(u64{1} << 40, (u64{1} << 40) - 0xffffffffu), 0xffffffffu);
  EXPECT_EQ(range_of_ordered(5, 5 + 0xffffffffull), kMaxRange);
  // The full 64-bit range saturates instead of wrapping to 0.
  EXPECT_EQ(range_of_ordered(0, top), top);
  // i64 keys from -2^63: words are the raw bits, offsets wrap through the sign.
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  const u64 lo_ordered = KeyTraits<std::int64_t>::ordered(lo);
  EXPECT_EQ(lo_ordered, 0u);
  const u64 min_word = min_word_of<std::int64_t>(lo_ordered);
  EXPECT_EQ(min_word, u64{1} << 63);
  EXPECT_EQ(word_offset<u64>(static_cast<u64>(lo + 7), min_word), 7u);
  EXPECT_EQ(static_cast<std::int64_t>(word_at<u64>(7, min_word)), lo + 7);
  // An i64 window around zero: -3 .. 3.
  const u64 m3 = min_word_of<std::int64_t>(KeyTraits<std::int64_t>::ordered(-3));
  EXPECT_EQ(word_offset<u64>(static_cast<u64>(std::int64_t{3}), m3), 6u);
  EXPECT_EQ(static_cast<std::int64_t>(word_at<u64>(1, m3)), -2);
  // 32-bit keys keep their word form: i32 min -2^31.
  EXPECT_EQ(min_word_of<std::int32_t>(0), 0x80000000u);
  EXPECT_EQ(min_word_of<std::uint32_t>(12), 12u);
}

// The key-value scatter against std::stable_sort on the ordered form, for one key type K
// (keys from base, a window of `range` values) and value type V.
template <typename K, typename V>
void check_scatter_pairs(K base, std::uint64_t range, std::uint64_t n) {
  using W = typename KeyTraits<K>::Ordered;
  std::mt19937_64 rng(n + range);
  std::vector<K> keys(n);
  std::vector<V> vals(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    keys[i] = static_cast<K>(static_cast<W>(static_cast<W>(base) + rng() % range));
    vals[i] = static_cast<V>(i * 0x9e3779b97f4a7c15ull);
  }
  W min_ordered = KeyTraits<K>::ordered(keys[0]);
  for (K k : keys) min_ordered = std::min(min_ordered, KeyTraits<K>::ordered(k));
  const W min_word = min_word_of<K>(min_ordered);
  std::vector<W> key_words(n), out_keys(n);
  std::vector<V> out_vals(n);
  for (std::uint64_t i = 0; i < n; ++i) key_words[i] = static_cast<W>(keys[i]);
  scatter_pairs_cpu<W, V>(key_words.data(), vals.data(), n, min_word, range, out_keys.data(), out_vals.data());
  std::vector<std::uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  for (std::uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(static_cast<K>(out_keys[i]), keys[order[i]]) << i;
    ASSERT_EQ(out_vals[i], vals[order[i]]) << i;
  }
}

template <typename V>
void check_scatter_pairs_all_keys() {
  check_scatter_pairs<std::uint32_t, V>(0xffffff00u, 200, 3000);  // near 2^32 (no wrap: 0xffffff00 + 199)
  check_scatter_pairs<std::int32_t, V>(std::numeric_limits<std::int32_t>::min(), 77, 3000);
  check_scatter_pairs<std::int32_t, V>(-40, 80, 3000);  // across zero
  check_scatter_pairs<std::uint64_t, V>(~std::uint64_t{0} - 999, 1000, 5000);  // a window ending at 2^64 - 1
  check_scatter_pairs<std::int64_t, V>(std::numeric_limits<std::int64_t>::min(), 300, 5000);
  check_scatter_pairs<std::int64_t, V>(-5, 10, 1000);
  check_scatter_pairs<std::uint64_t, V>(std::uint64_t{1} << 40, 1, 500);  // one key repeated
}

TEST(HpPairs, ScatterMatchesStableSortForEveryKeyAndValueWidth) {
  check_scatter_pairs_all_keys<std::uint32_t>();
  check_scatter_pairs_all_keys<std::uint64_t>();
}

const Algorithm& algo(const char* name) {
  static const Registry r = [] {
    Registry reg;
    register_hp(reg);
    return reg;
  }();
  const Algorithm* a = r.find(name);
  if (!a) throw std::runtime_error(std::string("not registered: ") + name);
  return *a;
}

std::vector<InputSpec> cpu_specs() {
  std::vector<InputSpec> specs;
  for (std::uint64_t n : {1ull, 2ull, 3ull, 31ull, 1000ull, 65537ull})
    for (KeyType k : {KeyType::u32, KeyType::i32}) {
      const std::optional<std::int64_t> min =
          k == KeyType::i32 ? std::optional<std::int64_t>(-static_cast<std::int64_t>(3 * n) - 7) : std::nullopt;
      for (double delta : {0.01, 0.25, 1.0, 10.0, 50.0}) {
        specs.push_back(make_spec(n, Distribution::uniform, k, Payload::none, delta, std::nullopt, min));
        specs.push_back(make_spec(n, Distribution::uniform, k, Payload::none, delta, std::uint64_t{1}, min));
      }
      specs.push_back(make_spec(n, Distribution::distinct, k, Payload::none, std::nullopt, std::nullopt, min));
      specs.push_back(make_spec(n, Distribution::distinct, k, Payload::none, 0.25, std::nullopt, min));
      specs.push_back(make_spec(n, Distribution::zipf, k, Payload::none, 2.0, std::nullopt, min));
      specs.push_back(make_spec(n, Distribution::reverse, k, Payload::none, 4.0, std::nullopt, min));
    }
  InputRequest top;  // keys at the top of the i32 range
  top.n = 5000;
  top.key = KeyType::i32;
  top.max_val = std::int64_t{1} << 31;
  top.min_val = (std::int64_t{1} << 31) - 100000;
  specs.push_back(derive_input_spec(top));
  return specs;
}

class HpCpu : public testing::TestWithParam<InputSpec> {};

TEST_P(HpCpu, MatchesStdSort) {
  const InputSpec spec = GetParam();
  const Reference ref = make_reference(spec);
  for (const char* name : {"cpu-hp", "cpu-hp-1", "cpu-hp-0c"}) {
    const Algorithm& a = algo(name);
    const Outcome out = run_host_once(a, spec);
    const bool distinct = spec.dist == Distribution::distinct || spec.n == 1;
    if (std::string(name) == "cpu-hp-1" && !distinct) {
      // Duplicates are likely but not certain; when present the algorithm must decline.
      if (out.unsupported) EXPECT_EQ(*out.unsupported, "needs distinct keys");
      else expect_matches_reference(a, spec, ref, out);
      continue;
    }
    ASSERT_FALSE(out.unsupported) << name << ": " << *out.unsupported << " on " << describe(spec);
    expect_matches_reference(a, spec, ref, out);
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, HpCpu, testing::ValuesIn(cpu_specs()));

TEST(HpCpuLimits, OneHpDeclinesDuplicates) {
  const Outcome out = run_host_once(algo("cpu-hp-1"), make_spec(1000, Distribution::equal));
  ASSERT_TRUE(out.unsupported);
  EXPECT_EQ(*out.unsupported, "needs distinct keys");
}

TEST(HpCpuLimits, RangeTooLargeForHostArraysIsDeclined) {
  InputRequest r;
  r.n = 1000;
  r.min_val = 0;
  r.max_val = std::int64_t{1} << 32;
  r.len = 1000;
  const InputSpec spec = derive_input_spec(r);
  const Outcome out = run_host_once(algo("cpu-hp"), spec);
  // The realized range of 1000 random values over 2^32 exceeds 2^28 bins (a miss is about 2^-900 likely).
  ASSERT_TRUE(out.unsupported);
  EXPECT_NE(out.unsupported->find("range"), std::string::npos);
}

}  // namespace
}  // namespace sb::test
