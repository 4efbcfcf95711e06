// CPU tests of the partition-first sample sort's arithmetic (issue 38, item 6;
// kernels/distributed/dist_index.hpp): the destination of an element among splitters in the
// (key, rank, index-in-slice) order, ties included; the splitter selection against a full sort;
// and the whole split simulated on the host (stratified samples of unsorted slices, splitters,
// destinations) for random, all-equal and few-distinct inputs on G = 2, 3, 4: every element has
// one destination, the destinations follow the global order (so the received parts, sorted and
// concatenated, are the sorted input), and no destination passes the receive capacity.
#include <algorithm>
#include <cstring>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/dist_index.hpp"
#include "sortbench/algo/peer_transfer.hpp"

namespace sb::dist {
namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;

TEST(DistPartition, DestinationBreaksTiesByRankThenIndex) {
  const Splitter one[] = {{5, 1, 7}};
  EXPECT_EQ(destination_of(4, 3, 99, one, 1), 0u);   // smaller key: below, whatever its rank
  EXPECT_EQ(destination_of(6, 0, 0, one, 1), 1u);    // larger key: above
  EXPECT_EQ(destination_of(5, 0, 100, one, 1), 0u);  // equal key, earlier rank: below
  EXPECT_EQ(destination_of(5, 2, 0, one, 1), 1u);    // equal key, later rank: above
  EXPECT_EQ(destination_of(5, 1, 6, one, 1), 0u);    // the splitter's rank, earlier index: below
  EXPECT_EQ(destination_of(5, 1, 7, one, 1), 1u);    // the splitter's own element opens its destination
  EXPECT_EQ(destination_of(5, 1, 8, one, 1), 1u);
  // Three splitters of one key (G = 4): the equal keys split by rank and index.
  const Splitter three[] = {{9, 0, 50}, {9, 1, 10}, {9, 1, 20}};
  EXPECT_EQ(destination_of(9, 0, 49, three, 3), 0u);
  EXPECT_EQ(destination_of(9, 0, 50, three, 3), 1u);
  EXPECT_EQ(destination_of(9, 1, 9, three, 3), 1u);
  EXPECT_EQ(destination_of(9, 1, 15, three, 3), 2u);
  EXPECT_EQ(destination_of(9, 1, 20, three, 3), 3u);
  EXPECT_EQ(destination_of(9, 2, 0, three, 3), 3u);
  EXPECT_EQ(destination_of(8, 3, 0, three, 3), 0u);
  // An empty rank's splitter (rank = world) lies after every real element, the largest key's too.
  const Splitter empty[] = {{~u64{0}, 2, ~u64{0}}};
  EXPECT_EQ(destination_of(~u64{0}, 1, ~u64{0} - 1, empty, 1), 0u);
}

TEST(DistPartition, OwnPartTakesTheFirstSlot) {
  for (u32 world : {2u, 3u, 8u}) {
    for (u32 me = 0; me < world; ++me) {
      EXPECT_EQ(destination_slot(me, me, world), 0u);
      std::vector<bool> used(world, false);
      for (u32 d = 0; d < world; ++d) {
        const u32 s = destination_slot(d, me, world);
        ASSERT_LT(s, world);
        EXPECT_FALSE(used[s]) << "slot " << s << " twice";
        used[s] = true;
      }
    }
  }
}

// split_in_two's arithmetic on the host: tiles of groups of 32 lanes, each group's front and
// back counts packed into one word and scanned, each tile's bases taken in an arbitrary order
// (the atomic adds race): every element gets its own place, the front ones [0, front), the
// back ones [front, count).
TEST(DistPartition, SplitInTwoPlacesEveryElementOnceAtItsEnd) {
  std::mt19937_64 rng(7);
  for (u64 count : {u64{1}, u64{31}, u64{4096}, u64{4097}, u64{100000}}) {
    for (double p_front : {0.0, 0.3, 0.5, 1.0}) {
      const u64 tile = 4096, group = 32;
      std::vector<bool> front(count);
      std::bernoulli_distribution coin(p_front);
      for (u64 i = 0; i < count; ++i) front[i] = coin(rng);
      const u64 tiles = (count + tile - 1) / tile;
      std::vector<u64> order(tiles);
      for (u64 t = 0; t < tiles; ++t) order[t] = t;
      std::shuffle(order.begin(), order.end(), rng);
      u64 ends[2] = {0, 0};
      std::vector<u64> place(count, ~u64{0});
      for (u64 t : order) {
        const u64 begin = t * tile, end = std::min(count, begin + tile);
        std::vector<u32> prefix;  // exclusive scan of the groups' packed counts
        u32 running = 0;
        for (u64 g = begin; g < end; g += group) {
          u32 f = 0, b = 0;
          for (u64 i = g; i < std::min(end, g + group); ++i) (front[i] ? f : b) += 1;
          prefix.push_back(running);
          running += pack_ends(f, b);
        }
        const u64 base_front = ends[0], base_back = ends[1];
        ends[0] += front_of(running);
        ends[1] += back_of(running);
        for (u64 g = begin, k = 0; g < end; g += group, ++k) {
          u32 below_front = 0, below_back = 0;
          for (u64 i = g; i < std::min(end, g + group); ++i) {
            const bool f = front[i];
            const u64 taken = f ? base_front + front_of(prefix[k]) + below_front++
                                : base_back + back_of(prefix[k]) + below_back++;
            place[i] = two_way_place(f, taken, count);
          }
        }
      }
      ASSERT_EQ(ends[0] + ends[1], count);
      std::vector<bool> used(count, false);
      for (u64 i = 0; i < count; ++i) {
        ASSERT_LT(place[i], count) << "count " << count << " element " << i;
        ASSERT_FALSE(used[place[i]]) << "place " << place[i] << " twice";
        used[place[i]] = true;
        if (front[i]) EXPECT_LT(place[i], ends[0]);
        else EXPECT_GE(place[i], ends[0]);
      }
    }
  }
}

TEST(DistPartition, EndsPackIntoOneWord) {
  EXPECT_EQ(front_of(pack_ends(32, 0)), 32u);
  EXPECT_EQ(back_of(pack_ends(0, 32)), 32u);
  // A tile's totals at both ends add without carrying into each other.
  u32 sum = 0;
  for (int g = 0; g < 256; ++g) sum += pack_ends(g % 2 ? 32 : 7, g % 2 ? 0 : 25);
  EXPECT_EQ(front_of(sum), 128u * 32 + 128u * 7);
  EXPECT_EQ(back_of(sum), 128u * 25);
}

TEST(DistPartition, StratifiedSamplesStayInTheirStrata) {
  for (u64 m : {u64{1}, u64{5}, u64{1000}, u64{123457}, u64{1} << 33}) {
    const u64 samples = 64;
    u64 previous = 0;
    for (u64 j = 0; j < samples; ++j) {
      const u64 at = stratified_sample_position(j, samples, m);
      EXPECT_LT(at, m);
      EXPECT_GE(at, previous);  // strata in order
      if (m >= samples) {
        EXPECT_GE(at, slice_begin(j, m, samples));
        EXPECT_LT(at, slice_begin(j + 1, m, samples));
      }
      previous = at;
    }
  }
  // The hash moves the sample inside its stratum (a fixed stride would alias periodic inputs).
  u64 offsets_seen = 0;
  for (u64 j = 0; j < 64; ++j) offsets_seen |= u64{1} << (stratified_sample_position(j, 64, 64 * 64) % 64);
  EXPECT_GT(__builtin_popcountll(offsets_seen), 16);
}

TEST(DistPartition, SelectedSplittersAreTheSortedSamplesAtRegularRanks) {
  std::mt19937_64 rng(11);
  for (u32 world : {2u, 3u, 4u, 8u}) {
    const u64 per = 37;
    std::vector<TaggedSample> samples;
    for (u32 r = 0; r < world; ++r)
      for (u64 j = 0; j < per; ++j)
        samples.push_back(r == 1 && world > 2 ? TaggedSample{~u64{0}, ~u64{0}, ~u64{0}}  // an empty rank
                                              : TaggedSample{rng() % 7, r, rng() % 1000});
    std::vector<TaggedSample> sorted = samples;
    std::sort(sorted.begin(), sorted.end(), tagged_before);
    const std::vector<Splitter> got = select_splitters(samples, world, per);
    ASSERT_EQ(got.size(), world - 1);
    for (u32 d = 1; d < world; ++d) {
      const TaggedSample& want = sorted[splitter_sample(d, per)];
      EXPECT_EQ(got[d - 1].key, want.key);
      EXPECT_EQ(got[d - 1].rank, want.rank == ~u64{0} ? world : u32(want.rank));
      EXPECT_EQ(got[d - 1].index, want.index);
    }
  }
}

// Every element's destination as the ranks' split finds it: stratified samples of the unsorted
// slices, the splitters, destination_of (element i of the input, in slice order).
std::vector<u32> split_destinations(const std::vector<u64>& keys, u32 world, u64 per) {
  const u64 n = keys.size();
  std::vector<TaggedSample> samples;
  for (u32 r = 0; r < world; ++r) {
    const u64 begin = slice_begin(r, n, world), m = slice_size(r, n, world);
    for (u64 j = 0; j < per; ++j) {
      if (m == 0) {
        samples.push_back({~u64{0}, ~u64{0}, ~u64{0}});
        continue;
      }
      const u64 at = stratified_sample_position(j, per, m);
      samples.push_back({keys[begin + at], r, at});
    }
  }
  const std::vector<Splitter> splitters = select_splitters(samples, world, per);
  std::vector<u32> destination(n);
  for (u32 r = 0; r < world; ++r) {
    const u64 begin = slice_begin(r, n, world), m = slice_size(r, n, world);
    for (u64 i = 0; i < m; ++i) destination[begin + i] = destination_of(keys[begin + i], r, i, splitters.data(), world - 1);
  }
  return destination;
}

// The partition-first split simulated on the host, as every rank runs it. Returns the count of
// each destination and checks the order property.
std::vector<u64> simulate_split(const std::vector<u64>& keys, u32 world, u64 per) {
  const u64 n = keys.size();
  const std::vector<u32> destination = split_destinations(keys, world, per);
  struct Element {
    u64 key;
    u32 rank;
    u64 index;
    u32 destination;
  };
  std::vector<Element> all;
  std::vector<u64> counts(world, 0);
  for (u32 r = 0; r < world; ++r) {
    const u64 begin = slice_begin(r, n, world), m = slice_size(r, n, world);
    for (u64 i = 0; i < m; ++i) {
      const u32 d = destination[begin + i];
      EXPECT_LT(d, world);
      ++counts[d];
      all.push_back({keys[begin + i], r, i, d});
    }
  }
  // In the (key, rank, index) order the destinations never go down: rank d receives exactly
  // the d-th interval, so its sorted part follows rank d - 1's in the global order.
  std::sort(all.begin(), all.end(), [](const Element& a, const Element& b) {
    return std::tie(a.key, a.rank, a.index) < std::tie(b.key, b.rank, b.index);
  });
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].destination < all[i - 1].destination) {
      ADD_FAILURE() << "destination falls at global position " << i << " (n " << n << ", world " << world << ")";
      break;
    }
  u64 total = 0;
  for (u64 c : counts) total += c;
  EXPECT_EQ(total, n);
  return counts;
}

