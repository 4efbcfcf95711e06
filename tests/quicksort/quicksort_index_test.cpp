// CPU tests of the quicksort family's index arithmetic (kernels/quicksort/quicksort_index.hpp):
// CPU sorts built only from it (K-way quicksort as the kernels split, padded bitonic sort,
// merge-path merge sort) against std::sort on inputs that break naive quicksort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "quicksort_index.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::qs {
namespace {

// The kernels' K-way split, out of place, count then place (Direct-Prefix); or log2 K rounds
// of single-pivot splits (Sequential, Prefix, P-Prefix). Ends with the keys in a[].
template <typename T>
struct CpuQuick {
  std::vector<T>* buf[2];
  int arity;
  bool rounds;
  int max_depth_seen = 0;

  struct Part {
    u64 begin, len;
    int b;
  };

  // One Partition of p by np pivots from 2*(np+1)-1 samples; returns the non-equal pieces.
  std::vector<Part> split(Part p, int np) {
    T samples[sample_count(kMaxPivots, 2)];
    T pivots[kMaxPivots];
    const int s = sample_count(np, 2);
    const std::vector<T>& src = *buf[p.b];
    std::vector<T>& dst = *buf[1 - p.b];
    for (int i = 0; i < s; ++i) samples[i] = src[sample_position(p.begin, p.len, i, s)];
    pivots_from_samples(samples, s, np, pivots);
    const int nb = bucket_count(np);
    u64 count[kMaxBuckets] = {};
    for (u64 i = 0; i < p.len; ++i) ++count[bucket_of(src[p.begin + i], pivots, np)];
    u64 cursor[kMaxBuckets];
    bucket_offsets(count, nb, p.begin, cursor);
    for (u64 i = 0; i < p.len; ++i) {
      const int bk = bucket_of(src[p.begin + i], pivots, np);
      dst[cursor[bk]++] = src[p.begin + i];
    }
    std::vector<Part> out;
    u64 at = p.begin;
    for (int k = 0; k < nb; ++k) {
      const Part piece{at, count[k], 1 - p.b};
      at += count[k];
      EXPECT_EQ(cursor[k], at);
      if (is_equal_bucket(k)) {
        for (u64 i = 0; i < piece.len; ++i) (*buf[0])[piece.begin + i] = dst[piece.begin + i];
      } else if (piece.len > 0) {
        out.push_back(piece);
      }
    }
    return out;
  }

  void sort(Part p, int depth) {
    max_depth_seen = std::max(max_depth_seen, depth);
    if (p.len < kSelectionBelow) {
      selection_sort(buf[p.b]->data() + p.begin, p.len);
      if (p.b != 0) std::copy_n(buf[1]->begin() + p.begin, p.len, buf[0]->begin() + p.begin);
      return;
    }
    std::vector<Part> parts{p};
    if (rounds) {
      for (int r = 0; r < split_rounds(arity); ++r) {
        std::vector<Part> next;
        for (const Part& q : parts) {
          if (q.len < kSelectionBelow) {
            next.push_back(q);
            continue;
          }
          for (const Part& c : split(q, 1)) next.push_back(c);
        }
        parts = next;
      }
    } else {
      parts = split(p, arity - 1);
    }
    EXPECT_LE(parts.size(), std::size_t(arity));
    for (const Part& c : parts) {
      EXPECT_LT(c.len, p.len);  // every child shrinks: the recursion ends
      sort(c, depth + 1);
    }
  }
};

std::vector<std::uint32_t> input(const std::string& kind, std::size_t n, unsigned seed) {
  std::vector<std::uint32_t> v(n);
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == "uniform") v[i] = rng();
    else if (kind == "equal") v[i] = 42;
    else if (kind == "two") v[i] = rng() & 1 ? 7 : 9;
    else if (kind == "sorted") v[i] = std::uint32_t(i);
    else if (kind == "reverse") v[i] = std::uint32_t(n - i);
    else if (kind == "organ") v[i] = std::uint32_t(i < n / 2 ? i : n - i);
    else v[i] = rng() % 16;  // "few"
  }
  return v;
}

const char* const kKinds[] = {"uniform", "equal", "two", "sorted", "reverse", "organ", "few"};

TEST(QuicksortIndex, BucketOfPlacesKeysBetweenAndOnPivots) {
  const std::uint32_t p[3] = {10, 20, 20};
  EXPECT_EQ(bucket_of<std::uint32_t>(5, p, 3), 0);
  EXPECT_EQ(bucket_of<std::uint32_t>(10, p, 3), 1);
  EXPECT_EQ(bucket_of<std::uint32_t>(15, p, 3), 2);
  EXPECT_EQ(bucket_of<std::uint32_t>(20, p, 3), 3);  // first of the equal pivots
  EXPECT_EQ(bucket_of<std::uint32_t>(25, p, 3), 6);
  const float f[1] = {-1.5f};
  EXPECT_EQ(bucket_of(-2.0f, f, 1), 0);
  EXPECT_EQ(bucket_of(-1.5f, f, 1), 1);
  EXPECT_EQ(bucket_of(3.0f, f, 1), 2);
}

