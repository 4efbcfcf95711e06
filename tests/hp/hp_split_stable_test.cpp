// hp-split-stable (issue 40; docs/hp.md, "Stable key-value H-P"): its index arithmetic, the
// peer-mask ranking one warp step at a time with the lanes' atomics and stores in random orders,
// and a sequential model of the whole path (counts by part, the stable partition by bucket, the
// chunks' counts, the bins' prefix sums and cursors, the batches placed by ordinal or in two
// digit passes) with tiny blocks, tiles and buckets, checked against std::stable_sort at tile,
// part, chunk and bucket edges. The model calls the same hp_index.hpp functions as the kernels
// (hp_split_stable_kernels.cuh). hp-auto's choice with a payload stays hp-tiled's
// (hp_cpu_test.cpp): measured, hp-split-stable lost to CUB at the bar (docs/hp.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "../../kernels/hp/hp_split_index.hpp"

namespace sb::hp {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
constexpr u32 kNone = ~0u;

// One warp's rows (a mask and a count a digit, and the sink's) and one step of rank_by_peers:
// the ORs, then (warp barrier) the reads, then (barrier) the leaders' count stores and clears,
// each phase in a random lane order; the last barrier keeps the next step's ORs after the
// clears. Every lane has a digit (the sink where it has no item).
struct Rows {
  std::vector<u32> mask, count;
};
void peer_step(const std::array<u32, 32>& digit, Rows& rows, std::array<u32, 32>& rank, std::mt19937& rng) {
  std::array<u32, 32> order;
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  for (u32 lane : order) rows.mask[digit[lane]] |= 1u << lane;
  std::array<u32, 32> peers{}, before{};
  std::shuffle(order.begin(), order.end(), rng);
  for (u32 lane : order) peers[lane] = rows.mask[digit[lane]], before[lane] = rows.count[digit[lane]];
  std::shuffle(order.begin(), order.end(), rng);
  for (u32 lane : order)
    if (peer_rank(peers[lane], lane) == 0) {  // the leader: every lane is a peer of its own digit
      EXPECT_TRUE(peer_leader(peers[lane], lane));
      rows.count[digit[lane]] = peer_count_after(before[lane], peers[lane]);
      rows.mask[digit[lane]] = 0;
    }
  for (u32 lane = 0; lane < 32; ++lane) rank[lane] = before[lane] + peer_rank(peers[lane], lane);
}

// A block of `warps` warps ranks digit[i] (i < digit.size() <= warps * 32 * items; the rest
// take the sink, digit `digits`) in input order as the kernels do: warp-major items, each
// warp's steps, then the scan of the counts digit by digit and warp by warp, the sink left out
// (scan_peer_counts). Returns each item's slot; first[d] gets each digit's first slot.
std::vector<u32> block_rank(const std::vector<u32>& digit, u32 digits, u32 warps, u32 items, std::mt19937& rng,
                            std::vector<u32>& first) {
  std::vector<Rows> rows(warps, Rows{std::vector<u32>(digits + 1, 0), std::vector<u32>(digits + 1, 0)});
  std::vector<u32> rank(digit.size());
  for (u32 step = 0; step < items; ++step)
    for (u32 w = 0; w < warps; ++w) {  // the warps' steps interleave in any order; one per warp here
      std::array<u32, 32> d, r;
      for (u32 lane = 0; lane < 32; ++lane) {
        const u32 i = warp_major_item(w, step, lane, items);
        d[lane] = i < digit.size() ? digit[i] : digits;
      }
      peer_step(d, rows[w], r, rng);
      for (u32 lane = 0; lane < 32; ++lane) {
        const u32 i = warp_major_item(w, step, lane, items);
        if (i < digit.size()) rank[i] = r[lane];
      }
    }
  for (const Rows& r : rows)
    for (u32 m : r.mask) EXPECT_EQ(m, 0u) << "a mask left set between steps";
  std::vector<u32> prefix(u64{warps} * digits);
  first.assign(digits, 0);
  u32 sum = 0;
  for (u32 d = 0; d < digits; ++d) {
    first[d] = sum;
    for (u32 w = 0; w < warps; ++w) prefix[warp_counter(d, w, digits)] = sum, sum += rows[w].count[d];
  }
  std::vector<u32> slot(digit.size());
  for (u32 i = 0; i < digit.size(); ++i) {
    const u32 w = i / (32 * items);
    slot[i] = prefix[warp_counter(digit[i], w, digits)] + rank[i];
  }
  return slot;
}

struct Shape {
  u32 warps = 2, items = 2;  // a tile or batch of warps * 32 * items
  unsigned low_bits = 7;     // at least log2(warps * 32): a thread numbers bins / threads present bins
  u64 parts = 3, groups = 2;
};

// hp-split-stable's path over (offset, value) pairs of a range of `range` bins.
std::vector<std::pair<u32, u32>> model_sort(const std::vector<u32>& off, const std::vector<u32>& val, u64 range,
                                            const Shape& m, std::mt19937& rng) {
  const u64 n = off.size();
  const u32 tile = m.warps * 32 * m.items, threads = m.warps * 32, bins = 1u << m.low_bits;
  const u32 buckets = static_cast<u32>(buckets_for(range, m.low_bits));
  // 1. each part's keys by bucket, bucket-major; one exclusive scan: the partition's offsets.
  std::vector<u32> offsets(u64{buckets} * m.parts, 0);
  for (u64 p = 0; p < m.parts; ++p) {
    u64 lo, hi;
    part_bounds(n, m.parts, p, 4, lo, hi);
    for (u64 i = lo; i < hi; ++i) ++offsets[bucket_of(off[i], m.low_bits) * m.parts + p];
  }
  u32 sum = 0;
  for (u32& c : offsets) std::swap(c, sum), sum += c;
  // 2. each part's tiles in order, ranked by bucket, their runs to the buckets' next positions.
  std::vector<u32> low(n), pval(n);
  for (u64 p = 0; p < m.parts; ++p) {
    std::vector<u32> dst(buckets);
    for (u32 b = 0; b < buckets; ++b) dst[b] = offsets[b * m.parts + p];
    u64 lo, hi;
    part_bounds(n, m.parts, p, 4, lo, hi);
    for (u64 t0 = lo; t0 < hi; t0 += tile) {
      const u32 len = static_cast<u32>(std::min<u64>(tile, hi - t0));
      std::vector<u32> digit(len), first;
      for (u32 i = 0; i < len; ++i) digit[i] = bucket_of(split_part_offset(split_part_item(off[t0 + i], 5)), m.low_bits);
      const std::vector<u32> slot = block_rank(digit, buckets, m.warps, m.items, rng, first);
      std::vector<u32> g_low(len), g_val(len), g_bucket(len);
      for (u32 i = 0; i < len; ++i)
        g_low[slot[i]] = bin_in_bucket(off[t0 + i], m.low_bits), g_val[slot[i]] = val[t0 + i], g_bucket[slot[i]] = digit[i];
      for (u32 s = 0; s < len; ++s) {
        const u32 b = g_bucket[s], at = dst[b] + (s - first[b]);
        low[at] = g_low[s], pval[at] = g_val[s];
      }
      for (u32 b = 0; b < buckets; ++b) dst[b] += (b + 1 < buckets ? first[b + 1] : len) - first[b];
    }
  }
  auto bucket_lo = [&](u32 b) -> u64 { return offsets[b * m.parts]; };
  auto bucket_hi = [&](u32 b) -> u64 { return b + 1 < buckets ? offsets[(b + 1) * m.parts] : n; };
  // 3. each bucket's chunks counted by bin; 4. the totals' exclusive scan, each bin's first slot.
  std::vector<u32> H(m.groups * range, 0), start(range, 0);
  for (u32 b = 0; b < buckets; ++b)
    for (u64 g = 0; g < m.groups; ++g) {
      u64 lo, hi;
      bucket_chunk(bucket_lo(b), bucket_hi(b), m.groups, g, lo, hi);
      for (u64 i = lo; i < hi; ++i) ++H[g * range + (u64{b} << m.low_bits) + low[i]];
    }
  for (u64 x = 0; x < range; ++x)
    for (u64 g = 0; g < m.groups; ++g) start[x] += H[g * range + x];
  sum = 0;
  for (u32& c : start) std::swap(c, sum), sum += c;
  // Past kInlineCursorGroups the kernels read spread_cursors' group_cursors; the same numbers.
  std::vector<u32> spread = H;
  for (u64 x = 0; x < range; ++x) group_cursors(spread.data(), range, static_cast<u32>(m.groups), x, start[x]);
  // 5. each chunk, a batch at a time in input order, by ordinal or in two digit passes.
  std::vector<std::pair<u32, u32>> out(n, {kNone, kNone});
  for (u32 b = 0; b < buckets; ++b)
    for (u64 g = 0; g < m.groups; ++g) {
      u64 lo, hi;
      bucket_chunk(bucket_lo(b), bucket_hi(b), m.groups, g, lo, hi);
      if (lo >= hi) continue;
      const u64 first_bin = u64{b} << m.low_bits;
      std::vector<u32> cur(bins, 0), ord(bins, kNone);
      u32 present_bins = 0;
      for (u32 t = 0; t < threads; ++t) {  // thread t numbers the present bins of its run
        const u32 per = bins / threads;
        u32 present = 0;
        for (u32 q = 0; q < per; ++q) {
          const u64 x = first_bin + t * per + q;
          if (x < range && bin_present(start.data(), x, range, n)) present |= 1u << q;
        }
        for (u32 q = 0; q < per; ++q)
          if (present >> q & 1u) ord[t * per + q] = present_ordinal(present_bins, present, q);
        present_bins += static_cast<u32>(popcount32(present));
      }
      for (u32 x = 0; x < bins && first_bin + x < range; ++x) {
        cur[x] = spread[g * range + first_bin + x];
        EXPECT_EQ(cur[x], [&] {
          u32 c = start[first_bin + x];
          for (u64 before = 0; before < g; ++before) c += H[before * range + first_bin + x];
          return c;
        }()) << "the inline cursors and spread_cursors' disagree";
      }
      const unsigned passes = split_rank_passes(present_bins);
      for (u64 b0 = lo; b0 < hi; b0 += tile) {
        const u32 total = static_cast<u32>(std::min<u64>(tile, hi - b0));
        std::vector<u32> item(total), slot_bin(total), slot_elem(total), first;
        for (u32 j = 0; j < total; ++j) item[j] = split_item(low[b0 + j], j);
        for (unsigned pass = 0; pass < passes; ++pass) {
          const unsigned shift = split_pass_shift(m.low_bits, pass);
          const u32 digits = passes == 1 ? present_bins : 1u << split_pass_bits(m.low_bits, pass);
          std::vector<u32> digit(total);
          for (u32 j = 0; j < total; ++j) {
            const u32 bin = split_item_bin(item[j]);
            digit[j] = passes == 1 ? ord[bin] : bin >> shift & (digits - 1);
          }
          const std::vector<u32> slot = block_rank(digit, digits, m.warps, m.items, rng, first);
          for (u32 j = 0; j < total; ++j)
            slot_bin[slot[j]] = split_item_bin(item[j]), slot_elem[slot[j]] = split_item_elem(item[j]);
          for (u32 j = 0; j < total; ++j) item[j] = split_item(slot_bin[j], slot_elem[j]);
        }
        // The slot order's runs of a bin take consecutive positions from its cursor.
        for (u32 s = 0; s < total; ++s) {
          const u32 bin = slot_bin[s];
          const u32 run_first = passes == 1 ? first[ord[bin]] : s;
          if (passes != 1 && s > 0 && slot_bin[s - 1] == bin) continue;
          u32 end = s;
          while (end < total && slot_bin[end] == bin) ++end;
          for (u32 k = run_first; k < end; ++k) {
            auto& o = out.at(cur[bin] + (k - run_first));
            EXPECT_EQ(o.first, kNone) << "a position placed twice";
            o = {static_cast<u32>(first_bin + bin), pval[b0 + slot_elem[k]]};
          }
          cur[bin] += end - run_first;
          s = end - 1;
        }
      }
    }
  return out;
}

std::vector<std::pair<u32, u32>> stable_reference(const std::vector<u32>& off, const std::vector<u32>& val) {
  std::vector<std::pair<u32, u32>> want(off.size());
  for (std::size_t i = 0; i < off.size(); ++i) want[i] = {off[i], val[i]};
  std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return want;
}

void check_model(const std::vector<u32>& off, u64 range, const Shape& m, std::mt19937& rng, const char* what) {
  std::vector<u32> val(off.size());
  std::iota(val.begin(), val.end(), 0u);  // an argsort: the values are the input positions
  SCOPED_TRACE(std::string(what) + ", n " + std::to_string(off.size()) + ", " + std::to_string(m.warps) +
               " warps of " + std::to_string(m.items) + " items, 2^" + std::to_string(m.low_bits) + " bins, " +
               std::to_string(m.parts) + " parts, " + std::to_string(m.groups) + " groups");
  EXPECT_TRUE(model_sort(off, val, range, m, rng) == stable_reference(off, val));
}

TEST(HpSplitStable, PeerMasksRankAWarpStepInLaneOrderInAnyAtomicOrder) {
  std::mt19937 rng(1);
  for (u32 digits : {1u, 2u, 7u, 256u})
    for (int trial = 0; trial < 200; ++trial) {
      Rows rows{std::vector<u32>(digits + 1, 0), std::vector<u32>(digits + 1, 0)};
      std::vector<u32> seen(digits + 1, 0);
      for (int step = 0; step < 4; ++step) {
        std::array<u32, 32> d, r;
        for (u32& x : d) x = rng() % 5 == 0 ? digits : rng() % digits;  // a fifth in the sink
        peer_step(d, rows, r, rng);
        for (u32 lane = 0; lane < 32; ++lane) EXPECT_EQ(r[lane], seen[d[lane]]++) << "lane " << lane;
        for (u32 mask : rows.mask) EXPECT_EQ(mask, 0u);
      }
      for (u32 x = 0; x <= digits; ++x) EXPECT_EQ(rows.count[x], seen[x]);
    }
}

TEST(HpSplitStable, IndexArithmetic) {
  EXPECT_EQ(split_stable_low_bits((1u << 26) / 50, 12, 14, kSplitRankDigits), 13u);  // the bar: 164 buckets
  EXPECT_EQ(split_stable_low_bits(1u << 20, 12, 14, kSplitRankDigits), 12u);
  EXPECT_EQ(split_stable_low_bits(1u << 22, 12, 14, kSplitRankDigits), 14u);
  EXPECT_EQ(split_stable_low_bits((1u << 22) + 1, 12, 14, kSplitRankDigits), 0u);
  EXPECT_EQ(split_stable_low_bits(1, 12, 14, kSplitRankDigits), 12u);
  EXPECT_EQ(split_rank_passes(kSplitRankDigits), 1u);
  EXPECT_EQ(split_rank_passes(kSplitRankDigits + 1), 2u);
  for (unsigned bits : {12u, 13u, 14u}) {
    EXPECT_LE(1u << split_pass_bits(bits, 0), kSplitRankDigits);
    EXPECT_LE(1u << split_pass_bits(bits, 1), kSplitRankDigits);
    EXPECT_EQ(split_pass_bits(bits, 0) + split_pass_bits(bits, 1), bits);
    EXPECT_EQ(split_pass_shift(bits, 1), split_pass_bits(bits, 0));
  }
  const u32 off = (255u << 14) | 16383u;  // the largest offset: bucket 255 of 2^14 bins
  EXPECT_EQ(split_part_offset(split_part_item(off, 511)), off);
  EXPECT_EQ(split_part_rank(split_part_item(off, 511)), 511u);
  EXPECT_EQ(split_item_bin(split_item(16383, 8191)), 16383u);
  EXPECT_EQ(split_item_elem(split_item(16383, 8191)), 8191u);
  // The chunks of a bucket cover it in order, each once.
  for (u64 groups : {1u, 3u, 8u, 9u}) {
    u64 next = 1000;
    for (u64 g = 0; g < groups; ++g) {
      u64 lo, hi;
      bucket_chunk(1000, 1017, groups, g, lo, hi);
      EXPECT_EQ(lo, next);
      next = hi;
    }
    EXPECT_EQ(next, 1017u);
  }
  const u32 start[] = {0, 0, 3, 3, 7};  // bins 0, 2 and 4 hold keys (n = 9)
  EXPECT_FALSE(bin_present(start, 0, 5, 9));
  EXPECT_TRUE(bin_present(start, 1, 5, 9));
  EXPECT_FALSE(bin_present(start, 2, 5, 9));
  EXPECT_TRUE(bin_present(start, 4, 5, 9));
  EXPECT_EQ(peer_rank(0b1011, 3), 2u);
  EXPECT_TRUE(peer_leader(0b1010, 1));
  EXPECT_FALSE(peer_leader(0b1010, 3));
  EXPECT_FALSE(peer_leader(0b1010, 0));  // not a peer
}

// The whole path against std::stable_sort: random keys with sigma spacing, one key repeated,
// keys at bucket edges, tile and part edges, several groups a bucket and more than
// kInlineCursorGroups of them, and buckets past kSplitRankDigits present bins (two passes).
TEST(HpSplitStable, ModelSortsStablyAtTileChunkAndBucketEdges) {
  std::mt19937 rng(7);
  Shape m;  // tiles of 128
  const u32 tile = m.warps * 32 * m.items;
  for (u64 n : {u64{0}, u64{1}, u64{tile - 1}, u64{tile}, u64{tile + 1}, u64{3 * tile + 5}, u64{4000}}) {
    std::vector<u32> off(n);
    for (u32& k : off) k = rng() % 40 * 13;  // sigma 13 over 4 buckets of 2^7 bins
    check_model(off, n ? *std::max_element(off.begin(), off.end()) + 1 : 1, m, rng, "sigma 13");
  }
  check_model(std::vector<u32>(3000, 0), 1, m, rng, "one key");
  {
    std::vector<u32> off(5000);  // each side of every bucket edge, and the range's two ends
    for (u32& k : off) {
      const u32 b = 1 + rng() % 6, side = rng() % 3;
      k = (b << m.low_bits) - 1 + side;
    }
    off[17] = 0;
    check_model(off, (7u << m.low_bits) + 2, m, rng, "bucket edges");
  }
  for (u64 groups : {u64{1}, u64{5}, u64{9}, u64{12}}) {
    Shape g = m;
    g.groups = groups;
    g.parts = 4;
    std::vector<u32> off(6000);
    for (u32& k : off) k = rng() % 500;
    check_model(off, 500, g, rng, "groups");
  }
  {
    Shape wide = m;  // a 2^9-bin bucket with more than 256 present bins: two digit passes
    wide.low_bits = 9;
    wide.items = 3;
    std::vector<u32> off(20000);
    for (u32& k : off) k = rng() % 1500;
    check_model(off, 1500, wide, rng, "dense, two passes");
    for (u32& k : off) {  // 257 present bins in one bucket: two passes
      const u32 r = rng() % 257;
      k = r == 256 ? 1 : 2 * r;
    }
    off[3] = 1;
    check_model(off, 511, wide, rng, "257 present bins");
    for (u32& k : off) k = rng() % 256 * 2;  // 256: one pass over ordinals
    check_model(off, 511, wide, rng, "256 present bins");
  }
  {
    Shape four = m;  // four warps, one item each: more warps than steps
    four.warps = 4;
    four.items = 1;
    four.parts = 1;
    std::vector<u32> off(1000);
    for (u32& k : off) k = rng() % 3 * 100;
    check_model(off, 201, four, rng, "four warps");
  }
}

// hp-auto with a payload: hp-split-stable where its bytes beat CUB's (hp_fast_rule.cpp: past 16
// bits, 16 keys a bin and 16 bins a distinct value, within its own range limit), CUB otherwise;
// both stable. hp-tiled (not stable) is no longer its choice with a payload.
}  // namespace
}  // namespace sb::hp