// The exchange as the ranks run it over peer copies (issue 51), up to 8 ranks: each rank's slice
// split stably by slot (its own part first), its transfers (partition_transfers) paired with the
// others' (pair_transfers) and copied. Every rank then holds, kept part and received region by
// source rank, exactly the elements destined to it, each source's in slice order.
TEST(DistPartition, ExchangeOfTheSplitSlicesDeliversEachRanksElements) {
  std::mt19937_64 rng(5);
  for (u32 world : {2u, 3u, 4u, 5u, 8u}) {
    for (u64 n : {u64{3}, u64{1000}, u64{100003}}) {
      std::vector<u64> keys(n);
      for (auto& k : keys) k = rng() % (n / 2 + 1);  // duplicates across slices
      const std::vector<u32> destination = split_destinations(keys, world, 256);
      std::vector<u64> counts(std::size_t(world) * world, 0);
      std::vector<std::vector<u64>> split(world), received(world);
      for (u32 r = 0; r < world; ++r) {
        const u64 begin = slice_begin(r, n, world), m = slice_size(r, n, world);
        for (u32 slot = 0; slot < world; ++slot)
          for (u64 i = 0; i < m; ++i)
            if (destination_slot(destination[begin + i], r, world) == slot) split[r].push_back(begin + i);
        for (u64 i = 0; i < m; ++i) ++counts[std::size_t(r) * world + destination[begin + i]];
      }
      std::vector<std::vector<PeerTransfer>> transfers(world);
      for (u32 r = 0; r < world; ++r) {
        received[r].assign(partition_receive_layout(counts, int(r), int(world)).back(), ~u64{0});
        transfers[r] = partition_transfers(int(r), int(world), counts, {{split[r].data(), received[r].data(), 8}});
      }
      for (u32 from = 0; from < world; ++from)
        for (u32 to = 0; to < world; ++to)
          if (from != to)
            for (const PeerCopy& c : pair_transfers(int(from), transfers[from], int(to), transfers[to]))
              std::memcpy(c.dst, c.src, c.bytes);
      for (u32 d = 0; d < world; ++d) {
        // The kept part, then the received ones by source rank: positions in the input.
        std::vector<u64> held(split[d].begin(), split[d].begin() + counts[std::size_t(d) * world + d]);
        held.insert(held.end(), received[d].begin(), received[d].end());
        std::vector<u32> sources{d};
        for (u32 q = 0; q < world; ++q)
          if (q != d) sources.push_back(q);
        std::vector<u64> want;
        for (u32 q : sources)
          for (u64 i = slice_begin(q, n, world); i < slice_begin(q + 1, n, world); ++i)
            if (destination[i] == d) want.push_back(i);
        EXPECT_EQ(held, want) << "rank " << d << " of " << world << ", n " << n;
      }
    }
  }
}