TEST(QuicksortIndex, OffsetsAreExclusivePrefixSums) {
  const u64 counts[5] = {3, 0, 4, 1, 2};
  u64 off[5];
  bucket_offsets(counts, 5, 100, off);
  EXPECT_EQ(off[0], 100u);
  EXPECT_EQ(off[1], 103u);
  EXPECT_EQ(off[2], 103u);
  EXPECT_EQ(off[3], 107u);
  EXPECT_EQ(off[4], 108u);
}

TEST(QuicksortIndex, SamplesStayInsideAndIncrease) {
  for (u64 len : {u64(1), u64(2), u64(31), u64(32), u64(1000), u64(1) << 40})
    for (int s : {3, 7, 31, 63}) {
      u64 prev = 0;
      for (int i = 0; i < s; ++i) {
        const u64 at = sample_position(5, len, i, s);
        EXPECT_GE(at, 5u);
        EXPECT_LT(at, 5 + len);
        if (i > 0) EXPECT_GE(at, prev);
        prev = at;
      }
    }
  // The middle sample of three is the paper's middle element.
  EXPECT_EQ(sample_position(0, 1001, 1, 3), 500u);
}

TEST(QuicksortIndex, PivotsAreSortedSampleQuantiles) {
  std::uint32_t samples[7] = {70, 10, 60, 20, 50, 30, 40};
  std::uint32_t piv[3];
  pivots_from_samples(samples, 7, 3, piv);
  EXPECT_EQ(piv[0], 20u);
  EXPECT_EQ(piv[1], 40u);
  EXPECT_EQ(piv[2], 60u);
  std::uint32_t three[3] = {9, 1, 5};
  pivots_from_samples(three, 3, 1, piv);
  EXPECT_EQ(piv[0], 5u);  // median of three
}

// quick-fast picks pivots in parallel: each of s threads ranks one sample (sample_rank)
// and the pivots are read at pivot_sample; that must be what pivots_from_samples picks.
TEST(QuicksortIndex, ParallelSampleRanksGiveTheSamePivots) {
  std::mt19937 rng(11);
  for (int np : {1, 3, 7})
    for (int range : {1, 2, 5, 1000}) {
      const int s = sample_count(np, 8);
      std::vector<std::uint32_t> samples(s), sorted(s, 0xFFFFFFFFu);
      for (auto& x : samples) x = rng() % range;
      std::vector<bool> hit(s, false);
      for (int i = 0; i < s; ++i) {
        const int r = sample_rank(samples.data(), s, i);
        ASSERT_GE(r, 0);
        ASSERT_LT(r, s);
        EXPECT_FALSE(hit[r]) << "two samples ranked " << r;  // a permutation: ties broken by index
        hit[r] = true;
        sorted[r] = samples[i];
      }
      std::vector<std::uint32_t> want = samples;
      std::uint32_t piv[kMaxPivots];
      pivots_from_samples(want.data(), s, np, piv);
      EXPECT_EQ(sorted, want);
      for (int j = 0; j < np; ++j) EXPECT_EQ(sorted[pivot_sample(j, s, np)], piv[j]) << "np=" << np << " j=" << j;
    }
}

// quick-fast's leaf radix sorts look only at the bits of the keys' ordered form
// (KeyTraits<K>::Ordered) below the common prefix of the smallest and largest key: the
// ordered form must follow the key order and be invertible, for 4- and 8-byte keys.
template <typename K>
void expect_ordered_form(std::vector<K> keys) {
  using Traits = KeyTraits<K>;
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(Traits::from_ordered(Traits::ordered(keys[i])), keys[i]);
    if (i > 0 && keys[i - 1] < keys[i]) EXPECT_LT(Traits::ordered(keys[i - 1]), Traits::ordered(keys[i])) << i;
  }
}

// The part of a radix sort on differing_low_bits: every ordered key between the smallest
// and largest keeps the bits above them, so sorting by the low bits alone sorts the keys.
template <typename K>
void expect_low_bits_sort(std::vector<K> keys) {
  using U = typename KeyTraits<K>::Ordered;
  U lo = ~U{0}, hi = 0;
  for (K k : keys) {
    lo = std::min(lo, KeyTraits<K>::ordered(k));
    hi = std::max(hi, KeyTraits<K>::ordered(k));
  }
  const int bits = differing_low_bits(lo, hi);
  const U low_mask = bits == int(sizeof(U) * 8) ? ~U{0} : (U{1} << bits) - 1;
  for (K k : keys) EXPECT_EQ(KeyTraits<K>::ordered(k) & ~low_mask, lo & ~low_mask);
  std::vector<K> by_low_bits = keys, want = keys;
  std::sort(by_low_bits.begin(), by_low_bits.end(),
            [&](K a, K b) { return (KeyTraits<K>::ordered(a) & low_mask) < (KeyTraits<K>::ordered(b) & low_mask); });
  std::sort(want.begin(), want.end());
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_FALSE(by_low_bits[i] < want[i] || want[i] < by_low_bits[i]) << i;
}

