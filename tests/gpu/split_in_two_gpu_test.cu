// dist-sample-sort partition-first's split on two ranks (kernels/distributed/dist_split_in_two.cuh)
// on one GPU, against the host's destination_of for every element: the own part holds exactly
// the elements for rank `me`, the rest the peer's, each element once, for both ranks, tile-edge
// counts, ties on the splitter's key (decided by rank and index) and 8-byte keys. The placement
// arithmetic is CPU-tested in tests/distributed/dist_partition_test.cpp. Label gpu-quick.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <cuda_runtime_api.h>

#include "distributed/dist_split_in_two.cuh"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"

namespace sb::test {
namespace {

using u64 = std::uint64_t;
using dist::Splitter;

template <typename K>
void expect_split(const std::vector<K>& keys, const Splitter& splitter, std::uint32_t me) {
  const u64 count = keys.size();
  DeviceBuffer d_keys(count * sizeof(K)), d_out(count * sizeof(K)), d_splitter(sizeof(Splitter)),
      d_ends(2 * sizeof(u64));
  SB_CUDA_CHECK(cudaMemcpy(d_keys.get(), keys.data(), count * sizeof(K), cudaMemcpyHostToDevice));
  SB_CUDA_CHECK(cudaMemcpy(d_splitter.get(), &splitter, sizeof(Splitter), cudaMemcpyHostToDevice));
  SB_CUDA_CHECK(cudaMemset(d_ends.get(), 0, 2 * sizeof(u64)));
  dist::split_in_two<K><<<unsigned((count + dist::kTwoWayTile - 1) / dist::kTwoWayTile), dist::kTwoWayBlock>>>(
      d_keys.as<K>(), count, d_splitter.as<Splitter>(), me, d_ends.as<u64>(), d_out.as<K>());
  SB_CUDA_CHECK_LAUNCH();
  std::vector<K> out(count);
  u64 ends[2];
  SB_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), count * sizeof(K), cudaMemcpyDeviceToHost));
  SB_CUDA_CHECK(cudaMemcpy(ends, d_ends.get(), sizeof(ends), cudaMemcpyDeviceToHost));

  std::vector<K> mine, peers;
  for (u64 i = 0; i < count; ++i)
    (dist::destination_of(static_cast<u64>(KeyTraits<K>::ordered(keys[i])), me, i, &splitter, 1) == me ? mine : peers)
        .push_back(keys[i]);
  ASSERT_EQ(ends[0], mine.size()) << "count " << count << " rank " << me;
  ASSERT_EQ(ends[1], peers.size()) << "count " << count << " rank " << me;
  std::vector<K> front(out.begin(), out.begin() + ends[0]), back(out.begin() + ends[0], out.end());
  std::sort(mine.begin(), mine.end());
  std::sort(peers.begin(), peers.end());
  std::sort(front.begin(), front.end());
  std::sort(back.begin(), back.end());
  EXPECT_EQ(front, mine) << "count " << count << " rank " << me << ": the own part";
  EXPECT_EQ(back, peers) << "count " << count << " rank " << me << ": the peer's part";
}

TEST(SplitInTwoQuick, EveryElementAtItsEndForBothRanks) {
  std::mt19937_64 rng(11);
  const u64 tile = dist::kTwoWayTile;
  for (u64 count : {u64{1}, u64{31}, tile - 1, tile, tile + 1, 5 * tile + 77, (u64{1} << 22) + 123}) {
    std::vector<std::uint32_t> keys(count);
    for (auto& k : keys) k = static_cast<std::uint32_t>(rng() % 1000);  // many equal keys
    for (std::uint32_t me : {0u, 1u}) {
      // A splitter on a key that occurs: its equal keys split by (rank, index).
      expect_split(keys, Splitter{500, 1, count / 2}, me);
      expect_split(keys, Splitter{0, 0, 0}, me);          // everything at or past it
      expect_split(keys, Splitter{~u64{0}, 2, 0}, me);    // an empty rank's: everything before it
    }
  }
}

TEST(SplitInTwoQuick, EightByteKeys) {
  std::mt19937_64 rng(12);
  std::vector<std::uint64_t> keys(3 * dist::kTwoWayTile + 5);
  for (auto& k : keys) k = rng();
  for (std::uint32_t me : {0u, 1u}) expect_split(keys, Splitter{u64{1} << 63, 0, 0}, me);
}

}  // namespace
}  // namespace sb::test