void expect_within_capacity(const std::vector<u64>& counts, u64 n, u32 world, u64 per, const char* what) {
  // exact_below = 0: the margin itself, not the small-input shortcut.
  const u64 capacity = partition_receive_capacity(n, world, per, 0);
  for (u32 d = 0; d < world; ++d)
    EXPECT_LE(counts[d], capacity) << what << ": destination " << d << " of " << world << ", n " << n;
}

TEST(DistPartition, RandomKeysSplitWithinTheMargin) {
  std::mt19937_64 rng(3);
  for (u32 world : {2u, 3u, 4u}) {
    for (u64 n : {u64{0}, u64{1}, u64{3}, u64{1000}, u64{300007}}) {
      std::vector<u64> keys(n);
      for (auto& k : keys) k = rng();
      const auto counts = simulate_split(keys, world, 1024);
      if (n >= 100000) expect_within_capacity(counts, n, world, 1024, "random");
    }
  }
}

TEST(DistPartition, FewDistinctKeysSplitWithinTheMargin) {
  std::mt19937_64 rng(5);
  for (u32 world : {2u, 3u, 4u}) {
    for (u64 distinct : {u64{2}, u64{5}, u64{17}}) {
      const u64 n = 300007;
      std::vector<u64> keys(n);
      for (auto& k : keys) k = rng() % distinct;
      expect_within_capacity(simulate_split(keys, world, 1024), n, world, 1024, "few distinct");
    }
  }
}

