// CPU tests of the distributed family's arithmetic (kernels/distributed/dist_index.hpp):
// slice ownership, regular sampling with tie-breaking splitters (simulated on the host against
// std::sort), the receive bound, the boundary bins of the payload path and the slice boundary
// check.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/dist_index.hpp"
#include "sortbench/algo/peer_transfer.hpp"
#include "sortbench/core/errors.hpp"

namespace sb::dist {
namespace {

using u64 = std::uint64_t;

TEST(DistSlices, PartitionEveryPositionOnce) {
  for (u64 world : {1, 2, 3, 7, 8}) {
    for (u64 n : {u64{0}, u64{1}, u64{5}, u64{7}, u64{1000}, u64{1} << 34, (u64{1} << 63) + 12345}) {
      EXPECT_EQ(slice_begin(0, n, world), 0u);
      EXPECT_EQ(slice_begin(world, n, world), n) << n << " over " << world;
      u64 total = 0;
      for (u64 r = 0; r < world; ++r) {
        const u64 size = slice_size(r, n, world);
        EXPECT_LE(size, n / world + 1);  // balanced: sizes differ by at most one
        EXPECT_GE(size, n / world);
        total += size;
      }
      EXPECT_EQ(total, n);
    }
  }
}

TEST(DistSlices, OwnerHoldsThePosition) {
  for (u64 world : {1, 2, 3, 8}) {
    for (u64 n : {u64{1}, u64{2}, u64{3}, u64{10}, u64{1001}}) {
      for (u64 pos = 0; pos < n; ++pos) {
        const u64 r = slice_owner(pos, n, world);
        EXPECT_LE(slice_begin(r, n, world), pos);
        EXPECT_LT(pos, slice_begin(r + 1, n, world));
      }
    }
  }
}

TEST(DistSlices, FewerElementsThanRanksLeavesSomeEmpty) {
  // n < G: ranks hold 0 or 1 element, in order.
  EXPECT_EQ(slice_size(0, 3, 8) + slice_size(1, 3, 8) + slice_size(2, 3, 8), 1u);
  u64 ones = 0;
  for (u64 r = 0; r < 8; ++r) ones += slice_size(r, 3, 8);
  EXPECT_EQ(ones, 3u);
}

struct Sample {
  u64 key, rank, index;
};

// Every rank's `per` regular samples of its sorted run, sorted by (key, rank, index), as the
// ranks all-gather and sort them; an empty rank's are all ones.
std::vector<Sample> sorted_samples(const std::vector<std::vector<std::uint32_t>>& runs, u64 per) {
  std::vector<Sample> samples;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (u64 j = 0; j < per; ++j)
      samples.push_back(runs[r].empty() ? Sample{~u64{0}, ~u64{0}, ~u64{0}}
                                        : Sample{runs[r][sample_position(j, per, runs[r].size())], u64(r),
                                                 sample_position(j, per, runs[r].size())});
  std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) {
    return std::tie(a.key, a.rank, a.index) < std::tie(b.key, b.rank, b.index);
  });
  return samples;
}

// The sample sort's partition simulated on the host: each rank's run sorted, samples at
// regular positions, splitters from the sorted (key, rank, index) samples, cut points by
// split_point. The concatenated buckets must be the globally sorted keys, and no bucket may
// pass receive_capacity.
// pieces, where given: pieces[d][q], how many keys rank q sends rank d.
std::vector<std::vector<std::uint32_t>> partition(const std::vector<std::vector<std::uint32_t>>& runs, u64 per,
                                                  std::vector<std::vector<u64>>* pieces = nullptr) {
  const int world = static_cast<int>(runs.size());
  const std::vector<Sample> samples = sorted_samples(runs, per);
  std::vector<std::vector<std::uint32_t>> buckets(world);
  for (int r = 0; r < world; ++r) {
    const auto& run = runs[r];
    std::vector<u64> cut(world + 1, 0);
    cut[world] = run.size();
    for (int d = 1; d < world; ++d) {
      const Sample& sp = samples[splitter_sample(d, per)];
      const u64 lower = std::lower_bound(run.begin(), run.end(), sp.key) - run.begin();
      const u64 upper = std::upper_bound(run.begin(), run.end(), sp.key) - run.begin();
      const SampleTag tag{static_cast<std::uint32_t>(sp.rank == ~u64{0} ? world : sp.rank), sp.index};
      cut[d] = std::max(cut[d - 1], split_point(lower, upper, std::uint32_t(r), tag));
    }
    for (int d = 0; d < world; ++d) buckets[d].insert(buckets[d].end(), run.begin() + cut[d], run.begin() + cut[d + 1]);
    if (pieces) {
      pieces->resize(world);
      for (int d = 0; d < world; ++d) (*pieces)[d].push_back(cut[d + 1] - cut[d]);
    }
  }
  return buckets;
}