TEST(QuicksortIndex, OrderedFormFollowsTheKeyOrder) {
  expect_ordered_form<std::uint32_t>({0u, 1u, 7u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu});
  expect_ordered_form<std::int32_t>({INT32_MIN, -70000, -1, 0, 1, 5, INT32_MAX});
  expect_ordered_form<float>({-16777216.0f, -2.5f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f, 16777216.0f});
  expect_ordered_form<std::uint64_t>({0u, 1u, 0xFFFFFFFFu, 0x100000000u, 0x7FFFFFFFFFFFFFFFu, 0x8000000000000000u,
                                      0xFFFFFFFFFFFFFFFFu});
  expect_ordered_form<std::int64_t>({INT64_MIN, -(std::int64_t(1) << 40), -1, 0, 1, std::int64_t(1) << 33, INT64_MAX});
  expect_ordered_form<double>({-9007199254740992.0, -1e300, -2.5, -1e-300, 0.0, 1e-300, 0.25, 3.0, 1e300});
}

TEST(QuicksortIndex, DifferingLowBitsOfFourAndEightByteOrderedKeys) {
  EXPECT_EQ(differing_low_bits<std::uint32_t>(5, 5), 0);
  EXPECT_EQ(differing_low_bits<std::uint32_t>(4, 5), 1);
  EXPECT_EQ(differing_low_bits<std::uint32_t>(0x1000, 0x1FFF), 12);
  EXPECT_EQ(differing_low_bits<std::uint32_t>(0, 0xFFFFFFFFu), 32);
  EXPECT_EQ(differing_low_bits<std::uint64_t>(7, 7), 0);
  EXPECT_EQ(differing_low_bits<std::uint64_t>(0xFFFFFFFFu, 0x100000000u), 33);  // a carry past bit 31
  EXPECT_EQ(differing_low_bits<std::uint64_t>(0x0123456700000000u, 0x0123456800000000u), 36);
  EXPECT_EQ(differing_low_bits<std::uint64_t>(0, 0x8000000000000000u), 64);
  EXPECT_EQ(differing_low_bits<std::uint64_t>(0, ~std::uint64_t{0}), 64);
  // Every key between lo and hi keeps lo's bits above the differing ones.
  const std::uint32_t lo = 0x00ABC123u, hi = 0x00ABF000u;
  const int bits = differing_low_bits(lo, hi);
  for (std::uint32_t x = lo; x <= hi; x += 97) EXPECT_EQ(x >> bits, lo >> bits);
  const std::uint64_t lo64 = 0xDEADBEEF00ABC123u, hi64 = 0xDEADBEEF7FABF000u;
  const int bits64 = differing_low_bits(lo64, hi64);
  EXPECT_EQ(bits64, 31);
  for (std::uint64_t x = lo64; x <= hi64; x += 0x1000003u) EXPECT_EQ(x >> bits64, lo64 >> bits64);

  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> u64s(300);
  std::vector<std::int64_t> i64s(300);
  std::vector<double> f64s(300);
  for (int i = 0; i < 300; ++i) {
    u64s[i] = (std::uint64_t{0xABCD} << 48) | (rng() >> 20);        // a common 16-bit prefix
    i64s[i] = std::int64_t(rng() % (std::uint64_t{1} << 40)) - (std::int64_t(1) << 39);  // straddles zero
    f64s[i] = double(std::int64_t(rng() % 2000001) - 1000000) / 8.0;
  }
  expect_low_bits_sort(u64s);
  expect_low_bits_sort(i64s);
  expect_low_bits_sort(f64s);
  expect_low_bits_sort(std::vector<std::uint64_t>(50, 42));  // all equal: no bits, nothing to sort
}

// quick-fast's tiles: 4-byte keys keep the sizes they were tuned with; wider elements take
// fewer items per thread and fewer elements per leaf buffer, within the same bytes.
TEST(QuicksortIndex, FastTilesShrinkWithTheElementBytes) {
  struct Want {
    int bytes, grid, split, small, large, smem_default, smem_max;
  };
  const Want table[] = {{4, 16, 8, 2, 8, 13, 14},   // u32 keys only: as tuned
                        {8, 8, 4, 1, 4, 12, 13},    // u64 keys, or u32 keys with u32 values
                        {12, 4, 2, 1, 2, 11, 12},   // an 8-byte key with a 4-byte value or back
                        {16, 4, 2, 1, 2, 11, 12}};  // u64 keys with u64 values
  for (const Want& w : table) {
    EXPECT_EQ(items_per_thread(kGridTileBytes, w.bytes), w.grid) << w.bytes;
    EXPECT_EQ(items_per_thread(kLeafSplitBytes, w.bytes), w.split) << w.bytes;
    EXPECT_EQ(items_per_thread(kSmallRadixBytes, w.bytes), w.small) << w.bytes;
    EXPECT_EQ(items_per_thread(kLargeRadixBytes, w.bytes), w.large) << w.bytes;
    EXPECT_EQ(leaf_smem_log2_within(kLeafBuffersDefaultBytes, w.bytes), w.smem_default) << w.bytes;
    EXPECT_EQ(leaf_smem_log2_within(kLeafBuffersMaxBytes, w.bytes), w.smem_max) << w.bytes;
    for (int budget : {kGridTileBytes, kLeafSplitBytes, kLargeRadixBytes}) {
      const int items = items_per_thread(budget, w.bytes);
      EXPECT_LE(items * w.bytes, budget) << w.bytes;  // never more registers than 4-byte keys use
      EXPECT_EQ(items & (items - 1), 0) << w.bytes;   // a power of two
    }
    // The largest fitting buffers fit, one step more would not; the minimum always fits.
    const int smem_max = leaf_smem_log2_within(kLeafBuffersMaxBytes, w.bytes);
    EXPECT_LE(leaf_buffers_bytes(smem_max, w.bytes), kLeafBuffersMaxBytes);
    EXPECT_GT(leaf_buffers_bytes(smem_max + 1, w.bytes), kLeafBuffersMaxBytes);
    EXPECT_GE(smem_max, kLeafSmemLog2Min);
    EXPECT_GE(leaf_smem_log2_within(kLeafBuffersDefaultBytes, w.bytes), kLeafSmemLog2Min);
  }
  EXPECT_EQ(leaf_buffers_bytes(13, 4), u64(64) << 10);
  EXPECT_EQ(leaf_buffers_bytes(12, 16), u64(128) << 10);
  EXPECT_EQ(items_per_thread(8, 16), 1);  // an element wider than the budget still gets one item
}