TEST(DistPartition, AllKeysEqualSplitByRankAndIndex) {
  // One repeated key: the order is (rank, index), the splitters open each rank's slice near
  // its start (within one stratum), so even the regular-sampling bound of sort-first holds.
  for (u32 world : {2u, 3u, 4u}) {
    for (u64 n : {u64{10}, u64{100003}, u64{300007}}) {
      const std::vector<u64> keys(n, 42);
      const u64 per = 1024;
      const auto counts = simulate_split(keys, world, per);
      for (u32 d = 0; d < world; ++d) {
        EXPECT_LE(counts[d], receive_capacity(n, world, per)) << "destination " << d << ", n " << n;
        if (n > 1000) EXPECT_GT(counts[d], slice_size(d, n, world) - slice_size(d, n, world) / per - 1);
      }
    }
  }
}

TEST(DistPartition, SortedAndReversedSlicesSplitWithinTheMargin) {
  // Structure inside the slices (runs, reversed runs) must not bias the stratified samples.
  for (u32 world : {2u, 3u, 4u}) {
    const u64 n = 300007;
    std::vector<u64> up(n), down(n), saw(n);
    for (u64 i = 0; i < n; ++i) {
      up[i] = i;
      down[i] = n - i;
      saw[i] = i % 4096;  // a period that divides no stratum evenly
    }
    expect_within_capacity(simulate_split(up, world, 1024), n, world, 1024, "ascending");
    expect_within_capacity(simulate_split(down, world, 1024), n, world, 1024, "descending");
    expect_within_capacity(simulate_split(saw, world, 1024), n, world, 1024, "sawtooth");
  }
}

TEST(DistPartition, CapacityCoversSmallInputsAndGrowsWithTheWorld) {
  // Small inputs take n: a split of anything fits.
  EXPECT_EQ(partition_receive_capacity(3, 2, 16384, u64{1} << 24), 3u);
  EXPECT_EQ(partition_receive_capacity(u64{1} << 24, 2, 16384, u64{1} << 24), u64{1} << 24);
  // n = 2^31 on 2 ranks, s = 16384: 6 sqrt(2 / 16384) = 6.6 % over the slice of 2^30.
  const u64 m = u64{1} << 30;
  const u64 c = partition_receive_capacity(u64{1} << 31, 2, 16384, u64{1} << 24);
  EXPECT_GT(c, m + m / 16);
  EXPECT_LT(c, m + m / 14);
  // Never more than the whole input, and the margin grows as sqrt(G).
  EXPECT_EQ(partition_receive_capacity(1000, 2, 4, 0), 1000u);
  const u64 n = u64{1} << 33;
  const double r2 = double(partition_receive_capacity(n, 2, 16384, 0)) / (n / 2) - 1;
  const double r8 = double(partition_receive_capacity(n, 8, 16384, 0)) / (n / 8) - 1;
  EXPECT_NEAR(r8 / r2, 2.0, 0.01);
}

}  // namespace
}  // namespace sb::dist