void check_partition(std::vector<std::uint32_t> keys, int world, u64 per) {
  const u64 n = keys.size();
  std::vector<std::vector<std::uint32_t>> runs(world);
  for (int r = 0; r < world; ++r) {
    runs[r].assign(keys.begin() + slice_begin(r, n, world), keys.begin() + slice_begin(r + 1, n, world));
    std::sort(runs[r].begin(), runs[r].end());
  }
  auto buckets = partition(runs, per);
  std::vector<std::uint32_t> out;
  for (auto& b : buckets) {
    EXPECT_LE(b.size(), receive_capacity(n, world, per)) << "n " << n << " world " << world;
    std::sort(b.begin(), b.end());  // the merge of the received runs
    out.insert(out.end(), b.begin(), b.end());
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out, keys) << "n " << n << " world " << world;
}

TEST(DistSampleSort, BucketsConcatenateToTheSortedInput) {
  std::mt19937 rng(7);
  for (int world : {1, 2, 3, 4, 8}) {
    for (u64 n : {u64{0}, u64{1}, u64{3}, u64{9}, u64{1000}, u64{100003}}) {
      std::vector<std::uint32_t> keys(n);
      for (auto& k : keys) k = rng();
      check_partition(keys, world, 16);
      for (auto& k : keys) k %= 5;  // heavy duplicates
      check_partition(keys, world, 16);
    }
  }
}

// The whole sample sort at G = 1..8 on the host, its exchange and merges included: each rank's
// sorted run cut by the splitters, the pieces laid out by source rank where exchange_and_merge
// receives them, then merge_round's pairwise merges ping-ponging between two buffers (a merge
// where it says merge, else a copy). The merged runs, taken from the buffer the rounds end in,
// concatenate to std::sort of the input, after ceil(log2 G) rounds.
// The all-to-all as the ranks run it over peer copies (issue 51): every rank lists its transfers
// (all_to_all_transfers: a key column, and a column of (rank, index) tags beside it, so a value
// that left its key shows), the lists are paired per ordered pair of ranks (pair_transfers) and
// copied, each rank's own piece copied beside them. Returns each rank's receive region's keys.
std::vector<std::vector<std::uint32_t>> exchange_by_copies(const std::vector<std::vector<std::uint32_t>>& runs,
                                                           const std::vector<std::vector<u64>>& pieces) {
  const int world = static_cast<int>(runs.size());
  std::vector<u64> counts(std::size_t(world) * world);  // [q * world + d]: from q to d
  for (int d = 0; d < world; ++d)
    for (int q = 0; q < world; ++q) counts[std::size_t(q) * world + d] = pieces[d][q];
  std::vector<std::vector<u64>> cuts(world), tags(world), tags_in(world);
  std::vector<std::vector<std::uint32_t>> in(world);
  std::vector<std::vector<PeerTransfer>> transfers(world);
  for (int r = 0; r < world; ++r) {
    cuts[r].assign(1, 0);
    for (int d = 0; d < world; ++d) cuts[r].push_back(cuts[r].back() + counts[std::size_t(r) * world + d]);
    for (u64 i = 0; i < runs[r].size(); ++i) tags[r].push_back(u64(r) << 32 | i);
    const u64 total = receive_layout(counts, r, world).back();
    in[r].assign(total, ~0u);
    tags_in[r].assign(total, ~u64{0});
    transfers[r] = all_to_all_transfers(r, world, cuts[r], counts,
                                        {{runs[r].data(), in[r].data(), sizeof(std::uint32_t)},
                                         {tags[r].data(), tags_in[r].data(), sizeof(u64)}});
    EXPECT_EQ(transfers[r].size(), std::size_t(2 * (world - 1)));
  }
  for (int from = 0; from < world; ++from)
    for (int to = 0; to < world; ++to) {
      if (from == to) {
        const u64 at = receive_layout(counts, to, world)[from];
        std::copy(runs[from].begin() + cuts[from][to], runs[from].begin() + cuts[from][to + 1], in[to].begin() + at);
        std::copy(tags[from].begin() + cuts[from][to], tags[from].begin() + cuts[from][to + 1],
                  tags_in[to].begin() + at);
        continue;
      }
      for (const PeerCopy& c : pair_transfers(from, transfers[from], to, transfers[to]))
        std::memcpy(c.dst, c.src, c.bytes);
    }
  for (int d = 0; d < world; ++d)
    for (u64 i = 0; i < in[d].size(); ++i) {
      const u64 tag = tags_in[d][i];
      const int q = int(tag >> 32);
      EXPECT_TRUE(q < world && runs[q][tag & 0xffffffffu] == in[d][i]) << "rank " << d << " position " << i;
      if (q >= world) break;
    }
  return in;
}