TEST(QuicksortIndex, CpuQuicksortFromIndexMathMatchesStdSort) {
  for (int arity : {2, 4, 8})
    for (bool rounds : {false, true})
      for (const char* kind : kKinds)
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(32), std::size_t(33),
                              std::size_t(1000), std::size_t(1) << 16}) {
          std::vector<std::uint32_t> a = input(kind, n, unsigned(n + arity)), scratch(n, 0xA5A5A5A5u);
          std::vector<std::uint32_t> want = a;
          std::sort(want.begin(), want.end());
          CpuQuick<std::uint32_t> q{{&a, &scratch}, arity, rounds};
          if (n > 0) q.sort({0, n, 0}, 0);
          ASSERT_EQ(a, want) << kind << " n=" << n << " K=" << arity << (rounds ? " rounds" : " direct");
          // With K >= 4, sample pivots keep adversarial inputs shallow (the DP nesting limit
          // is 24; K = 2 may go deeper and relies on the in-block fallback).
          if (arity >= 4 && n == (std::size_t(1) << 16)) EXPECT_LT(q.max_depth_seen, kMaxNestingDepth - 2) << kind << " K=" << arity;
        }
}

// quick-sample's levels on the CPU from the kernels' index math: every segment of a level is
// split by 2^bits - 1 pivots (sample_offset, pivot_sample, sample_bucket), buckets above
// leaf_max go to the next level, the rest are leaves. Counts what each level appends, to check
// it against the workspace's sample_capacity.
struct CpuSample {
  u64 tile, leaf_max;  // tile: the elements of one count/place block
  int max_levels;
  std::vector<std::uint32_t>* buf[2];
  struct Seg {
    u64 begin, len;
    int buf;
  };
  std::vector<u64> segments, blocks, pivots, buckets, hists;  // per level
  u64 leaves = 0;

  void sort(u64 n) {
    std::vector<Seg> level;
    if (n <= leaf_max) {
      leaf({0, n, 0});
      return;
    }
    level.push_back({0, n, 0});
    for (int l = 0; !level.empty(); ++l) {
      if (l >= max_levels) {  // the leaf grid's bitonic sort
        for (const Seg& s : level) leaf(s);
        break;
      }
      segments.push_back(level.size());
      blocks.push_back(0);
      pivots.push_back(0);
      buckets.push_back(0);
      hists.push_back(0);
      std::vector<Seg> next;
      for (const Seg& s : level) split(s, l, next);
      level = next;
    }
  }

  void leaf(const Seg& s) {
    ++leaves;
    std::vector<std::uint32_t>& src = *buf[s.buf];
    std::sort(src.begin() + s.begin, src.begin() + s.begin + s.len);
    if (s.buf != 0) std::copy_n(src.begin() + s.begin, s.len, buf[0]->begin() + s.begin);
  }

  void split(const Seg& s, int l, std::vector<Seg>& next) {
    const int bits = sample_split_bits(s.len, sample_leaf_target(leaf_max));
    const int np = (1 << bits) - 1, nb = bucket_count(np), ns = (np + 1) * kSampleOversampling;
    blocks[l] += (s.len + tile - 1) / tile;
    pivots[l] += np;
    buckets[l] += nb;
    hists[l] += (s.len + tile - 1) / tile * nb;
    const std::vector<std::uint32_t>& src = *buf[s.buf];
    std::vector<std::uint32_t> samples(ns), p(np);
    for (int i = 0; i < ns; ++i) samples[i] = src[s.begin + sample_offset(s.len, s.begin, u64(i))];
    std::sort(samples.begin(), samples.end());
    for (int j = 0; j < np; ++j) p[j] = samples[pivot_sample(j, ns, np)];
    std::vector<u64> count(nb, 0), at(nb);
    for (u64 i = 0; i < s.len; ++i) ++count[sample_bucket(src[s.begin + i], p.data(), bits)];
    bucket_offsets(count.data(), nb, s.begin, at.data());
    std::vector<std::uint32_t>& dst = *buf[1 - s.buf];
    for (u64 i = 0; i < s.len; ++i) {
      const std::uint32_t x = src[s.begin + i];
      dst[at[sample_bucket(x, p.data(), bits)]++] = x;
    }
    std::vector<u64> start(nb + 1, 0);
    for (int k = 0; k < nb; ++k) start[k + 1] = start[k] + count[k];
    const int out = 1 - s.buf;
    for (int k = 0; k < nb; ++k) {
      const Seg piece{s.begin + start[k], count[k], out};
      if (piece.len <= leaf_max) continue;  // a leaf run's
      if (is_equal_bucket(k)) {
        leaves += out != 0 ? (piece.len + (u64(1) << 16) - 1) >> 16 : 0;
        if (out != 0) std::copy_n(dst.begin() + piece.begin, piece.len, buf[0]->begin() + piece.begin);
      } else {
        EXPECT_LT(piece.len, s.len);  // a bucket between pivots excludes the pivots: levels end
        next.push_back(piece);
      }
    }
    // Small buckets in leaves as the plan grid gathers them; a run of equal keys is in order.
    sample_leaf_runs(start.data(), nb, leaf_max, [&](u64 begin, u64 len, bool equal_only) {
      if (!(equal_only && out == 0)) leaf({s.begin + begin, len, out});
    });
  }
};

