// CPU tests of dist-hp's payload path (issue 38; kernels/distributed/dist_hp_pairs.cu): the
// boundary bins found from the global histogram (record_boundary_bin, the scan's per-bin step)
// and the exact cuts of every rank's sorted run (hp_pair_send_counts), simulated on the host
// for G ranks and checked against std::stable_sort of the whole input: every destination gets
// exactly its slice, the pieces concatenate to the global order, equal keys keep their input
// order; and the counts stay exact past 2^32 elements. The split-first path of two ranks
// (issue 50) too: each rank's counts from its own histogram, the split of its unsorted slice
// planned by two_way_split and done part by part around the boundary key (boundary_key_slot),
// own piece first (own_first_place), the pieces sent from destination_slot's places.
#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/dist_index.hpp"

namespace sb::dist {
namespace {

using u64 = std::uint64_t;

// The boundary bins of a global histogram as the device scan finds them: every non-empty bin
// told its [begin, end).
void boundary_bins(const std::vector<u64>& histogram, u64 n, u64 world, std::vector<u64>& bins,
                   std::vector<u64>& starts) {
  bins.assign(world - 1, ~u64{0});
  starts.assign(world - 1, ~u64{0});
  u64 end = 0;
  for (u64 b = 0; b < histogram.size(); ++b) {
    end += histogram[b];
    if (histogram[b]) record_boundary_bin(b, end - histogram[b], end, n, world, bins.data(), starts.data());
  }
}

TEST(DistHpPairs, FirstBoundaryFromIsTheSmallestNotBelow) {
  for (u64 world : {2, 3, 4, 7, 8}) {
    for (u64 n : {u64{1}, u64{3}, u64{10}, u64{1001}, (u64{1} << 40) + 3}) {
      for (u64 pos : {u64{0}, u64{1}, n / 3, n / 2, n - 1, n}) {
        u64 expect = world;
        for (u64 d = world - 1; d >= 1; --d)
          if (slice_begin(d, n, world) >= pos) expect = d;
        EXPECT_EQ(first_boundary_from(pos, n, world), expect) << "pos " << pos << " n " << n << " G " << world;
      }
    }
  }
}

TEST(DistHpPairs, EveryBoundaryFindsTheBinHoldingIt) {
  std::mt19937_64 rng(38);
  for (u64 world : {2, 3, 4, 8}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<u64> histogram(1 + rng() % 40);
      for (auto& c : histogram) c = rng() % 3 == 0 ? 0 : rng() % 20;  // empty bins among them
      histogram[rng() % histogram.size()] += 1;                          // n > 0
      u64 n = 0;
      for (u64 c : histogram) n += c;
      std::vector<u64> bins, starts;
      boundary_bins(histogram, n, world, bins, starts);
      for (u64 d = 1; d < world; ++d) {
        // Reference: walk the bins to the one whose [start, end) holds the boundary.
        const u64 boundary = slice_begin(d, n, world);
        u64 start = 0, b = 0;
        while (start + histogram[b] <= boundary) start += histogram[b++];
        EXPECT_EQ(bins[d - 1], b) << "boundary " << d << " of " << world << ", n " << n;
        EXPECT_EQ(starts[d - 1], start);
      }
    }
  }
}

// An element on its way: its key and its global input position (the value it carries).
using Pair = std::pair<std::uint32_t, u64>;

// dist-hp's payload path on the host: each rank's slice stably sorted, the global histogram,
// the boundary bins, each rank's (below, in bin) counts by binary search, hp_pair_send_counts,
// the exchange in rank order and a merge that takes lower ranks first among equal keys.
std::vector<std::vector<Pair>> simulate(const std::vector<std::uint32_t>& keys, u64 world, u64 range) {
  const u64 n = keys.size();
  auto by_key = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  std::vector<std::vector<Pair>> runs(world);
  std::vector<u64> histogram(range, 0);
  for (u64 q = 0; q < world; ++q) {
    for (u64 i = slice_begin(q, n, world); i < slice_begin(q + 1, n, world); ++i) runs[q].push_back({keys[i], i});
    std::stable_sort(runs[q].begin(), runs[q].end(), by_key);
    for (const Pair& e : runs[q]) ++histogram[e.first];
  }
  std::vector<u64> bins, starts;
  boundary_bins(histogram, n, world, bins, starts);
  const u64 bounds = world - 1;
  std::vector<u64> below(world * bounds), in_bin(world * bounds);
  for (u64 q = 0; q < world; ++q)
    for (u64 d = 0; d < bounds; ++d) {
      const auto key = static_cast<std::uint32_t>(bins[d]);
      const auto lo = std::lower_bound(runs[q].begin(), runs[q].end(), Pair{key, 0}, by_key);
      const auto hi = std::upper_bound(runs[q].begin(), runs[q].end(), Pair{key, 0}, by_key);
      below[q * bounds + d] = lo - runs[q].begin();
      in_bin[q * bounds + d] = hi - lo;
    }
  std::vector<u64> counts(world * world);
  hp_pair_send_counts(n, world, starts.data(), below.data(), in_bin.data(), counts.data());
  std::vector<std::vector<Pair>> received(world);
  for (u64 q = 0; q < world; ++q) {
    u64 at = 0;
    for (u64 d = 0; d < world; ++d) {
      received[d].insert(received[d].end(), runs[q].begin() + at, runs[q].begin() + at + counts[q * world + d]);
      at += counts[q * world + d];
    }
    EXPECT_EQ(at, runs[q].size()) << "rank " << q << " sends its whole run";
  }
  for (auto& r : received) std::stable_sort(r.begin(), r.end(), by_key);  // runs arrive in rank order
  return received;
}

// The split-first path of two ranks on the host: the global histogram, the boundary bin, each
// rank's counts below and in it from its own histogram, hp_pair_send_counts; each rank's split
// planned by two_way_split (its own piece where the host's cut says) and done as CUB's
// three-way partition does it: the elements below the boundary key, equal to it and above it
// (boundary_key_slot), each part in input order, at own_first_place; the piece for rank d sent
// from partition_slot_begin's slot for d; each destination sorts what it holds stably, lower
// ranks' pieces first.
// ranks: the split writes each key's rank among the present keys (present_bin and friends),
// the destinations sort on it, and the ranks map back to keys at the end.
std::vector<std::vector<Pair>> simulate_split_first_on(const std::vector<std::uint32_t>& keys, u64 world, u64 range,
                                                       bool ranks) {
  EXPECT_EQ(world, 2u) << "split first runs on two ranks";
  const u64 n = keys.size();
  std::vector<std::vector<u64>> local(world, std::vector<u64>(range, 0));
  std::vector<u64> histogram(range, 0);
  for (u64 i = 0; i < n; ++i) {
    for (u64 q = 0; q < world; ++q)
      if (i >= slice_begin(q, n, world) && i < slice_begin(q + 1, n, world)) ++local[q][keys[i]];
    ++histogram[keys[i]];
  }
  std::vector<u64> bins, starts;
  boundary_bins(histogram, n, world, bins, starts);
  // The all-gathered words' counts: each rank's (below, in bin).
  std::vector<u64> around(2 * world, 0), below(world), in_bin(world);
  for (u64 q = 0; q < world; ++q) {
    for (u64 b = 0; b < bins[0]; ++b) around[2 * q] += local[q][b];
    around[2 * q + 1] = local[q][bins[0]];
    below[q] = around[2 * q];
    in_bin[q] = around[2 * q + 1];
  }
  std::vector<u64> counts(world * world);
  hp_pair_send_counts(n, world, starts.data(), below.data(), in_bin.data(), counts.data());
  const u64 min_ordered = 0;  // u32 keys from 0: bin b is key b
  std::vector<std::uint32_t> present_through(range), bin_of_rank(range, ~0u);
  for (u64 b = 0; b < range; ++b) present_through[b] = (b ? present_through[b - 1] : 0u) + (histogram[b] != 0);
  for (u64 b = 0; b < range; ++b) record_present_bin(present_through.data(), b, bin_of_rank.data());
  std::vector<std::vector<Pair>> received(world);
  for (u64 q = 0; q < world; ++q) {
    const u64 begin = slice_begin(q, n, world), count = slice_size(q, n, world);
    const TwoWaySplit plan = two_way_split(n, std::uint32_t(q), bins[0], starts[0], around.data(), min_ordered, count);
    EXPECT_EQ(plan.own_begin, q == 0 ? 0 : counts[q * world]) << "rank " << q << " of n " << n;
    u64 next[3] = {0, plan.below, plan.below + plan.equal};  // each slot's next place in key order
    std::vector<Pair> split(count);
    std::vector<bool> taken(count, false);
    for (u64 i = begin; i < begin + count; ++i) {
      const std::uint32_t slot = boundary_key_slot(keys[i], &plan.key, 1);
      const u64 place = own_first_place(next[slot]++, plan.own_begin, count);
      EXPECT_FALSE(taken[place]) << "two elements at " << place;
      taken[place] = true;
      split[place] = {ranks ? present_through[keys[i]] - 1 : keys[i], i};
    }
    EXPECT_EQ(next[0], plan.below) << "rank " << q << ": the elements below the key";
    EXPECT_EQ(next[1], plan.below + plan.equal) << "rank " << q << ": the elements equal to it";
    EXPECT_EQ(next[2], count);
    const std::vector<u64> piece_begin = partition_slot_begin(counts, int(q), int(world));
    for (u64 d = 0; d < world; ++d) {
      const u64 at = piece_begin[destination_slot(std::uint32_t(d), std::uint32_t(q), std::uint32_t(world))];
      received[d].insert(received[d].end(), split.begin() + at, split.begin() + at + counts[q * world + d]);
    }
  }
  auto by_key = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  for (auto& r : received) std::stable_sort(r.begin(), r.end(), by_key);  // pieces arrive in rank order
  if (ranks)
    for (auto& r : received)
      for (Pair& e : r) e.first = bin_of_rank[e.first];
  return received;
}

std::vector<std::vector<Pair>> simulate_split_first(const std::vector<std::uint32_t>& keys, u64 world, u64 range) {
  return simulate_split_first_on(keys, world, range, false);
}
std::vector<std::vector<Pair>> simulate_split_first_ranks(const std::vector<std::uint32_t>& keys, u64 world,
                                                          u64 range) {
  return simulate_split_first_on(keys, world, range, true);
}

// Either path (sort first: simulate; split first: simulate_split_first) on one input.
using Simulation = std::vector<std::vector<Pair>> (*)(const std::vector<std::uint32_t>&, u64, u64);

void check_exact_and_stable(Simulation simulate_path, const std::vector<std::uint32_t>& keys, u64 world, u64 range,
                            const char* what) {
  const u64 n = keys.size();
  const auto received = simulate_path(keys, world, range);
  std::vector<Pair> expect, got;
  for (u64 i = 0; i < n; ++i) expect.push_back({keys[i], i});
  std::stable_sort(expect.begin(), expect.end(), [](const Pair& a, const Pair& b) { return a.first < b.first; });
  for (u64 d = 0; d < world; ++d) {
    EXPECT_EQ(received[d].size(), slice_size(d, n, world)) << what << ": rank " << d << " of " << world << ", n " << n;
    got.insert(got.end(), received[d].begin(), received[d].end());
  }
  // The values (input positions) too: a value apart from its key, or equal keys out of input
  // order, differ here.
  EXPECT_EQ(got, expect) << what << ", G " << world << ", n " << n;
}

// Every G and n of the tests over uniform keys, all keys equal, and few distinct keys, the first
// far more often (zipf-like: boundaries inside one bin).
void check_every_input(Simulation simulate_path, unsigned seed, const std::vector<u64>& worlds = {2, 3, 4, 8}) {
  std::mt19937 rng(seed);
  for (u64 world : worlds) {
    for (u64 n : {u64{1}, u64{2}, u64{3}, u64{5}, u64{97}, u64{1000}, u64{20011}}) {
      std::vector<std::uint32_t> keys(n);
      for (auto& k : keys) k = rng() % 1000;
      check_exact_and_stable(simulate_path, keys, world, 1000, "uniform");
      for (auto& k : keys) k = 7;
      check_exact_and_stable(simulate_path, keys, world, 8, "all keys equal");
      for (auto& k : keys) k = rng() % 4 == 0 ? rng() % 5 : 0;
      check_exact_and_stable(simulate_path, keys, world, 5, "few distinct");
    }
  }
}

TEST(DistHpPairs, BoundaryKeySlotsLieInKeyOrder) {
  const std::vector<u64> boundary{3, 7, 8};
  // Keys 0..10: below 3, at 3, between, at 7, at 8, above.
  const std::uint32_t expect[] = {0, 0, 0, 1, 2, 2, 2, 3, 5, 6, 6};
  for (u64 key = 0; key <= 10; ++key)
    EXPECT_EQ(boundary_key_slot(key, boundary.data(), 3), expect[key]) << "key " << key;
  EXPECT_EQ(boundary_key_slot(5, boundary.data(), 0), 0u);  // no boundary key: one slot
  // Own piece first: a rank whose piece starts at 4 of 10 puts places 4..9 at 0..5, then 0..3.
  for (u64 at = 0; at < 10; ++at) EXPECT_EQ(own_first_place(at, 4, 10), at >= 4 ? at - 4 : at + 6);
}

TEST(DistHpPairs, SplitFirstGivesEveryRankItsSliceInStableOrder) {
  check_every_input(simulate_split_first, 50, {2});
}

TEST(DistHpPairs, SplitFirstOnThePresentKeysRanksToo) { check_every_input(simulate_split_first_ranks, 51, {2}); }

TEST(DistHpPairs, PresentKeysRankInKeyOrder) {
  // Bins 0..7 with keys at 1, 2, 5 and 7.
  const std::uint32_t present_through[] = {0, 1, 2, 2, 2, 3, 3, 4};
  std::vector<std::uint32_t> bin_of_rank(4, ~0u);
  for (u64 b = 0; b < 8; ++b) {
    EXPECT_EQ(present_bin(present_through, b), b == 1 || b == 2 || b == 5 || b == 7) << "bin " << b;
    record_present_bin(present_through, b, bin_of_rank.data());
  }
  EXPECT_EQ(bin_of_rank, (std::vector<std::uint32_t>{1, 2, 5, 7}));
  const std::uint32_t first_present[] = {1, 1, 2};  // bin 0 present
  EXPECT_TRUE(present_bin(first_present, 0));
  EXPECT_FALSE(present_bin(first_present, 1));
}

TEST(DistHpPairs, PresentKeysRankOnFewerPassesOnly) {
  // 2^26 pairs at delta = sigma = 50: 26,844 present keys in 1,342,177 bins (21 bits, 3 passes).
  EXPECT_EQ(present_rank_bits(26844, 21), 15);
  EXPECT_EQ(present_rank_bits(1u << 16, 21), 16);        // ranks 0 .. 2^16 - 1: 16 bits
  EXPECT_EQ(present_rank_bits((1u << 16) + 1, 21), 0);  // 17 bits: three passes, as the range's
  EXPECT_EQ(present_rank_bits(200, 16), 8);
  EXPECT_EQ(present_rank_bits(300, 16), 0);
  EXPECT_EQ(present_rank_bits(1, 21), 0);  // one key: nothing to sort
  // Up to 16 bits the ranks travel in two bytes; none (0) are the keys themselves.
  EXPECT_TRUE(ranks_in_two_bytes(15) && ranks_in_two_bytes(16));
  EXPECT_FALSE(ranks_in_two_bytes(17) || ranks_in_two_bytes(0));
  EXPECT_TRUE(present_ranks_worth_counting(1342177, u64{1} << 25, 21));
  EXPECT_FALSE(present_ranks_worth_counting(u64{1} << 26, u64{1} << 25, 26));  // more bins than keys
  EXPECT_FALSE(present_ranks_worth_counting(200, 1000, 8));                    // one pass already
}

TEST(DistHpPairs, RanksGetExactlyTheirSliceInStableOrder) { check_every_input(simulate, 15); }

TEST(DistHpPairs, CountsStayExactPastTwoToThe32) {
  // One bin holding all n > 2^32 elements: the cuts fall inside it by rank prefix alone.
  for (u64 world : {2, 3, 4, 8}) {
    const u64 n = (u64{1} << 34) + 5;
    const u64 bounds = world - 1;
    std::vector<u64> starts(bounds, 0), below(world * bounds, 0), in_bin(world * bounds);
    for (u64 q = 0; q < world; ++q)
      for (u64 d = 0; d < bounds; ++d) in_bin[q * bounds + d] = slice_size(q, n, world);
    std::vector<u64> counts(world * world);
    hp_pair_send_counts(n, world, starts.data(), below.data(), in_bin.data(), counts.data());
    for (u64 d = 0; d < world; ++d) {
      u64 column = 0, row = 0;
      for (u64 q = 0; q < world; ++q) column += counts[q * world + d], row += counts[d * world + q];
      EXPECT_EQ(column, slice_size(d, n, world)) << "destination " << d << " of " << world;
      EXPECT_EQ(row, slice_size(d, n, world)) << "source " << d << " of " << world;
    }
    // All keys equal: every rank keeps its own slice (the global order is the input order).
    for (u64 q = 0; q < world; ++q) EXPECT_EQ(counts[q * world + q], slice_size(q, n, world));
  }
}

}  // namespace
}  // namespace sb::dist