TEST(DistSampleSort, ExchangeAndMergeRoundsConcatenateToTheSortedInput) {
  std::mt19937 rng(11);
  for (int world : {1, 2, 3, 4, 5, 7, 8}) {
    for (u64 n : {u64{0}, u64{1}, u64{5}, u64{1000}, u64{50021}}) {
      std::vector<std::uint32_t> keys(n);
      for (auto& k : keys) k = n > 1000 ? rng() % 97 : rng();  // heavy duplicates in the large input
      std::vector<std::vector<std::uint32_t>> runs(world);
      for (int r = 0; r < world; ++r) {
        runs[r].assign(keys.begin() + slice_begin(r, n, world), keys.begin() + slice_begin(r + 1, n, world));
        std::sort(runs[r].begin(), runs[r].end());
      }
      std::vector<std::vector<u64>> pieces;
      const auto received = partition(runs, 16, &pieces);
      const std::vector<std::vector<std::uint32_t>> exchanged = exchange_by_copies(runs, pieces);
      std::vector<std::uint32_t> out;
      for (int d = 0; d < world; ++d) {
        EXPECT_EQ(exchanged[d], received[d]) << "rank " << d << " of " << world;
        std::vector<u64> bounds{0};
        for (int q = 0; q < world; ++q) bounds.push_back(bounds.back() + pieces[d][q]);
        std::vector<std::uint32_t> buffer[2] = {exchanged[d], std::vector<std::uint32_t>(received[d].size())};
        std::vector<MergeStep> steps;
        int src = 0, rounds = 0;
        while (bounds.size() > 2) {
          bounds = merge_round(bounds, steps);
          for (const MergeStep& m : steps) {
            const auto from = buffer[src].begin(), to = buffer[1 - src].begin();
            if (m.merge) std::merge(from + m.first, from + m.middle, from + m.middle, from + m.last, to + m.first);
            else std::copy(from + m.first, from + m.middle, to + m.first);
          }
          src = 1 - src;
          ++rounds;
        }
        EXPECT_EQ(rounds, world > 1 ? int(std::ceil(std::log2(world))) : 0) << "G " << world;
        EXPECT_EQ(bounds.back(), received[d].size());
        out.insert(out.end(), buffer[src].begin(), buffer[src].end());
      }
      std::sort(keys.begin(), keys.end());
      EXPECT_EQ(out, keys) << "n " << n << " G " << world;
    }
  }
}