TEST(QuicksortIndex, SampleBucketIsBucketOfByBinarySearch) {
  std::mt19937 rng(7);
  for (int bits = 1; bits <= kSampleMaxBits; ++bits) {
    const int np = (1 << bits) - 1;
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::uint32_t> p(np);
      const std::uint32_t spread = trial % 2 ? 8 : 1000;  // few values: runs of equal pivots
      for (auto& x : p) x = 10 + rng() % spread;
      std::sort(p.begin(), p.end());
      for (std::uint32_t x : {0u, 9u, 10u, 11u, 17u, 999u, 1009u, 1010u, 0xFFFFFFFFu}) {
        ASSERT_EQ(sample_bucket(x, p.data(), bits), bucket_of(x, p.data(), np)) << "bits=" << bits << " x=" << x;
      }
      for (int i = 0; i < 200; ++i) {
        const std::uint32_t x = rng() % (spread + 20);
        ASSERT_EQ(sample_bucket(x, p.data(), bits), bucket_of(x, p.data(), np)) << "bits=" << bits << " x=" << x;
      }
    }
  }
}

TEST(QuicksortIndex, SampleTreeFindsTheSameBucketInEightSteps) {
  // The breadth-first layout: every node once, in-order ranks in increasing node order per level.
  std::vector<int> seen(kSampleTreeNodes + 1, 0);
  for (int s = 0; s < kSampleTreeNodes; ++s) ++seen.at(sample_tree_node(s));
  for (int j = 1; j <= kSampleTreeNodes; ++j) EXPECT_EQ(seen[j], 1) << j;
  EXPECT_EQ(sample_tree_node(127), 1);  // the median is the root
  EXPECT_EQ(sample_tree_node(63), 2);
  EXPECT_EQ(sample_tree_node(191), 3);
  std::mt19937 rng(11);
  for (int bits = 1; bits <= kSampleMaxBits; ++bits) {
    const int np = (1 << bits) - 1;
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<std::uint32_t> p(np);
      const std::uint32_t spread = trial % 2 ? 8 : 1000;
      for (auto& x : p) x = 10 + rng() % spread;
      if (trial == 9) p.back() = 0xFFFFFFFFu;  // a pivot at the key's maximum
      std::sort(p.begin(), p.end());
      std::vector<std::uint32_t> tree(kSampleTreeNodes + 1);
      for (int s = 0; s < kSampleTreeNodes; ++s)
        tree[sample_tree_node(s)] = sample_tree_entry(s, p.data(), bits, 0xFFFFFFFFu);
      for (std::uint32_t x : {0u, 9u, 10u, 11u, 17u, 999u, 1009u, 1010u, 0xFFFFFFFEu, 0xFFFFFFFFu})
        ASSERT_EQ(sample_tree_bucket(x, tree.data(), p.data(), bits), sample_bucket(x, p.data(), bits))
            << "bits=" << bits << " x=" << x;
      for (int i = 0; i < 300; ++i) {
        const std::uint32_t x = rng() % (spread + 20);
        ASSERT_EQ(sample_tree_bucket(x, tree.data(), p.data(), bits), sample_bucket(x, p.data(), bits))
            << "bits=" << bits << " x=" << x;
      }
    }
  }
}

