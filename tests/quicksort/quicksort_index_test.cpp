// CPU tests of the quicksort family's index arithmetic (kernels/quicksort/quicksort_index.hpp):
// CPU sorts built only from it (K-way quicksort as the kernels split, padded bitonic sort,
// merge-path merge sort) against std::sort on inputs that break naive quicksort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "quicksort_index.hpp"
#include "sortbench/registry.hpp"

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

// quick-fast's leaf radix sorts look only at the bits below the common prefix of the
// smallest and largest key: the radix order must be the key order, and invertible.
template <typename T>
void expect_radix_order(std::vector<T> keys) {
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(from_radix_order_bits<T>(radix_order_bits(keys[i])), keys[i]);
    if (i > 0 && keys[i - 1] < keys[i]) EXPECT_LT(radix_order_bits(keys[i - 1]), radix_order_bits(keys[i])) << i;
  }
}

TEST(QuicksortIndex, RadixOrderBitsFollowTheKeyOrder) {
  expect_radix_order<std::uint32_t>({0u, 1u, 7u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu});
  expect_radix_order<std::int32_t>({INT32_MIN, -70000, -1, 0, 1, 5, INT32_MAX});
  expect_radix_order<float>({-16777216.0f, -2.5f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f, 16777216.0f});
  EXPECT_EQ(differing_low_bits(5, 5), 0);
  EXPECT_EQ(differing_low_bits(4, 5), 1);
  EXPECT_EQ(differing_low_bits(0x1000, 0x1FFF), 12);
  EXPECT_EQ(differing_low_bits(0, 0xFFFFFFFFu), 32);
  // Every key between lo and hi keeps lo's bits above the differing ones.
  const std::uint32_t lo = 0x00ABC123u, hi = 0x00ABF000u;
  const int bits = differing_low_bits(lo, hi);
  for (std::uint32_t x = lo; x <= hi; x += 97) EXPECT_EQ(x >> bits, lo >> bits);
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
                           "quick-direct", "merge-dp", "quick-fast"}) {
    const Algorithm* a = r.find(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a->family, "quicksort");
    EXPECT_FALSE(a->stable);
    if (std::string(name) == "quick-fast")
      EXPECT_EQ(a->params, (std::vector<std::string>{"arity", "smem_log2", "grid_log2"}));
    else if (std::string(name) != "merge-dp")
      EXPECT_EQ(a->params, std::vector<std::string>{"arity"}) << name;
  }
  SortProblem p;
  p.spec.n = std::uint64_t{1} << 20;
  p.params["arity"] = "3";
  EXPECT_TRUE(r.find("quick-direct")->why_unsupported(p).has_value());
  p.params["arity"] = "8";
  EXPECT_FALSE(r.find("quick-direct")->why_unsupported(p).has_value());
  p.spec.n = (std::uint64_t{1} << 22) + 1;
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
}

}  // namespace
}  // namespace sb::qs