// Sort-first's chunked exchange on two ranks simulated on the host (chunked_exchange_and_merge
// in dist_exchange.cuh): chunk boundary keys from the sorted samples (chunk_boundary_sample),
// each piece cut at their lower bounds (chunk_cuts), every rank's plan from the gathered sizes
// (plan_chunked_merge). Chunk j lands at capacity - R + r_j of the output buffer; each merge as
// it lands must write neither its own input nor the chunk that lands beside it, the tail goes
// into the sent piece's place, and the output is the rank's part of the sorted input. Returns
// how many chunks each rank merged as they landed (-1: the plan fell back to one exchange).
std::vector<int> chunked_exchange(const std::vector<std::vector<std::uint32_t>>& runs, u64 per, int chunks,
                                  u64 capacity, const std::vector<std::vector<std::uint32_t>>& expected) {
  const int world = 2;
  const std::vector<Sample> all = sorted_samples(runs, per);
  std::vector<u64> boundary_keys;
  for (int d = 0; d < world; ++d)
    for (int j = 1; j < chunks; ++j) boundary_keys.push_back(all[chunk_boundary_sample(d, j, chunks, per)].key);
  // at[r][d]: rank r's piece for d cut into chunks; sizes[(r * world + d) * chunks + j].
  std::vector<std::vector<std::vector<u64>>> at(world, std::vector<std::vector<u64>>(world));
  std::vector<u64> sizes;
  for (int r = 0; r < world; ++r) {
    const auto& run = runs[r];
    const Sample& sp = all[splitter_sample(1, per)];
    const u64 lower = std::lower_bound(run.begin(), run.end(), sp.key) - run.begin();
    const u64 upper = std::upper_bound(run.begin(), run.end(), sp.key) - run.begin();
    const SampleTag tag{static_cast<std::uint32_t>(sp.rank == ~u64{0} ? world : sp.rank), sp.index};
    const std::vector<u64> cut{0, split_point(lower, upper, std::uint32_t(r), tag), run.size()};
    std::vector<u64> bounds;
    for (u64 key : boundary_keys) bounds.push_back(std::lower_bound(run.begin(), run.end(), key) - run.begin());
    for (int d = 0; d < world; ++d) {
      at[r][d] = chunk_cuts(cut[d], cut[d + 1], bounds.data() + d * (chunks - 1), chunks);
      for (int j = 0; j < chunks; ++j) {
        EXPECT_LE(at[r][d][j], at[r][d][j + 1]);
        sizes.push_back(at[r][d][j + 1] - at[r][d][j]);
      }
    }
  }
  auto chunk_sizes = [&](int q, int d) { return sizes.data() + (std::size_t(q) * world + d) * chunks; };
  std::vector<ChunkedMerge> plans;
  for (int q = 0; q < world; ++q)
    plans.push_back(plan_chunked_merge(capacity, chunk_sizes(q, q), chunk_sizes(1 - q, q), chunks,
                                       at[q][1 - q][chunks] - at[q][1 - q][0]));
  if (!plans[0].fits || !plans[1].fits) return {-1, -1};
  std::vector<int> on_arrival;
  for (int me = 0; me < world; ++me) {
    const int peer = 1 - me;
    const ChunkedMerge& plan = plans[me];
    std::vector<std::uint32_t> sorted = runs[me], out(capacity, 0xdeadbeefu);
    const u64 kept = at[me][me][chunks] - at[me][me][0], received = at[peer][me][chunks] - at[peer][me][0];
    const u64 landing = capacity - received;
    auto land = [&](int j, u64 r) {
      std::copy(runs[peer].begin() + at[peer][me][j], runs[peer].begin() + at[peer][me][j + 1],
                out.begin() + landing + r);
    };
    u64 r = 0, written = 0;
    for (int j = 0; j < chunks; ++j) {
      const u64 nr = chunk_sizes(peer, me)[j];
      land(j, r);
      if (j < plan.on_arrival) {
        const u64 o = at[me][me][j] - at[me][me][0], nk = chunk_sizes(me, me)[j];
        EXPECT_EQ(o + r, written) << "chunk " << j << " of rank " << me << " starts where the last one ended";
        const u64 end = o + nk + r + nr;
        if (nr) EXPECT_LE(end, landing + r) << "chunk " << j << " of rank " << me << " writes its own input";
        EXPECT_LE(end, landing + r + nr + (j + 1 < chunks ? 0 : capacity)) << "it writes the next chunk";
        std::vector<std::uint32_t> merged(nk + nr);
        std::merge(sorted.begin() + at[me][me][j], sorted.begin() + at[me][me][j + 1], out.begin() + landing + r,
                   out.begin() + landing + r + nr, merged.begin());
        std::copy(merged.begin(), merged.end(), out.begin() + o + r);
        written = end;
      }
      r += nr;
    }
    if (plan.on_arrival < chunks) {
      const u64 nr = received - plan.received_before, nk = kept - plan.kept_before;
      EXPECT_EQ(plan.kept_before + plan.received_before, written);
      EXPECT_LE(nr, at[me][peer][chunks] - at[me][peer][0]) << "the tail passes the sent piece's place";
      std::copy(out.begin() + landing + plan.received_before, out.begin() + capacity,
                sorted.begin() + at[me][peer][0]);
      std::merge(sorted.begin() + at[me][me][0] + plan.kept_before, sorted.begin() + at[me][me][chunks],
                 sorted.begin() + at[me][peer][0], sorted.begin() + at[me][peer][0] + nr, out.begin() + written);
      (void)nk;
    }
    out.resize(kept + received);
    std::vector<std::uint32_t> want = expected[me];
    std::sort(want.begin(), want.end());
    EXPECT_EQ(out, want) << "rank " << me << " of two, " << chunks << " chunks";
    on_arrival.push_back(plan.on_arrival);
  }
  return on_arrival;
}

TEST(DistSampleSort, ChunkedExchangeOnTwoRanksMergesAsChunksLand) {
  std::mt19937 rng(5);
  const u64 per = 64;
  for (u64 n : {u64{0}, u64{1}, u64{7}, u64{1000}, u64{200003}}) {
    for (int shape : {0, 1, 2}) {  // uniform, few distinct keys, each rank's keys in its own half
      std::vector<std::uint32_t> keys(n);
      for (u64 i = 0; i < n; ++i) {
        const std::uint32_t k = rng();
        keys[i] = shape == 0 ? k : shape == 1 ? k % 5 : (i < n / 2 ? k >> 1 : (k >> 1) | 0x80000000u);
      }
      std::vector<std::vector<std::uint32_t>> runs(2);
      for (int r = 0; r < 2; ++r) {
        runs[r].assign(keys.begin() + slice_begin(r, n, 2), keys.begin() + slice_begin(r + 1, n, 2));
        std::sort(runs[r].begin(), runs[r].end());
      }
      const auto expected = partition(runs, per);
      for (int chunks : {2, 3, 8}) {
        const std::vector<int> on_arrival = chunked_exchange(runs, per, chunks, receive_capacity(n, 2, per), expected);
        // Uniform keys fit, and all but the last chunks merge as they land.
        if (shape == 0 && n > 1000) {
          for (int r = 0; r < 2; ++r)
            EXPECT_GE(on_arrival[r], chunks - 2) << "rank " << r << ", " << chunks << " chunks";
        }
      }
    }
  }
}