TEST(QuicksortIndex, SampleSplitsShareTheHalvingsEvenly) {
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(ceil_log2(2), 1);
  EXPECT_EQ(ceil_log2(3), 2);
  EXPECT_EQ(ceil_log2(u64(1) << 40), 40);
  EXPECT_EQ(sample_split_bits(u64(1) << 26, 1024), 8);  // 16 halvings: 8, then 8
  EXPECT_EQ(sample_split_bits(u64(1) << 18, 1024), 8);
  EXPECT_EQ(sample_split_bits((u64(1) << 18) + 1, 1024), 8);  // 9: the last halving is the leaves' slack
  EXPECT_EQ(sample_split_bits((u64(1) << 19) + 1, 1024), 5);  // 10: two levels
  EXPECT_EQ(sample_split_bits(u64(1) << 24, 1024), 7);  // 14: 7, then 7
  EXPECT_EQ(sample_split_bits(u64(1) << 28, 1024), 6);  // 18: 6, 6, 6
  EXPECT_EQ(sample_split_bits(4097, 1024), 3);
  for (u64 target : {u64(512), u64(1024), u64(2048)})
    for (u64 len = 2 * target + 1; len < (u64(1) << 36); len = len * 3 / 2 + 7) {
      const int bits = sample_split_bits(len, target);
      ASSERT_GE(bits, 1);
      ASSERT_LE(bits, kSampleMaxBits);
      const u64 q = (len + target - 1) / target;
      // The capacity's premise: a split has fewer than 2 * ceil(len / target) buckets between pivots.
      ASSERT_LT(u64(1) << bits, 2 * q) << len;
      // No more levels than the fewest of kSampleMaxBits each, one halving of slack: the split
      // is not too small.
      const int need = ceil_log2(q);
      const int levels = need - 1 <= kSampleMaxBits ? 1 : (need - 1 + kSampleMaxBits - 1) / kSampleMaxBits;
      ASSERT_GE(bits * levels, std::min(need, kSampleMaxBits * levels) - (levels == 1 ? 1 : 0)) << len;
    }
}

TEST(QuicksortIndex, SampleExpectedLevelsFollowTheSplitBits) {
  EXPECT_EQ(sample_expected_levels(4096, 4096), 0);  // one leaf
  EXPECT_EQ(sample_expected_levels(4097, 4096), 1);
  EXPECT_EQ(sample_expected_levels(u64(1) << 24, 4096), 2);  // 7 + 7 bits to 2^10
  EXPECT_EQ(sample_expected_levels(u64(1) << 26, 4096), 2);  // 8 + 8
  EXPECT_EQ(sample_expected_levels(u64(1) << 29, 4096), 3);  // 19 halvings: 7, 6, 6
  EXPECT_EQ(sample_expected_levels(u64(1) << 26, 1024), 3);  // 16-byte elements: 6, 6, 6
  for (u64 leaf_max : {u64(1024), u64(4096)})
    for (u64 len = leaf_max + 1; len < (u64(1) << 40); len = len * 5 / 3 + 1) {
      const int levels = sample_expected_levels(len, leaf_max);
      // As many levels as sample_split_bits plans for the first split, and never fewer than
      // leaf_max's share of len asks for.
      const int need = ceil_log2((len + leaf_max - 1) / leaf_max);
      EXPECT_GE(levels, (need + kSampleMaxBits - 1) / kSampleMaxBits) << len;
      const int first = sample_split_bits(len, sample_leaf_target(leaf_max));
      const int planned = ceil_log2((len + sample_leaf_target(leaf_max) - 1) / sample_leaf_target(leaf_max));
      EXPECT_LE(levels, (planned + first - 1) / first) << len;
    }
}

TEST(QuicksortIndex, PivotsAreEachSampleGroupsLast) {
  for (int np = 1; np <= kSampleMaxPivots; ++np)
    for (int j = 0; j < np; ++j) ASSERT_TRUE(pivot_is_group_last(j, np)) << "np=" << np << " j=" << j;
}

TEST(QuicksortIndex, MulHighIsTheTopOfTheProduct) {
  EXPECT_EQ(mul_high(u64(1) << 63, 4), u64(2));
  EXPECT_EQ(mul_high(~u64(0), ~u64(0)), ~u64(0) - 1);
  EXPECT_EQ(mul_high(0x123456789ABCDEF0ull, 1), u64(0));
}

// The leaf runs: every small bucket in exactly one run, in order, runs of at most leaf_max
// that stop at a large bucket and are as full as greedy packing makes them.
TEST(QuicksortIndex, SampleLeafRunsCoverSmallBucketsGreedily) {
  std::mt19937 rng(11);
  const u64 leaf_max = 100;
  for (int trial = 0; trial < 500; ++trial) {
    const int nb = 1 + int(rng() % 511);
    std::vector<u64> size(nb), start(nb + 1, 0);
    for (int k = 0; k < nb; ++k) {
      const unsigned r = rng() % 10;
      size[k] = r == 0 ? 0 : r == 1 ? leaf_max + 1 + rng() % 300 : r < 4 ? rng() % 3 : rng() % (leaf_max + 1);
      start[k + 1] = start[k] + size[k];
    }
    struct Run {
      u64 begin, len;
      bool equal_only;
    };
    std::vector<Run> runs;
    sample_leaf_runs(start.data(), nb, leaf_max, [&](u64 b, u64 l, bool e) { runs.push_back({b, l, e}); });
    std::vector<int> covered(nb, 0);
    u64 last_end = 0;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const Run& run = runs[r];
      ASSERT_GT(run.len, 0u);
      ASSERT_LE(run.len, leaf_max);
      ASSERT_GE(run.begin, last_end);
      last_end = run.begin + run.len;
      bool equal_only = true;
      int first = -1, last = -1;
      for (int k = 0; k < nb; ++k)
        if (size[k] > 0 && start[k] >= run.begin && start[k + 1] <= run.begin + run.len) {
          ASSERT_LE(size[k], leaf_max);
          ++covered[k];
          equal_only = equal_only && is_equal_bucket(k);
          if (first < 0) first = k;
          last = k;
        }
      ASSERT_GE(first, 0);
      ASSERT_EQ(start[first], run.begin);  // whole buckets only
      ASSERT_EQ(start[last + 1], run.begin + run.len);
      ASSERT_EQ(run.equal_only, equal_only);
      // Greedy: the next non-empty bucket would not fit, or is large.
      int next = last + 1;
      while (next < nb && size[next] == 0) ++next;
      if (next < nb && size[next] <= leaf_max) ASSERT_GT(run.len + size[next], leaf_max) << "trial " << trial;
    }
    for (int k = 0; k < nb; ++k) ASSERT_EQ(covered[k], size[k] > 0 && size[k] <= leaf_max ? 1 : 0) << "bucket " << k;
  }
}

