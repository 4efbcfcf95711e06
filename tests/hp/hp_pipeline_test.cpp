// A sequential model of the fast GPU pipeline (kernels/hp/hp_fast_kernels.cuh, hp_stable.cu)
// built from the same hp_index.hpp functions the kernels call: bucket split by parts,
// per-slice bucket histograms, the packed binarize/scan/compress, and the tiled expansion;
// and the stable digit passes. Checked against std::sort / std::stable_sort, with small
// bucket and tile sizes so that every edge (empty buckets, slices crossing buckets, runs
// longer than a tile) occurs.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "../../kernels/hp/hp_index.hpp"
#include "../../kernels/hp/hp_scatter_index.hpp"

namespace sb::hp {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

struct Shape {
  unsigned low_bits;
  u64 parts, slices, tile, split_tile;
  u32 chunk = 0;  // the buffered scatter's chunk (bucket_scatter_buffered); 0: the grouped scatter
  u32 pair_step = 0;  // bucket_hist in 16-bit pairs, steps of this many keys (<= kPairStep); 0: 32-bit
};

// bucket_hist<..., Pairs> over one bucket's span: 16-bit pairs filled a step at a time (no half
// may wrap: checked), every half at kPairSpillAt or more moved into A between steps
// (pair_step_spill), the halves left added at the end.
void pair_step_hist(const std::vector<std::uint16_t>& low, u64 lo, u64 end, u32 step, u64 base, u64 bins,
                    std::vector<u32>& A) {
  std::vector<u32> words(ceil_div(bins, 2), 0);
  for (u64 s0 = lo; s0 < end; s0 += step) {
    const u64 s1 = std::min<u64>(s0 + step, end);
    for (u64 i = s0; i < s1; ++i) {
      u32& w = words[pair_word(low[i])];
      ASSERT_LT(pair_count(w, low[i]), 0xffffu) << "a half wraps at key " << i;
      w += pair_add(low[i], 1);
    }
    if (s1 == end) break;
    for (u64 w = 0; w < words.size(); ++w) {
      const PairSpill spill = pair_step_spill(words[w]);
      if (spill.even_out) A.at(base + 2 * w) += spill.even;
      if (spill.odd_out) A.at(base + 2 * w + 1) += spill.odd;
      words[w] = spill.kept;
    }
  }
  for (u64 w = 0; w < words.size(); ++w)
    for (u32 bin : {u32(2 * w), u32(2 * w + 1)})
      if (const u32 c = pair_count(words[w], bin)) A.at(base + bin) += c;
}

// expand_runs over one tile: the window's runs [first, first + count) staged as tile-relative
// ends; a thread's positions grow by `stride`, found by a search in big windows and by walking
// on in small ones; value_of(j): the value of the window's run j.
template <typename ValueOf>
void expand_tile(const std::vector<u32>& run_end, u64 first, u64 count, u64 t0, u64 t1, ValueOf value_of, u32* y) {
  const u64 stride = 12, walk_max = 3;
  std::vector<u32> w_end(count);
  for (u64 k = 0; k < count; ++k) w_end[k] = u32(run_end[first + k] - t0);
  const u32 tile_len = u32(t1 - t0), c = u32(count);
  for (u32 lane = 0; lane < stride; lane += 4) {
    u32 j = 0;
    for (u32 pos = lane; pos < tile_len; pos += stride) {
      if (c > walk_max) j = run_at(w_end.data(), 0u, c, pos);
      for (u32 q = 0; q < 4 && pos + q < tile_len; ++q) {
        while (j + 1 < c && w_end[j] <= pos + q) ++j;
        y[t0 + pos + q] = value_of(j);
      }
    }
  }
}

// bucket_scatter_buffered: each part in tiles; a key takes the next slot of its bucket (in a
// warp's order: here the tile's keys by odd positions, then even), goes to its bucket's buffer
// of two chunks or straight to the tail; after each tile up to two whole chunks leave from the
// front; at the part's end the buffers go to the positions left. Every position is written once.
// Positions P (u64 from 2^32 keys) count from `base`: low[i] is position base + i.
template <typename P>
void buffered_scatter_model(const std::vector<u32>& x, u32 min_word, const std::vector<P>& offsets, u64 buckets,
                            const Shape& s, std::vector<std::uint16_t>& low, P base = 0) {
  const u64 n = x.size();
  const u32 chunk = s.chunk;
  std::vector<int> writes(n, 0);
  auto put = [&](P pos, u32 bin) {
    ASSERT_GE(pos, base);
    ASSERT_LT(pos - base, n);
    ++writes[pos - base];
    low[pos - base] = static_cast<std::uint16_t>(bin);
  };
  auto region_end = [&](u64 i) -> P { return i + 1 < offsets.size() ? offsets[i + 1] : P(base + n); };
  for (u64 p = 0; p < s.parts; ++p) {
    std::vector<ScatterRegion<P>> r(buckets);
    std::vector<std::vector<u32>> buffer(buckets, std::vector<u32>(2 * chunk));
    for (u64 b = 0; b < buckets; ++b) r[b] = scatter_region(offsets[b * s.parts + p], region_end(b * s.parts + p), chunk);
    u64 lo, hi;
    part_bounds(n, s.parts, p, 4, lo, hi);
    for (u64 t0 = lo; t0 < hi; t0 += s.split_tile) {
      const u64 t1 = std::min(t0 + s.split_tile, hi);
      std::vector<u32> slots(buckets);
      for (u64 b = 0; b < buckets; ++b) slots[b] = r[b].fill;
      for (u64 parity : {1u, 0u})
        for (u64 i = t0 + parity; i < t1; i += 2) {
          const u32 off = key_offset(x[i], min_word);
          const u32 b = bucket_of(off, s.low_bits), bin = bin_in_bucket(off, s.low_bits);
          const u32 slot = slots[b]++;
          if (scatter_buffered(slot, chunk)) buffer[b][slot] = bin;
          else put(scatter_direct_position(r[b].tail, slot, chunk), bin);
        }
      for (u64 b = 0; b < buckets; ++b) {
        scatter_settle(r[b], slots[b], chunk);
        for (int k = 0; k < 2 && scatter_chunk_ready(r[b], chunk); ++k) {
          ASSERT_EQ(r[b].front % chunk, 0u);
          for (u32 j = 0; j < chunk; ++j) put(r[b].front + j, buffer[b][j]);
          std::copy(buffer[b].begin() + chunk, buffer[b].end(), buffer[b].begin());
          scatter_chunk_left(r[b], chunk);
        }
      }
    }
    for (u64 b = 0; b < buckets; ++b) {
      const P start = offsets[b * s.parts + p], end = region_end(b * s.parts + p);
      for (u32 j = 0; j < r[b].fill; ++j) put(scatter_final_position(r[b], start, end, j, chunk), buffer[b][j]);
    }
  }
  for (u64 i = 0; i < n; ++i) ASSERT_EQ(writes[i], 1) << "position " << i;
}

// bucket_count + exclusive scan: each (bucket, part)'s first position, bucket-major.
std::vector<u32> bucket_part_offsets(const std::vector<u32>& x, u32 min_word, u64 buckets, const Shape& s) {
  std::vector<u32> offsets(buckets * s.parts, 0);
  for (u64 p = 0; p < s.parts; ++p) {
    u64 lo, hi;
    part_bounds(x.size(), s.parts, p, 4, lo, hi);
    for (u64 i = lo; i < hi; ++i) ++offsets[bucket_of(key_offset(x[i], min_word), s.low_bits) * s.parts + p];
  }
  u32 sum = 0;
  for (u32& o : offsets) sum += std::exchange(o, sum);
  return offsets;
}

using BinRanges = std::vector<std::pair<u64, u64>>;

// order: bin ranges whose buckets bucket_hist counts in turn (hp::BinOrder, count_buckets_of);
// null: all buckets in one launch. After each range, its bins must already hold their final
// counts (dist-hp sends them then).
std::vector<u32> hybrid_model(const std::vector<u32>& x, u32 min_word, u64 range, const Shape& s,
                              const BinRanges* order = nullptr) {
  const u64 n = x.size();
  const u64 buckets = buckets_for(range, s.low_bits);
  const std::vector<u32> offsets = bucket_part_offsets(x, min_word, buckets, s);
  std::vector<std::uint16_t> low(n);
  if (s.chunk) {
    buffered_scatter_model(x, min_word, offsets, buckets, s, low);
  } else {
    // bucket_scatter: each part in tiles; a tile is grouped by bucket (ranks within a bucket
    // in any order: here reversed), then each grouped position i goes to next[b] + i - start[b]
    std::vector<u32> next = offsets;
    for (u64 p = 0; p < s.parts; ++p) {
      u64 lo, hi;
      part_bounds(n, s.parts, p, 4, lo, hi);
      for (u64 t0 = lo; t0 < hi; t0 += s.split_tile) {
        const u64 t1 = std::min(t0 + s.split_tile, hi);
        std::vector<u32> count(buckets, 0), start(buckets, 0), grouped(t1 - t0);
        for (u64 i = t0; i < t1; ++i) ++count[bucket_of(key_offset(x[i], min_word), s.low_bits)];
        for (u64 b = 1; b < buckets; ++b) start[b] = start[b - 1] + count[b - 1];
        std::vector<u32> rank(buckets, 0);
        for (u64 i = t1; i-- > t0;) {
          const u32 off = key_offset(x[i], min_word);
          const u32 b = bucket_of(off, s.low_bits);
          grouped[start[b] + rank[b]++] = off;
        }
        for (u64 i = 0; i < grouped.size(); ++i) {
          const u32 b = bucket_of(grouped[i], s.low_bits);
          low.at(next[b * s.parts + p] + (i - start[b])) = static_cast<std::uint16_t>(bin_in_bucket(grouped[i], s.low_bits));
        }
        for (u64 b = 0; b < buckets; ++b) next[b * s.parts + p] += count[b];
      }
    }
  }
  // bucket_hist: slices of the bucketed array, each crossing bucket edges as it must, each
  // bucket's span read as a scalar head, 8-value vectors and a scalar tail
  std::vector<u32> A(range, 0);
  auto start = [&](u32 b) -> u64 { return b < buckets ? offsets[u64{b} * s.parts] : n; };
  auto bucket_hist = [&](u32 first_bucket, u32 end_bucket) {
    const u64 first = start(first_bucket), keys = start(end_bucket) - first;
    for (u64 g = 0; g < s.slices; ++g) {
      u64 lo, hi;
      part_bounds(keys, s.slices, g, 8, lo, hi);
      lo += first;
      hi += first;
      for (u32 b = lo < n ? bucket_holding(start, u32(buckets), lo) : 0; lo < hi && b < buckets; ++b) {
        const u64 end = std::min<u64>(start(b + 1), hi);
        if (end <= lo) continue;
        if (s.pair_step) {
          pair_step_hist(low, lo, end, s.pair_step, u64{b} << s.low_bits, u64{1} << s.low_bits, A);
          lo = end;
          continue;
        }
        u64 mid_lo, mid_hi;
        aligned_span(lo, end, 8, mid_lo, mid_hi);
        for (u64 i = lo; i < mid_lo; ++i) ++A.at((u64{b} << s.low_bits) + low[i]);
        for (u64 v = mid_lo; v < mid_hi; v += 8)
          for (u64 i = v; i < v + 8; ++i) ++A.at((u64{b} << s.low_bits) + low[i]);
        for (u64 i = mid_hi; i < end; ++i) ++A.at((u64{b} << s.low_bits) + low[i]);
        lo = end;
      }
    }
  };
  if (!order) {
    bucket_hist(0, u32(buckets));
  } else {
    std::vector<u32> whole(range, 0);
    for (u32 v : x) ++whole[key_offset(v, min_word)];
    std::vector<bool> counted(buckets, false);
    for (const auto& [bin_lo, bin_hi] : *order) {
      count_buckets_of(bin_lo, bin_hi, s.low_bits, counted, bucket_hist);
      for (u64 i = bin_lo; i < bin_hi; ++i)
        EXPECT_EQ(A[i], whole[i]) << "bin " << i << " of [" << bin_lo << ", " << bin_hi << ")";
    }
    EXPECT_EQ(A, whole);
  }
  // fused scan: runs of the non-empty bins
  std::vector<u32> run_end, run_val;
  u64 scan = 0;
  u32 len = 0;
  for (u64 i = 0; i < range; ++i) {
    scan += pack_bin(A[i]);
    if (A[i]) {
      EXPECT_EQ(packed_nonzero(scan) - 1, run_end.size());
      run_end.push_back(packed_count(scan));
      run_val.push_back(min_word + u32(i));
    }
    if (i == range - 1) len = packed_nonzero(scan);
  }
  EXPECT_EQ(len, run_end.size());
  // expand_runs: tile windows of tile-relative run ends
  std::vector<u32> y(n);
  for (u64 t0 = 0; t0 < n; t0 += s.tile) {
    const u64 t1 = std::min(t0 + s.tile, n);
    u64 first, count;
    tile_runs(run_end.data(), len, t0, t1, kLocateWays, first, count);
    EXPECT_LE(count, t1 - t0);
    expand_tile(run_end, first, count, t0, t1, [&](u32 j) { return run_val[first + j]; }, y.data());
  }
  return y;
}

std::vector<u32> make_keys(u64 n, u32 min_word, u64 range, u64 len, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<u32> values(len);
  for (u32& v : values) v = min_word + u32(rng() % range);
  values[0] = min_word;  // realized min and max are the range's ends
  if (len > 1) values[1] = min_word + u32(range - 1);
  std::vector<u32> x(n);
  for (u64 i = 0; i < n; ++i) x[i] = values[i < len ? i : rng() % len];
  std::shuffle(x.begin(), x.end(), rng);
  return x;
}

TEST(HpPipelineModel, HybridMatchesStdSort) {
  const std::vector<Shape> shapes{{4, 3, 5, 16, 7},        {6, 7, 2, 64, 64},       {15, 1, 1, 4096, 4096},
                                  {3, 16, 9, 8, 1},        {4, 3, 5, 16, 7, 2},     {6, 7, 2, 64, 64, 4},
                                  {15, 1, 1, 4096, 4096, 16}, {3, 16, 9, 8, 8, 1}, {2, 5, 3, 16, 40, 4}};
  unsigned seed = 1;
  for (u64 n : {1ull, 2ull, 5ull, 100ull, 1001ull, 40000ull})
    for (u64 range : {1ull, 2ull, 17ull, 1000ull, 70000ull})
      for (u64 len : {1ull, 2ull, 50ull, 5000ull}) {
        if (len > range || (len > n && n > 1)) continue;
        if (n == 1 && range > 1) continue;
        for (u32 min_word : {0u, u32(-1000), 0xffffffffu - u32(range - 1)})
          for (const Shape& s : shapes) {
            const std::vector<u32> x = make_keys(n, min_word, range, std::min(len, n), seed++);
            std::vector<u32> want = x;
            std::sort(want.begin(), want.end(), [&](u32 a, u32 b) { return a - min_word < b - min_word; });
            ASSERT_EQ(hybrid_model(x, min_word, range, s), want)
                << "n=" << n << " range=" << range << " len=" << len << " min=" << min_word << " low=" << s.low_bits;
          }
      }
}

// dist-hp's order: rank r of G counts share r+1, ..., share r-1, then its own (shares of
// range / G bins, the last with the rest), so a share's counts can travel
// while the next is counted. Each share's bins are whole when its turn ends, shares astride a
// bucket edge included, and the keys sort as with one launch.
TEST(HpPipelineModel, HybridCountsSharesOfTheBinsInTurn) {
  const std::vector<Shape> shapes{{4, 3, 5, 16, 7}, {6, 7, 2, 64, 64, 4}, {3, 16, 9, 8, 8, 1}};
  unsigned seed = 7;
  for (u64 n : {1ull, 5ull, 1001ull, 40000ull})
    for (u64 range : {1ull, 3ull, 17ull, 1000ull, 70000ull})
      for (u64 world : {2ull, 3ull, 4ull, 8ull})
        for (u64 me = 0; me < world; ++me)
          for (const Shape& s : shapes) {
            if (n == 1 && range > 1) continue;
            const std::vector<u32> x = make_keys(n, 0, range, std::min<u64>(n, range), seed++);
            auto share_begin = [&](u64 q) { return q >= world ? range : q * (range / world); };
            BinRanges order;
            for (u64 k = 1; k <= world; ++k) {
              const u64 q = (me + k) % world;
              order.emplace_back(share_begin(q), share_begin(q + 1));
            }
            std::vector<u32> want = x;
            std::sort(want.begin(), want.end());
            ASSERT_EQ(hybrid_model(x, 0, range, s, &order), want)
                << "n=" << n << " range=" << range << " G=" << world << " rank " << me << " low=" << s.low_bits;
          }
}

// The hybrid's 2^16-bin histograms in 16-bit pairs, a step at a time: every key counted, no half
// wrapping, where one bin takes 2^17 keys of one slice (all keys equal; keys at a bucket's two
// ends, the odd and even halves of one word), with the kernel's step and with a short one.
TEST(HpPipelineModel, PairStepsCountEveryKeyWithoutWrapping) {
  const u64 n = (u64{1} << 17) + 77;
  std::vector<std::vector<u32>> inputs{std::vector<u32>(n, 5u << 16)};
  std::vector<u32> ends(n);
  for (u64 i = 0; i < n; ++i) ends[i] = i % 3 ? (3u << 16) + 1 : (3u << 16) + (i % 2 ? 0xffffu : 0u);
  inputs.push_back(ends);
  inputs.push_back(make_keys(n, 0, 1u << 20, 5000, 11));
  // Bin 9 ends the first step one key short of spilling and takes all of the second: its half
  // reaches 2^16 - 1 (one more key in the step would wrap it).
  std::vector<u32> brim(kPairSpillAt - 1, 9);
  for (u64 i = brim.size(); i < kPairStep; ++i) brim.push_back(10 + i % 1000);
  brim.insert(brim.end(), kPairStep, 9);
  inputs.push_back(brim);
  for (u32 step : {kPairStep, 4096u})
    for (const Shape& s : {Shape{16, 3, 2, 4096, 4096, 16, step}, Shape{16, 1, 1, 64, 64, 0, step}})
      for (const auto& x : inputs) {
        const u64 range = u64{*std::max_element(x.begin(), x.end())} + 1;
        std::vector<u32> want = x;
        std::sort(want.begin(), want.end());
        ASSERT_EQ(hybrid_model(x, 0, range, s), want) << "step " << step << " parts " << s.parts;
      }
}

// The spill test of a quad of counter words OR-ed together says whether any half of them would
// leave: a word beside one whose halves both stay (kPairSpillAt - 1) gets the word's own answer.
TEST(HpPipelineModel, PairWordsSpillIsAnyHalfLeaving) {
  const u32 staying = (kPairSpillAt - 1) | (kPairSpillAt - 1) << 16;
  const std::vector<u32> halves{0, 1, kPairSpillAt - 1, kPairSpillAt, kPairSpillAt + 1, 0x8000, 0xffff};
  for (u32 even : halves)
    for (u32 odd : halves) {
      const u32 word = even | odd << 16;
      const PairSpill spill = pair_step_spill(word);
      EXPECT_EQ(pair_words_spill(word), spill.even_out || spill.odd_out) << even << " " << odd;
      EXPECT_EQ(pair_words_spill(word | staying), spill.even_out || spill.odd_out) << even << " " << odd;
    }
}

// The buffered scatter with 64-bit positions (the hybrid from 2^32 keys): every region moved to
// just below 2^32, not chunk-aligned, so that regions and chunks straddle it. Each position is
// written once (the model checks) and each bucket's span holds exactly its keys' low bits.
TEST(HpPipelineModel, BufferedScatterAtSixtyFourBitPositions) {
  const std::vector<Shape> shapes{{4, 3, 5, 16, 7, 2}, {6, 7, 2, 64, 64, 4}, {3, 16, 9, 8, 8, 1}, {2, 5, 3, 16, 40, 4}};
  unsigned seed = 7;
  for (u64 n : {1ull, 100ull, 1001ull, 40000ull})
    for (const Shape& s : shapes) {
      const u64 range = 1000, buckets = buckets_for(range, s.low_bits);
      const std::vector<u32> x = make_keys(n, 0, range, std::min<u64>(50, n), seed++);
      const std::vector<u32> offsets = bucket_part_offsets(x, 0, buckets, s);
      const u64 base = (u64{1} << 32) - n / 2 - 3;
      std::vector<u64> wide(offsets.begin(), offsets.end());
      for (u64& o : wide) o += base;
      std::vector<std::uint16_t> low(n, 0xffff);
      buffered_scatter_model<u64>(x, 0, wide, buckets, s, low, base);
      for (u64 b = 0; b < buckets; ++b) {
        const u64 lo = offsets[b * s.parts], hi = b + 1 < buckets ? offsets[(b + 1) * s.parts] : n;
        std::vector<std::uint16_t> got(low.begin() + lo, low.begin() + hi), want;
        for (u32 k : x)
          if (bucket_of(k, s.low_bits) == b) want.push_back(static_cast<std::uint16_t>(bin_in_bucket(k, s.low_bits)));
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        ASSERT_EQ(got, want) << "n=" << n << " low_bits=" << s.low_bits << " bucket " << b;
      }
    }
}

// hp-tiled's histogram (group_key_tiles + segment_hist): every tile grouped by bucket in place
// (ranks within a bucket in any order: here reversed) with its segment starts in the
// bucket-major table; then each (bucket, group of tiles) reads its segments as whole 8-value
// words, masking the neighbours' values, and either stores (one group) or adds its counts.
std::vector<u32> tiled_histogram_model(const std::vector<u32>& x, u32 min_word, u64 range, unsigned low_bits, u64 tile,
                                       u64 groups) {
  const u64 n = x.size();
  const u64 buckets = buckets_for(range, low_bits);
  const u64 tiles = ceil_div(n, tile);
  std::vector<u32> seg(segment_table_words(buckets, tiles), 0xdeadbeefu);
  // The grouped array holds n values; the padding checks that the reader never counts past n.
  std::vector<std::uint16_t> low(ceil_div(n, 8) * 8, 0xffff);
  for (u64 t = 0; t < tiles; ++t) {
    const u64 t0 = t * tile, len = std::min(tile, n - t0);
    std::vector<u32> count(buckets, 0), start(buckets, 0), rank(buckets, 0);
    for (u64 i = t0; i < t0 + len; ++i) ++count[bucket_of(key_offset(x[i], min_word), low_bits)];
    for (u64 b = 1; b < buckets; ++b) start[b] = start[b - 1] + count[b - 1];
    for (u64 b = 0; b < buckets; ++b) seg.at(segment_row(b, t, tiles)) = start[b];
    seg.at(segment_row(buckets, t, tiles)) = u32(len);
    for (u64 i = t0 + len; i-- > t0;) {
      const u32 off = key_offset(x[i], min_word);
      const u32 b = bucket_of(off, low_bits);
      low.at(t0 + start[b] + rank[b]++) = static_cast<std::uint16_t>(bin_in_bucket(off, low_bits));
    }
  }
  std::vector<u32> A(range, groups > 1 ? 0 : 0xdeadbeefu);
  for (u64 g = 0; g < groups; ++g)
    for (u64 b = 0; b < buckets; ++b) {
      u64 t_lo, t_hi;
      part_bounds(tiles, groups, g, 1, t_lo, t_hi);
      std::vector<u32> hist(u64{1} << low_bits, 0);
      // A thread per tile: its segment as whole 8-value words, the neighbours' values masked.
      for (u64 t = t_lo; t < t_hi; ++t) {
        const u64 lo = t * tile + seg.at(segment_row(b, t, tiles));
        const u64 hi = t * tile + seg.at(segment_row(b + 1, t, tiles));
        u64 q0, q1;
        word_span(lo, hi, 8, q0, q1);
        EXPECT_LE(q1 * 8, ceil_div(n, 8) * 8);
        for (u64 q = q0; q < q1; ++q)
          for (u64 k = 0; k < 8; ++k)
            if (in_segment(q, static_cast<u32>(k), 8, lo, static_cast<u32>(hi - lo))) ++hist.at(low.at(8 * q + k));
      }
      for (u64 i = 0; i < hist.size() && (b << low_bits) + i < range; ++i) {
        if (groups == 1) A[(b << low_bits) + i] = hist[i];
        else A[(b << low_bits) + i] += hist[i];
      }
    }
  return A;
}

// The dense expansion (dense_expansion): A's inclusive scan over every bin is the runs, an
// empty bin's of length 0, a run's value its bin; tile windows found as locate_tiles finds
// them, staged and walked as expand_runs does, and a window wider than the tile searched per
// position. Small tiles and sparse ranges so that windows of empty bins wider than a tile occur.
std::vector<u32> dense_expansion_model(const std::vector<u32>& x, u32 min_word, u64 range, u64 tile, u64* wide_windows) {
  const u64 n = x.size();
  std::vector<u32> run_end(range, 0);
  for (u32 k : x) ++run_end.at(key_offset(k, min_word));
  for (u64 i = 1; i < range; ++i) run_end[i] += run_end[i - 1];
  std::vector<u32> y(n, 0xdeadbeefu);
  for (u64 t0 = 0; t0 < n; t0 += tile) {
    const u64 t1 = std::min(t0 + tile, n);
    u64 first, count;
    tile_runs(run_end.data(), range, t0, t1, kLocateWays, first, count);
    EXPECT_GT(run_end[first], t0);
    EXPECT_TRUE(first == 0 || run_end[first - 1] <= t0);
    if (count > tile) {
      ++*wide_windows;
      for (u64 pos = t0; pos < t1; ++pos)
        y[pos] = word_at<u32>(u32(first + run_at<u64, u32>(run_end.data() + first, 0, count, pos)), min_word);
      continue;
    }
    expand_tile(run_end, first, count, t0, t1, [&](u32 j) { return word_at<u32>(u32(first + j), min_word); }, y.data());
  }
  return y;
}

TEST(HpPipelineModel, DenseExpansionMatchesStdSort) {
  unsigned seed = 3;
  u64 wide_windows = 0;
  for (u64 n : {1ull, 7ull, 100ull, 1001ull, 40000ull})
    for (u64 range : {1ull, 2ull, 17ull, 1000ull, 70000ull})
      for (u64 len : {1ull, 2ull, 50ull, 1000ull, 70000ull}) {
        if (len > range || len > n) continue;
        for (u32 min_word : {0u, u32(-1000), 0xffffffffu - u32(range - 1)})
          for (u64 tile : {4ull, 16ull, 4096ull}) {
            const std::vector<u32> x = make_keys(n, min_word, range, len, seed++);
            std::vector<u32> want = x;
            std::sort(want.begin(), want.end(), [&](u32 a, u32 b) { return a - min_word < b - min_word; });
            ASSERT_EQ(dense_expansion_model(x, min_word, range, tile, &wide_windows), want)
                << "n=" << n << " range=" << range << " len=" << len << " min=" << min_word << " tile=" << tile;
          }
      }
  EXPECT_GT(wide_windows, 0u) << "no window wider than its tile: the search per position went untested";
}

// Dense where every bin holds a key, or more than half of them with two keys a bin; never with
// the distinct count unknown.
TEST(HpPipelineModel, DenseExpansionWhereMostBinsHoldAKey) {
  EXPECT_TRUE(dense_expansion(1ull << 30, 1ull << 28, 1ull << 28));   // delta 4, sigma 1
  EXPECT_TRUE(dense_expansion(1ull << 24, 1ull << 24, 1ull << 24));   // delta = sigma = 1
  EXPECT_TRUE(dense_expansion(1ull << 30, 1ull << 28, 1ull << 27));   // half the bins, 4 keys a bin
  EXPECT_FALSE(dense_expansion(1ull << 24, 1ull << 24, 1ull << 23));  // half the bins, 1 key a bin
  EXPECT_FALSE(dense_expansion(1ull << 30, 1ull << 28, (1ull << 27) - 1));
  EXPECT_FALSE(dense_expansion(1ull << 31, 42949601, 858993));        // delta = sigma = 50
  EXPECT_FALSE(dense_expansion(1ull << 30, 1ull << 28, 0));           // len unknown
  EXPECT_FALSE(dense_expansion(0, 0, 0));
}

TEST(HpPipelineModel, TiledHistogramCountsEveryKey) {
  unsigned seed = 7;
  for (u64 n : {1ull, 3ull, 5ull, 100ull, 1001ull, 40000ull})
    for (u64 range : {1ull, 2ull, 17ull, 1000ull, 70000ull})
      for (unsigned low_bits : {2u, 6u, 15u})
        for (u64 tile : {8ull, 64ull, 8192ull})
          for (u64 groups : {1ull, 3ull}) {
            // The segment table has a word per (bucket, tile): keep the small shapes small.
            if (buckets_for(range, low_bits) * ceil_div(n, tile) > (1u << 16)) continue;
            const u64 len = std::min<u64>({n, range, 500});
            const std::vector<u32> x = make_keys(n, u32(-1000), range, len, seed++);
            std::vector<u32> want(range, 0);
            for (u32 k : x) ++want[key_offset(k, u32(-1000))];
            ASSERT_EQ(tiled_histogram_model(x, u32(-1000), range, low_bits, tile, groups), want)
                << "n=" << n << " range=" << range << " low=" << low_bits << " tile=" << tile << " groups=" << groups;
          }
}

// hp-tiled in two levels (hp_split_kernels.cuh): super-bucket counts per part, the padded
// array's first tiles and offsets, the partition tile by tile (grouped in any order: here
// reversed), the padding, the grouping of the padded array by fine bucket with the padding's
// bucket last, and each fine bucket's histogram over its super-bucket's tiles in groups.
std::vector<u32> split_histogram_model(const std::vector<u32>& x, u32 min_word, u64 range, unsigned low_bits,
                                       u64 max_supers, u64 tile, u64 parts, u64 groups) {
  const u64 n = x.size();
  const SplitPlan plan = split_plan(range, low_bits, max_supers, 1);
  const u64 S = plan.supers;
  std::vector<u32> counts(S * parts, 0);
  for (u64 p = 0; p < parts; ++p) {
    u64 lo, hi;
    part_bounds(n, parts, p, 4, lo, hi);
    for (u64 i = lo; i < hi; ++i) ++counts[super_of(key_offset(x[i], min_word), plan) * parts + p];
  }
  std::vector<u64> totals(S, 0), tile_first(S + 1, 0), offsets(S * parts);
  for (u64 s = 0; s < S; ++s)
    for (u64 p = 0; p < parts; ++p) totals[s] += counts[s * parts + p];
  for (u64 s = 0; s < S; ++s) tile_first[s + 1] = tile_first[s] + padded_tiles(totals[s], tile);
  const u64 tiles = split_tiles_bound(n, S, tile);
  EXPECT_LE(tile_first[S], tiles);
  std::vector<u32> xpart(tiles * tile, 0xdeadbeefu);
  for (u64 s = 0; s < S; ++s) {
    u64 at = tile_first[s] * tile;  // split_offsets: the row's exclusive scan from the first tile
    for (u64 p = 0; p < parts; ++p) offsets[s * parts + p] = at, at += counts[s * parts + p];
    for (u64 i = tile_first[s] * tile + totals[s]; i < tile_first[s + 1] * tile; ++i) xpart[i] = split_pad(plan);
  }
  for (u64 i = tile_first[S] * tile; i < tiles * tile; ++i) xpart[i] = split_pad(plan);
  for (u64 p = 0; p < parts; ++p) {
    u64 lo, hi;
    part_bounds(n, parts, p, 4, lo, hi);
    for (u64 t0 = lo; t0 < hi; t0 += tile) {
      const u64 t1 = std::min(t0 + tile, hi);
      for (u64 i = t1; i-- > t0;) {
        const u32 off = key_offset(x[i], min_word);
        xpart.at(offsets[super_of(off, plan) * parts + p]++) = offset_in_super(off, plan);
      }
    }
  }
  for (u32 v : xpart) EXPECT_NE(v, 0xdeadbeefu);
  // group_key_tiles over the padded array: fine_per_super + 1 buckets a tile.
  const u64 buckets = u64{plan.fine_per_super} + 1;
  std::vector<u32> seg(segment_table_words(buckets, tiles));
  std::vector<std::uint16_t> low(tiles * tile);
  for (u64 t = 0; t < tiles; ++t) {
    std::vector<u32> count(buckets, 0), next(buckets, 0);
    for (u64 i = t * tile; i < (t + 1) * tile; ++i) ++count.at(bucket_of(xpart[i], low_bits));
    for (u64 b = 1; b < buckets; ++b) next[b] = next[b - 1] + count[b - 1];
    for (u64 b = 0; b < buckets; ++b) seg[segment_row(b, t, tiles)] = next[b];
    seg[segment_row(buckets, t, tiles)] = u32(tile);
    for (u64 i = t * tile; i < (t + 1) * tile; ++i)
      low[t * tile + next[bucket_of(xpart[i], low_bits)]++] = static_cast<std::uint16_t>(bin_in_bucket(xpart[i], low_bits));
  }
  // split_segment_hist: block (b, s, g) over the tiles of super-bucket s.
  std::vector<u32> A(range, groups > 1 ? 0 : 0xdeadbeefu);
  for (u64 g = 0; g < groups; ++g)
    for (u64 s = 0; s < S; ++s)
      for (u64 b = 0; b < plan.fine_per_super; ++b) {
        const u64 first = split_bucket_first(plan, s, b);
        if (first >= range) continue;
        u64 t_lo, t_hi;
        part_bounds(tile_first[s + 1] - tile_first[s], groups, g, 1, t_lo, t_hi);
        std::vector<u32> hist(u64{1} << low_bits, 0);
        for (u64 t = tile_first[s] + t_lo; t < tile_first[s] + t_hi; ++t)
          for (u64 i = t * tile + seg[segment_row(b, t, tiles)]; i < t * tile + seg[segment_row(b + 1, t, tiles)]; ++i)
            ++hist.at(low[i]);
        for (u64 i = 0; i < hist.size() && first + i < range; ++i) {
          if (groups == 1) A[first + i] = hist[i];
          else A[first + i] += hist[i];
        }
      }
  return A;
}

TEST(HpPipelineModel, TwoLevelHistogramCountsEveryKey) {
  unsigned seed = 11;
  for (u64 n : {1ull, 7ull, 1000ull, 40000ull})
    for (u64 range : {1ull, 17ull, 5000ull, 70000ull})
      for (unsigned low_bits : {2u, 5u})
        for (u64 max_supers : {1ull, 3ull, 64ull})
          for (u64 tile : {16ull, 256ull})
            for (u64 parts : {1ull, 5ull})
              for (u64 groups : {1ull, 3ull}) {
                const SplitPlan plan = split_plan(range, low_bits, max_supers, 1);
                if (segment_table_words(plan.fine_per_super + 1, split_tiles_bound(n, plan.supers, tile)) > (1u << 18))
                  continue;
                const std::vector<u32> x = make_keys(n, u32(-3), range, std::min<u64>({n, range, 700}), seed++);
                std::vector<u32> want(range, 0);
                for (u32 k : x) ++want[key_offset(k, u32(-3))];
                ASSERT_EQ(split_histogram_model(x, u32(-3), range, low_bits, max_supers, tile, parts, groups), want)
                    << "n=" << n << " range=" << range << " low=" << low_bits << " supers<=" << max_supers
                    << " tile=" << tile << " parts=" << parts << " groups=" << groups;
              }
}

// hp-stable: LSD digit passes; each pass counts digits per part, scans digit-major, and
// scatters each part in input order.
TEST(HpPipelineModel, StableDigitPassesMatchStableSort) {
  for (u64 n : {1ull, 9ull, 1000ull, 30000ull})
    for (u64 range : {1ull, 3ull, 256ull, 257ull, 100000ull}) {
      const u32 min_word = u32(-77);
      const std::vector<u32> x = make_keys(n, min_word, range, std::min<u64>(n, range), unsigned(n + range));
      std::vector<u32> keys = x, vals(n);
      std::iota(vals.begin(), vals.end(), 0u);
      const unsigned digit_bits = 8, bits = bits_for_range(range);
      const u64 parts = 7;
      for (unsigned shift = 0; shift < bits; shift += digit_bits) {
        std::vector<u32> offsets((u64{1} << digit_bits) * parts, 0);
        for (u64 p = 0; p < parts; ++p) {
          u64 lo, hi;
          part_bounds(n, parts, p, 1, lo, hi);
          for (u64 i = lo; i < hi; ++i) ++offsets[digit_of(key_offset(keys[i], min_word), shift, digit_bits) * parts + p];
        }
        u32 sum = 0;
        for (u32& o : offsets) sum += std::exchange(o, sum);
        std::vector<u32> k2(n), v2(n);
        for (u64 p = 0; p < parts; ++p) {
          u64 lo, hi;
          part_bounds(n, parts, p, 1, lo, hi);
          for (u64 i = lo; i < hi; ++i) {
            const u32 at = offsets[digit_of(key_offset(keys[i], min_word), shift, digit_bits) * parts + p]++;
            k2[at] = keys[i], v2[at] = vals[i];
          }
        }
        keys.swap(k2), vals.swap(v2);
      }
      std::vector<u32> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&](u32 a, u32 b) { return x[a] - min_word < x[b] - min_word; });
      ASSERT_EQ(vals, order) << "n=" << n << " range=" << range;
    }
}

}  // namespace
}  // namespace sb::hp