TEST(DistSampleSort, ChunkedMergeWaitsWhereTheKeptRunIsUsedUp) {
  // Kept keys all below the received ones: the first chunk's merge is a copy of the kept run
  // that would reach its own input, so everything is the tail.
  const u64 kept[2] = {100, 0}, received[2] = {0, 100};
  const ChunkedMerge m = plan_chunked_merge(200, kept, received, 2, 100);
  EXPECT_TRUE(m.fits);
  EXPECT_EQ(m.on_arrival, 1);
  EXPECT_EQ(m.kept_before, 100u);
  EXPECT_EQ(m.received_before, 0u);
  // The tail larger than the sent piece's place: no chunks.
  EXPECT_FALSE(plan_chunked_merge(200, kept, received, 2, 99).fits);
  // Received and kept past the capacity: no chunks.
  EXPECT_FALSE(plan_chunked_merge(199, kept, received, 2, 100).fits);
  // A spare chunk at the end of the buffer: every chunk merges as it lands.
  const u64 even[2] = {50, 50};
  EXPECT_EQ(plan_chunked_merge(250, even, even, 2, 0).on_arrival, 2);
}

TEST(DistSampleSort, ChunksOnlyOnTwoRanksAndLargeInputs) {
  EXPECT_EQ(sort_first_chunks(u64{1} << 31, 2), kMaxExchangeChunks);
  EXPECT_EQ(sort_first_chunks(u64{1} << 27, 2), 2);
  EXPECT_EQ(sort_first_chunks(u64{1} << 25, 2), 1);
  EXPECT_EQ(sort_first_chunks(u64{1} << 33, 4), 1);
  EXPECT_EQ(sort_first_chunks(u64{1} << 33, 1), 1);
  const u64 lower[3] = {5, 2, 40};
  EXPECT_EQ(chunk_cuts(10, 30, lower, 4), (std::vector<u64>{10, 10, 10, 30, 30}));
}

// merge_round on its own: pairs lower ranks first, an odd last run copied, empty runs kept.
TEST(DistSampleSort, MergeRoundPairsAdjacentRunsAndCopiesTheOddOne) {
  std::vector<MergeStep> steps;
  EXPECT_EQ(merge_round({0, 3, 3, 9, 10, 12}, steps), (std::vector<u64>{0, 3, 10, 12}));
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_TRUE(steps[0].merge && steps[0].first == 0 && steps[0].middle == 3 && steps[0].last == 3);
  EXPECT_TRUE(steps[1].merge && steps[1].first == 3 && steps[1].middle == 9 && steps[1].last == 10);
  EXPECT_TRUE(!steps[2].merge && steps[2].first == 10 && steps[2].middle == 12 && steps[2].last == 12);
  EXPECT_EQ(merge_round({0, 4, 8}, steps), (std::vector<u64>{0, 8}));
  EXPECT_EQ(steps.size(), 1u);
}

TEST(DistSampleSort, AllKeysEqualStillSplitEvenly) {
  const u64 n = 100000;
  for (int world : {2, 3, 8}) {
    std::vector<std::vector<std::uint32_t>> runs(world);
    for (int r = 0; r < world; ++r) runs[r].assign(slice_size(r, n, world), 42u);
    const auto buckets = partition(runs, 64);
    for (const auto& b : buckets) {
      // Without the (rank, index) tie-break one rank would receive all n keys.
      EXPECT_LE(b.size(), receive_capacity(n, world, 64));
      EXPECT_GT(b.size(), n / world / 2);
    }
  }
}

TEST(DistSampleSort, SplitPointBreaksTiesByRankThenIndex) {
  const SampleTag tag{1, 7};
  EXPECT_EQ(split_point(5, 10, 0, tag), 10u);  // rank before the splitter's: all its equal keys go below
  EXPECT_EQ(split_point(5, 10, 2, tag), 5u);   // rank after: none
  EXPECT_EQ(split_point(5, 10, 1, tag), 7u);   // the splitter's own rank: up to its index
  EXPECT_EQ(split_point(5, 10, 1, SampleTag{1, 2}), 5u);
  EXPECT_EQ(split_point(5, 10, 1, SampleTag{1, 12}), 10u);
}