TEST(QuicksortIndex, SampleOffsetsStayInsideTheSegment) {
  for (u64 len : {u64(1), u64(2), u64(4097), u64(1) << 33})
    for (u64 i = 0; i < 4096; ++i) ASSERT_LT(sample_offset(len, 12345, i), len);
  // Different segments draw different samples.
  EXPECT_NE(sample_offset(u64(1) << 20, 0, 3), sample_offset(u64(1) << 20, 4096, 3));
}

TEST(QuicksortIndex, CpuSampleSortFromIndexMathFitsItsWorkspace) {
  for (u64 leaf_max : {u64(256), u64(4096)})
    for (const char* kind : kKinds)
      for (std::size_t n : {std::size_t(2), std::size_t(4096), std::size_t(4097), std::size_t(70001),
                            std::size_t(1) << 20}) {
        std::vector<std::uint32_t> a = input(kind, n, unsigned(n)), scratch(n, 0xA5A5A5A5u), want = a;
        std::sort(want.begin(), want.end());
        constexpr int kLevels = 5;
        for (u64 block : {u64(4096), u64(16384)}) {
        CpuSample q{block, leaf_max, kLevels, {&a, &scratch}};
        q.sort(n);
        ASSERT_EQ(a, want) << kind << " n=" << n << " leaf_max=" << leaf_max;
        const SampleCapacity cap = sample_capacity(n, block, leaf_max, u64(1) << 16, kLevels);
        for (std::size_t l = 0; l < q.segments.size(); ++l) {
          EXPECT_LE(q.segments[l], cap.segments) << kind << " n=" << n << " level " << l;
          EXPECT_LE(q.blocks[l], cap.blocks) << kind << " n=" << n << " level " << l;
          EXPECT_LE(q.pivots[l], cap.pivots) << kind << " n=" << n << " level " << l;
          EXPECT_LE(q.buckets[l], cap.buckets) << kind << " n=" << n << " level " << l;
          EXPECT_LE(q.hists[l], cap.hists) << kind << " n=" << n << " level " << l;
        }
        EXPECT_LE(q.leaves, cap.leaves) << kind << " n=" << n;
        // Uniform keys: 2^20 to 2^11-key leaves in two levels of 5 and 4 halvings (quick-fast's
        // K = 8 takes four), a third only for the few buckets that drew more than twice their
        // share; equal keys in one level (every key equals a pivot).
        if (n == (std::size_t(1) << 20) && leaf_max == 4096) {
          if (std::string(kind) == "uniform") {
            EXPECT_EQ(sample_expected_levels(n, leaf_max), 2);  // nodp's leaf grid follows level 2
            ASSERT_GE(q.segments.size(), 2u);
            EXPECT_LE(q.segments.size(), 3u);
            if (q.segments.size() == 3) EXPECT_LE(q.segments[2] * 20, q.segments[1] * 16) << q.segments[2];
          }
          if (std::string(kind) == "equal") EXPECT_EQ(q.segments.size(), 1u);
        }
        a = input(kind, n, unsigned(n));
        }
      }
}

TEST(QuicksortIndex, PaddedBitonicSortMatchesStdSort) {
  for (const char* kind : kKinds)
    for (std::size_t n : {0, 1, 2, 3, 5, 31, 32, 33, 100, 1000, 4096, 5000}) {
      std::vector<std::uint32_t> a = input(kind, n, unsigned(n)), want = a;
      std::sort(want.begin(), want.end());
      const u64 top = pow2_at_least(n);
      for (u64 k = 2; k <= top; k <<= 1)
        for (u64 j = k / 2; j > 0; j >>= 1)
          for (u64 i = 0; i < n; ++i) {
            const u64 p = bitonic_partner(i, k, j);
            if (p > i && p < n && a[p] < a[i]) std::swap(a[i], a[p]);
          }
      ASSERT_EQ(a, want) << kind << " n=" << n;
    }
}

