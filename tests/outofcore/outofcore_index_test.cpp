// CPU tests of the out-of-core family's arithmetic (issue 37; kernels/outofcore/outofcore_index.hpp):
// the chunk plans, the streamed H-P's histogram-to-output marks with runs of equal keys that
// cross chunk edges, and the multi-sequence selection of the run-merge sort, each checked by a
// model of the whole path against std::stable_sort.
#include <algorithm>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "outofcore/outofcore_index.hpp"

namespace sb::ooc {
namespace {

TEST(OocPlan, HpStreamFitsItsMemoryAndShrinksItsChunksWithIt) {
  const u64 n = u64{1} << 33, bins = n / 50;
  const HpStreamPlan big = plan_hp_stream(n, 4, bins, 1 << 20, u64{8} << 30);
  ASSERT_GT(big.chunk, 0u);
  EXPECT_LE(big.device_bytes, u64{8} << 30);
  EXPECT_LE(big.chunk * 4, kMaxChunkBytes);
  EXPECT_EQ(big.count_bytes, 8u);  // 2^33 keys: a bin may hold more than 2^32 - 1
  EXPECT_EQ(big.chunks, chunks_of(n, big.chunk));
  EXPECT_GE(big.hist_bytes, (bins + 1) * 8);
  const HpStreamPlan small = plan_hp_stream(n, 4, bins, 1 << 20, big.hist_bytes + (u64{64} << 20));
  ASSERT_GT(small.chunk, 0u);
  EXPECT_LT(small.chunk, big.chunk);
  EXPECT_LE(small.device_bytes, big.hist_bytes + (u64{64} << 20));
  // A histogram larger than the memory: no plan, and the least it would take.
  const HpStreamPlan none = plan_hp_stream(n, 4, bins, 1 << 20, big.hist_bytes / 2);
  EXPECT_EQ(none.chunk, 0u);
  EXPECT_GT(none.device_bytes, big.hist_bytes);
  EXPECT_EQ(plan_hp_stream(1000, 4, 10, 0, u64{1} << 30).count_bytes, 4u);
}

// A smaller cap (--param chunk_mib, or the profile's measured chunk) is the largest chunk
// planned where the memory would allow more; a cap larger than the memory allows changes nothing.
TEST(OocPlan, HpStreamTakesNoLargerChunkThanItsCap) {
  const u64 n = u64{1} << 30, bins = n / 64;
  const HpStreamPlan capped = plan_hp_stream(n, 4, bins, 1 << 20, u64{8} << 30, u64{32} << 20);
  EXPECT_EQ(capped.chunk * 4, u64{32} << 20);
  EXPECT_EQ(capped.chunks, 128u);
  const HpStreamPlan tight = plan_hp_stream(n, 4, bins, 1 << 20, capped.hist_bytes + (u64{64} << 20));
  EXPECT_EQ(plan_hp_stream(n, 4, bins, 1 << 20, capped.hist_bytes + (u64{64} << 20), u64{1} << 32).chunk,
            tight.chunk);
  EXPECT_LT(tight.chunk * 4, u64{32} << 20);
}

TEST(OocPlan, SmallInputsTakeOneChunkOfTheirOwnSize) {
  const HpStreamPlan p = plan_hp_stream(1000, 8, 100, 0, u64{1} << 30);
  EXPECT_EQ(p.chunks, 1u);
  EXPECT_GE(p.chunk, 1000u);
  EXPECT_LT(p.chunk, 2000u);
  const HpStreamPlan empty = plan_hp_stream(0, 4, 1, 0, u64{1} << 20);
  EXPECT_EQ(empty.chunks, 0u);
}

TEST(OocPlan, RunSortTakesTheLargestChunkThatFits) {
  auto temp = [](u64 chunk) { return chunk / 4 + 4096; };
  const RunSortPlan p = plan_run_sort(u64{1} << 32, 8, u64{8} << 30, u64{2} << 30, temp);
  ASSERT_GT(p.chunk, 0u);
  EXPECT_LE((kSlots + 1) * p.slot_bytes + p.temp_bytes, u64{8} << 30);
  // Twice the chunk would not have fitted.
  EXPECT_GT((kSlots + 1) * align_up(2 * p.chunk * 8) + align_up(temp(2 * p.chunk)), u64{8} << 30);
  EXPECT_EQ(p.runs, chunks_of(u64{1} << 32, p.chunk));
  const RunSortPlan none = plan_run_sort(u64{1} << 32, 8, 1 << 20, u64{2} << 30, temp);
  EXPECT_EQ(none.chunk, 0u);
  EXPECT_GT(none.device_bytes, u64{1} << 20);
}

// The streamed H-P's output pass on the CPU: the histogram's scan, each chunk's first bins, the
// marks and the max-scan, for chunk sizes that split runs of equal keys.
std::vector<u64> streamed_hp_model(const std::vector<u64>& keys, u64 min_key, u64 bins, u64 chunk) {
  const u64 n = keys.size();
  std::vector<u64> offsets(bins + 1, 0);
  for (u64 k : keys) ++offsets[k - min_key];
  u64 sum = 0;
  for (auto& o : offsets) o = std::exchange(sum, sum + o);
  const u64 chunks = chunks_of(n, chunk);
  std::vector<u64> table(chunks + 1);
  for (u64 c = 0; c < chunks; ++c) table[c] = bin_holding(offsets.data(), bins, c * chunk);
  table[chunks] = bins - 1;
  std::vector<u64> out;
  for (u64 c = 0; c < chunks; ++c) {
    const u64 first = c * chunk, size = std::min(chunk, n - first);
    std::vector<std::uint32_t> marks(size, 0);
    for (u64 b = table[c]; b <= table[c + 1]; ++b) {
      u64 local = 0;
      if (run_mark_in_chunk(offsets[b], offsets[b + 1] - offsets[b], first, size, local)) marks[local] = b - table[c];
    }
    std::uint32_t m = 0;
    for (u64 i = 0; i < size; ++i) {
      m = std::max(m, marks[i]);
      out.push_back(min_key + table[c] + m);
    }
  }
  return out;
}

TEST(OocHpModel, ChunksThatSplitRunsOfEqualKeysGiveTheSortedInput) {
  std::mt19937_64 rng(7);
  for (u64 bins : {1u, 2u, 5u, 64u, 1000u}) {
    for (u64 n : {1u, 2u, 7u, 100u, 999u}) {
      std::vector<u64> keys(n);
      for (auto& k : keys) k = 1000 + rng() % bins;
      keys[0] = 1000;  // the realized range is [1000, 1000 + bins)
      if (n > 1) keys[1] = 1000 + bins - 1;
      std::vector<u64> sorted = keys;
      std::sort(sorted.begin(), sorted.end());
      for (u64 chunk : {u64{1}, u64{3}, u64{7}, u64{64}, n}) {
        EXPECT_EQ(streamed_hp_model(keys, 1000, bins, chunk), sorted) << "bins " << bins << " n " << n << " chunk " << chunk;
      }
    }
  }
}

TEST(OocHpModel, OneRunAcrossEveryChunkAndEmptyBinsBetweenRuns) {
  std::vector<u64> keys(100, 5);
  keys.push_back(0);
  keys.push_back(9);  // bins 1..4 and 6..8 stay empty
  std::vector<u64> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (u64 chunk : {1u, 2u, 10u, 33u, 101u, 102u}) EXPECT_EQ(streamed_hp_model(keys, 0, 10, chunk), sorted);
}

TEST(OocHpModel, RunMarkOnlyWhereTheRunTouchesTheChunk) {
  u64 local = 99;
  EXPECT_FALSE(run_mark_in_chunk(10, 0, 0, 100, local));   // empty bin
  EXPECT_FALSE(run_mark_in_chunk(10, 5, 15, 10, local));   // ends where the chunk begins
  EXPECT_FALSE(run_mark_in_chunk(25, 5, 15, 10, local));   // begins where the chunk ends
  ASSERT_TRUE(run_mark_in_chunk(10, 6, 15, 10, local));    // began before: the chunk's first position
  EXPECT_EQ(local, 0u);
  ASSERT_TRUE(run_mark_in_chunk(20, 100, 15, 10, local));  // begins inside
  EXPECT_EQ(local, 5u);
}

// The run-merge sort on the CPU: sorted runs, cuts at every bucket boundary, each bucket's
// pieces in run order sorted stably: the stable sort of the whole.
using Pair = std::pair<u64, u64>;  // key, input position
std::vector<Pair> run_merge_model(const std::vector<Pair>& input, u64 chunk) {
  const u64 n = input.size(), runs = chunks_of(n, chunk);
  std::vector<Pair> runs_data = input;
  auto by_key = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  for (u64 r = 0; r < runs; ++r)
    std::stable_sort(runs_data.begin() + r * chunk, runs_data.begin() + std::min(n, (r + 1) * chunk), by_key);
  std::vector<u64> sizes(runs);
  for (u64 r = 0; r < runs; ++r) sizes[r] = std::min(chunk, n - r * chunk);
  auto key_at = [&](std::size_t i, u64 j) { return runs_data[i * chunk + j].first; };
  u64 lo = ~u64{0}, hi = 0;
  for (const auto& p : input) lo = std::min(lo, p.first), hi = std::max(hi, p.first);
  std::vector<std::vector<u64>> cuts(runs + 1);
  cuts[0].assign(runs, 0);
  cuts[runs] = sizes;
  for (u64 j = 1; j < runs; ++j) {
    cuts[j] = split_runs(j * chunk, sizes, lo, hi, key_at);
    EXPECT_EQ(std::accumulate(cuts[j].begin(), cuts[j].end(), u64{0}), j * chunk);
  }
  std::vector<Pair> out;
  for (u64 j = 0; j < runs; ++j) {
    std::vector<Pair> bucket;
    for (u64 i = 0; i < runs; ++i) {
      EXPECT_LE(cuts[j][i], cuts[j + 1][i]);
      for (u64 e = cuts[j][i]; e < cuts[j + 1][i]; ++e) bucket.push_back(runs_data[i * chunk + e]);
    }
    EXPECT_EQ(bucket.size(), std::min(chunk, n - j * chunk));
    std::stable_sort(bucket.begin(), bucket.end(), by_key);
    out.insert(out.end(), bucket.begin(), bucket.end());
  }
  return out;
}

TEST(OocRunMerge, BucketsOfExactSizeKeepEqualKeysInInputOrder) {
  std::mt19937_64 rng(11);
  for (u64 distinct : {1u, 2u, 3u, 50u, 100000u}) {
    for (u64 n : {1u, 5u, 64u, 1000u}) {
      std::vector<Pair> input(n);
      for (u64 i = 0; i < n; ++i) input[i] = {rng() % distinct, i};
      std::vector<Pair> expected = input;
      std::stable_sort(expected.begin(), expected.end(), [](const Pair& a, const Pair& b) { return a.first < b.first; });
      for (u64 chunk : {u64{1}, u64{3}, u64{16}, u64{333}, n})
        EXPECT_EQ(run_merge_model(input, chunk), expected) << "distinct " << distinct << " n " << n << " chunk " << chunk;
    }
  }
}

TEST(OocRunMerge, SelectionAtTheDomainsEnds) {
  // Keys at 0 and 2^64 - 1: the search over the whole ordered domain must not overflow.
  const u64 top = ~u64{0};
  std::vector<u64> a = {0, 0, top}, b = {0, top, top};
  std::vector<u64> sizes = {3, 3};
  auto key_at = [&](std::size_t i, u64 j) { return i == 0 ? a[j] : b[j]; };
  EXPECT_EQ(split_runs(0, sizes, 0, top, key_at), (std::vector<u64>{0, 0}));
  EXPECT_EQ(split_runs(2, sizes, 0, top, key_at), (std::vector<u64>{2, 0}));  // equal keys: run 0 first
  EXPECT_EQ(split_runs(3, sizes, 0, top, key_at), (std::vector<u64>{2, 1}));
  EXPECT_EQ(split_runs(4, sizes, 0, top, key_at), (std::vector<u64>{3, 1}));
  EXPECT_EQ(split_runs(6, sizes, 0, top, key_at), (std::vector<u64>{3, 3}));
}

}  // namespace
}  // namespace sb::ooc