TEST(DistSampleSort, SamplesLieInsideTheRun) {
  for (u64 m : {u64{1}, u64{2}, u64{100}, u64{1} << 33}) {
    u64 previous = 0;
    for (u64 j = 0; j < 64; ++j) {
      const u64 at = sample_position(j, 64, m);
      EXPECT_LT(at, m);
      EXPECT_GE(at, previous);
      previous = at;
    }
  }
}

// Payload path: the G-1 boundary bins. Every rank's elements of bin b take global positions
// S + P + [0, c); below_in_bin counts those under a boundary. Summed over ranks and bins it
// must equal the boundary itself, and per rank it must be a prefix of the rank's bin.
TEST(DistHpPayload, BoundaryBinSplitsByRankPrefix) {
  const std::vector<std::vector<u64>> local = {{3, 0, 5, 2}, {1, 4, 0, 6}, {0, 2, 2, 2}};  // [rank][bin]
  const int world = 3, bins = 4;
  u64 n = 0;
  for (const auto& row : local) n = std::accumulate(row.begin(), row.end(), n);
  for (u64 boundary = 0; boundary <= n; ++boundary) {
    u64 below = 0, bin_start = 0;
    for (int b = 0; b < bins; ++b) {
      u64 prefix = 0;
      for (int r = 0; r < world; ++r) {
        const u64 k = below_in_bin(boundary, bin_start, prefix, local[r][b]);
        EXPECT_LE(k, local[r][b]);
        below += k;
        prefix += local[r][b];
      }
      bin_start += prefix;
    }
    EXPECT_EQ(below, boundary);
  }
}

// dist-hp keys alone, reduce-scattered: every rank's bins [scatter_bins_begin(q), ...) cover
// the range once; with each rank's key count, the pieces of all ranks tile [0, n) once, each
// inside its destination's slice, in order; and a rank whose bins hold more of the other
// slices than its buffer makes the ranks all-gather instead.
TEST(DistHpScatter, PiecesTileTheOutputOnceInsideTheirSlices) {
  std::mt19937_64 rng(3);
  for (int world : {2, 3, 4, 8}) {
    for (u64 range : {u64{1}, u64{3}, u64{7}, u64{1000}, u64{43000000}}) {
      EXPECT_EQ(scatter_bins_begin(0, range, world), 0u);
      EXPECT_EQ(scatter_bins_begin(world, range, world), range);
      for (int q = 0; q < world; ++q) EXPECT_LE(scatter_bins_begin(q, range, world), scatter_bins_begin(q + 1, range, world));
    }
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<u64> totals(world);
      u64 n = 0;
      for (auto& t : totals) n += t = trial % 5 == 0 ? (rng() % 3 == 0 ? 0 : rng() % 1000) : 1000 + rng() % 50;
      std::vector<int> owner(n, -1);
      for (int q = 0; q < world; ++q) {
        u64 last_end = 0;
        for (const ExpandPiece& piece : expand_pieces(totals, q, n)) {
          EXPECT_LT(piece.begin, piece.end);
          EXPECT_GE(piece.begin, slice_begin(piece.dest, n, world));
          EXPECT_LE(piece.end, slice_begin(piece.dest + 1, n, world));
          EXPECT_GE(piece.begin, last_end);
          last_end = piece.end;
          for (u64 i = piece.begin; i < piece.end; ++i) {
            EXPECT_EQ(owner[i], -1) << "position " << i << " twice";
            owner[i] = q;
          }
        }
      }
      for (u64 i = 0; i < n; ++i) EXPECT_NE(owner[i], -1) << "position " << i << " of " << n << " never";
    }
  }
  // Two ranks, 1000 keys: 520 in rank 0's bins, so its last 20 positions are rank 1's.
  const auto pieces = expand_pieces({520, 480}, 0, 1000);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[1].dest, 1);
  EXPECT_EQ(pieces[1].begin, 500u);
  EXPECT_EQ(pieces[1].end, 520u);
  EXPECT_TRUE(expand_pieces_fit({520, 480}, 1000, 500));
  // Every key in rank 0's bins: 500 of them for rank 1, past a buffer of 499.
  EXPECT_TRUE(expand_pieces_fit({1000, 0}, 1000, 500));
  EXPECT_FALSE(expand_pieces_fit({1000, 0}, 1000, 499));
}