TEST(QuicksortIndex, MergePathSplitsAndMergesLikeStdMerge) {
  std::mt19937 rng(3);
  for (std::size_t na : {0, 1, 7, 100}) {
    for (std::size_t nb : {0, 1, 9, 100}) {
      std::vector<int> a(na), b(nb);
      for (int& x : a) x = int(rng() % 20);
      for (int& x : b) x = int(rng() % 20);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      std::vector<int> want(na + nb), got(na + nb);
      std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
      // As the merge kernel: each output chunk of 8 starts from its own merge-path split.
      for (u64 d0 = 0; d0 < na + nb; d0 += 8) {
        u64 i = merge_path(a.data(), na, b.data(), nb, d0), j = d0 - i;
        for (u64 d = d0; d < std::min<u64>(d0 + 8, na + nb); ++d) {
          const bool take_a = j >= nb || (i < na && !(b[j] < a[i]));
          got[d] = take_a ? a[i++] : b[j++];
        }
      }
      ASSERT_EQ(got, want) << na << "+" << nb;
    }
  }
}

TEST(QuicksortIndex, PendingLaunchBoundIsClamped) {
  EXPECT_EQ(pending_launch_bound(100, 32, 2048, 1 << 18), 2048u);
  EXPECT_EQ(pending_launch_bound(u64(1) << 20, 32, 2048, 1 << 18), (u64(1) << 15) + 1);
  EXPECT_EQ(pending_launch_bound(u64(1) << 30, 32, 2048, 1 << 18), u64(1) << 18);
}

TEST(QuicksortRegistry, RegistersEveryVariantWithItsArityParameter) {
  Registry r;
  register_quicksort(r);
  for (const char* name : {"quick-seq-nodp", "quick-seq", "quick-prefix-nodp", "quick-prefix", "quick-pprefix",
                           "quick-direct", "merge-dp", "quick-fast", "quick-sample", "quick-sample-nodp"}) {
    const Algorithm* a = r.find(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a->family, "quicksort");
    EXPECT_FALSE(a->stable);
    if (std::string(name).rfind("quick-sample", 0) == 0)
      EXPECT_TRUE(a->params.empty());
    else if (std::string(name) == "quick-fast")
      EXPECT_EQ(a->params, (std::vector<std::string>{"arity", "smem_log2", "grid_log2"}));
    else if (std::string(name) != "merge-dp")
      EXPECT_EQ(a->params, std::vector<std::string>{"arity"}) << name;
  }
  SortProblem p;
  p.shape.n = std::uint64_t{1} << 20;
  p.params["arity"] = "3";
  EXPECT_TRUE(r.find("quick-direct")->why_unsupported(p).has_value());
  p.params["arity"] = "8";
  EXPECT_FALSE(r.find("quick-direct")->why_unsupported(p).has_value());
  p.shape.n = (std::uint64_t{1} << 22) + 1;
  EXPECT_TRUE(r.find("quick-seq")->why_unsupported(p).has_value());
  EXPECT_FALSE(r.find("quick-prefix")->why_unsupported(p).has_value());
  // quick-fast's leaf holds 2^smem_log2 keys twice in shared memory; grid splits stop at
  // 2^grid_log2 keys, never below the shared-memory leaves.
  const Algorithm* fast = r.find("quick-fast");
  p.params = {{"smem_log2", "14"}, {"grid_log2", "16"}};
  EXPECT_FALSE(fast->why_unsupported(p).has_value());
  p.params = {{"smem_log2", "15"}};
  EXPECT_TRUE(fast->why_unsupported(p).has_value());
  p.params = {{"smem_log2", "13"}, {"grid_log2", "12"}};
  EXPECT_TRUE(fast->why_unsupported(p).has_value());
  // 16-byte elements (u64 keys, u64 values): buffers of 2^13 elements would take 256 KiB.
  p.shape.key = KeyType::u64;
  p.shape.payload = Payload::u64;
  p.params = {{"smem_log2", "13"}};
  EXPECT_TRUE(fast->why_unsupported(p).has_value());
  p.params = {{"smem_log2", "12"}};
  EXPECT_FALSE(fast->why_unsupported(p).has_value());
  p.params = {};
  EXPECT_FALSE(fast->why_unsupported(p).has_value());  // the default fits every element
  EXPECT_EQ(fast->details(p)[1], (std::pair<std::string, std::string>{"smem_log2", "11"}));
}

// quick-fast takes every scalar key with every payload and says it is not stable (splits
// claim slots with atomics); the seed's variants keep the seed's 32-bit keys only.
TEST(QuicksortRegistry, DeclaresItsElementTypes) {
  Registry r;
  register_quicksort(r);
  for (const char* name : {"quick-fast", "quick-sample", "quick-sample-nodp"}) {
    const Algorithm* fast = r.find(name);
    ASSERT_NE(fast, nullptr);
    EXPECT_EQ(fast->key_types, key_types_of(ScalarKeys{})) << name;
    EXPECT_EQ(fast->payloads, payloads_of(AllValues{})) << name;
    for (Payload pl : all_payloads()) EXPECT_TRUE(fast->supports_payload(pl)) << to_string(pl);
    EXPECT_FALSE(fast->stable) << name;
  }
  for (const char* name : {"quick-seq-nodp", "quick-seq", "quick-prefix-nodp", "quick-prefix", "quick-pprefix",
                           "quick-direct", "merge-dp"}) {
    const Algorithm* a = r.find(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a->key_types, key_types_of(Keys32{})) << name;
    EXPECT_EQ(a->payloads, std::vector<Payload>{Payload::none}) << name;
  }
}

}  // namespace
}  // namespace sb::qs