// dist-hp keys alone as dist_hp.cu runs it on G ranks, simulated on the host: the local
// histograms reduce-scattered in shares of range / G bins (the last rank's share also the
// range % G bins after them, all-reduced), each rank's key count from its share, then either
// each rank expanding its pieces into the slices they belong to, or (a rank's pieces for others
// past its buffer, less the alignment slack dist_hp.cu keeps) every rank expanding its own
// slice from all the bins. Every rank's slice must be the sorted input's, for tiny inputs, a
// range of fewer bins than ranks, and keys all in one rank's share.
TEST(DistHpScatter, TheRanksSlicesAreTheSortedInput) {
  std::mt19937_64 rng(9);
  for (int world : {2, 3, 4, 8}) {
    for (u64 n : {u64{1}, u64{3}, u64{5}, u64{17}, u64{1000}, u64{4099}}) {
      for (u64 range : {u64{1}, u64{3}, u64{7}, u64{1000}}) {
        for (int skew : {0, 1}) {
          std::vector<u64> keys(n);
          for (auto& k : keys) k = skew ? rng() % std::max<u64>(1, range / 8) : rng() % range;
          std::vector<u64> global(range, 0);
          for (u64 k : keys) ++global[k];
          const u64 capacity = (n + world - 1) / world, align = 4;
          std::vector<u64> totals(world, 0);
          for (int q = 0; q < world; ++q)
            for (u64 b = scatter_bins_begin(q, range, world); b < scatter_bins_begin(q + 1, range, world); ++b)
              totals[q] += global[b];
          // The keys of positions [lo, hi) of bins [first, last), counted from the first bin.
          auto expand = [&](u64 first, u64 last, u64 lo, u64 hi) {
            std::vector<u64> out;
            u64 at = 0;
            for (u64 b = first; b < last; ++b)
              for (u64 c = 0; c < global[b]; ++c, ++at)
                if (at >= lo && at < hi) out.push_back(b);
            return out;
          };
          std::vector<std::vector<u64>> slices(world);
          for (int d = 0; d < world; ++d) slices[d].assign(slice_size(d, n, world), ~u64{0});
          if (expand_pieces_fit(totals, n, capacity - std::min<u64>(capacity, align * world))) {
            u64 before = 0;
            for (int q = 0; q < world; ++q) {
              const u64 first = scatter_bins_begin(q, range, world), last = scatter_bins_begin(q + 1, range, world);
              for (const ExpandPiece& piece : expand_pieces(totals, q, n)) {
                const std::vector<u64> part = expand(first, last, piece.begin - before, piece.end - before);
                ASSERT_EQ(part.size(), piece.end - piece.begin);
                std::copy(part.begin(), part.end(),
                          slices[piece.dest].begin() + (piece.begin - slice_begin(piece.dest, n, world)));
              }
              before += totals[q];
            }
          } else {
            for (int d = 0; d < world; ++d)
              slices[d] = expand(0, range, slice_begin(d, n, world), slice_begin(d + 1, n, world));
          }
          std::sort(keys.begin(), keys.end());
          std::vector<u64> out;
          for (const auto& slice : slices) out.insert(out.end(), slice.begin(), slice.end());
          EXPECT_EQ(out, keys) << "G " << world << " n " << n << " range " << range << " skew " << skew;
        }
      }
    }
  }
}

// The shares sent while counting: at turn j every rank sends one share and receives one, the
// sender of its own share being the rank that counts it j-th as well, so each rank's own share
// summed over its G - 1 slots is the global histogram's share; the slots fit the input buffer
// exactly when their bytes do.
TEST(DistHpScatter, SharesSentInTurnSumToTheGlobalShares) {
  std::mt19937_64 rng(5);
  for (int world : {2, 3, 4, 8})
    for (u64 range : {u64{1}, u64{3}, u64{7}, u64{1000}}) {
      std::vector<std::vector<u64>> local(world, std::vector<u64>(range));
      std::vector<u64> global(range, 0);
      for (int q = 0; q < world; ++q)
        for (u64 b = 0; b < range; ++b) global[b] += local[q][b] = rng() % 5;
      const u64 largest = range - scatter_bins_begin(world - 1, range, world);
      std::vector<std::vector<u64>> slots(world, std::vector<u64>((world - 1) * largest, 0));
      for (int j = 0; j + 1 < world; ++j) {
        std::vector<int> sent_to(world, -1);
        for (int me = 0; me < world; ++me) {
          const int q = share_in_turn(me, j, world);
          ASSERT_NE(q, me);
          ASSERT_EQ(share_sender(q, j, world), me) << "turn " << j << " G " << world;
          const u64 lo = scatter_bins_begin(q, range, world), hi = scatter_bins_begin(q + 1, range, world);
          const u64 own = hi - lo;
          std::copy(local[me].begin() + lo, local[me].begin() + hi, slots[q].begin() + j * own);
          sent_to[me] = q;
        }
        std::sort(sent_to.begin(), sent_to.end());
        for (int q = 0; q < world; ++q) EXPECT_EQ(sent_to[q], q) << "every rank receives once a turn";
      }
      for (int me = 0; me < world; ++me) {
        EXPECT_EQ(share_in_turn(me, world - 1, world), me) << "its own share last";
        const u64 lo = scatter_bins_begin(me, range, world), own = scatter_bins_begin(me + 1, range, world) - lo;
        for (u64 i = 0; i < own; ++i) {
          u64 sum = local[me][lo + i];
          for (int k = 0; k + 1 < world; ++k) sum += slots[me][k * own + i];
          EXPECT_EQ(sum, global[lo + i]) << "G " << world << " range " << range << " rank " << me << " bin " << i;
        }
      }
      const u64 need = (world - 1) * largest * 4;
      EXPECT_TRUE(received_shares_fit(range, world, need, 4));
      EXPECT_FALSE(received_shares_fit(range, world, need - 1, 4));
    }
}

TEST(DistVerify, BoundaryCheckSkipsEmptyRanks) {
  int previous = -1;
  const SliceEnds ordered[] = {{2, 1, 5}, {0, 0, 0}, {3, 5, 9}, {1, 9, 9}};
  EXPECT_EQ(first_boundary_violation(ordered, 4, &previous), -1);
  const SliceEnds broken[] = {{2, 1, 5}, {0, 0, 0}, {3, 4, 9}};
  EXPECT_EQ(first_boundary_violation(broken, 3, &previous), 2);
  EXPECT_EQ(previous, 0);
  const SliceEnds none[] = {{0, 0, 0}, {0, 0, 0}};
  EXPECT_EQ(first_boundary_violation(none, 2, &previous), -1);
}

TEST(DistVerify, StabilityAcrossBoundariesComparesEqualKeysOnly) {
  // Rank 1 is empty; ranks 0 and 2 meet on key 5, rank 2 and 3 on key 9.
  const SliceEnds ends[] = {{2, 1, 5}, {0, 0, 0}, {3, 5, 9}, {1, 9, 9}};
  const SliceEndPositions in_order[] = {{0, 10}, {0, 0}, {11, 3}, {40, 40}};
  EXPECT_EQ(unstable_boundaries(ends, in_order, 4), 0u);
  const SliceEndPositions swapped[] = {{0, 12}, {0, 0}, {11, 50}, {40, 40}};  // 12 > 11 on key 5, 50 > 40 on key 9
  EXPECT_EQ(unstable_boundaries(ends, swapped, 4), 2u);
  // Different keys at a boundary: their positions say nothing about stability.
  const SliceEnds distinct[] = {{2, 1, 4}, {3, 5, 9}};
  const SliceEndPositions far[] = {{0, 99}, {1, 2}};
  EXPECT_EQ(unstable_boundaries(distinct, far, 2), 0u);
}

// Two ranks whose lists disagree would leave a receive waiting forever under NCCL; paired as
// copies they are an internal error naming both ranks.
TEST(PeerTransfers, ListsThatDisagreeAreAnErrorNamingBothRanks) {
  char a[8] = {}, b[8] = {};
  const std::vector<PeerTransfer> sender{{1, a, 8, b, 4}};
  try {
    pair_transfers(0, sender, 1, {{0, b, 4, a, 6}});
    FAIL() << "sizes that differ paired";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::internal);
    EXPECT_NE(std::string(e.what()).find("rank 0 sends 8 bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("which receives 6"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pair_transfers(0, sender, 1, {}), Error);
  // Empty pieces pair but copy nothing; transfers with other ranks are not this pair's.
  EXPECT_TRUE(pair_transfers(0, {{1, a, 0, b, 0}, {2, a, 8, b, 8}}, 1, {{0, b, 0, a, 0}}).empty());
  const auto copies = pair_transfers(0, {{2, a, 1, b, 1}, {1, a + 1, 3, b, 0}}, 1, {{0, b, 0, b + 2, 3}});
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_TRUE(copies[0].dst == b + 2 && copies[0].src == a + 1 && copies[0].bytes == 3u);
}

TEST(PeerTransfers, LinkParamIsAutoCopyOrNccl) {
  EXPECT_EQ(exchange_link_param({}), ExchangeLink::automatic);
  EXPECT_EQ(exchange_link_param({{"link", "auto"}}), ExchangeLink::automatic);
  EXPECT_EQ(exchange_link_param({{"link", "copy"}}), ExchangeLink::copy);
  EXPECT_EQ(exchange_link_param({{"link", "nccl"}}), ExchangeLink::nccl);
  try {
    exchange_link_param({{"link", "ib"}});
    FAIL() << "link=ib taken";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--param link=ib is not auto, copy or nccl");
  }
  EXPECT_STREQ(exchange_link_name(ExchangeLink::copy), "copy");
  EXPECT_STREQ(exchange_link_name(ExchangeLink::nccl), "nccl");
}

}  // namespace
}  // namespace sb::dist
