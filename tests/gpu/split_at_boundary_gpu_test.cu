// dist-hp split first's split on two ranks (kernels/distributed/dist_split_at_boundary.cuh) on
// one GPU, against the host's model of it: the elements below the boundary key, equal to it and
// above it, each part in input order (the stability the exchange's sorts rely on), at their
// places turned own piece first, every value beside its key; with the keys written as their
// ranks among the present keys where the plan says so (2-byte ranks up to 16 bits); at tile
// edges, with no element equal to the key and with every element equal to it, and for 8-byte
// signed keys. The plan itself (two_way_split) is CPU-tested in
// tests/distributed/dist_hp_pairs_test.cpp. Label gpu-quick.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "distributed/dist_split_at_boundary.cuh"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"

namespace sb::test {
namespace {

using u64 = std::uint64_t;
using dist::TwoWaySplit;

// The split on the GPU of keys with their positions as values, beside the host's model.
// present_through: the present bins up to each bin from min_ordered, where plan.rank_bits > 0.
template <typename K>
void expect_split(const std::vector<K>& keys, TwoWaySplit plan, u64 min_ordered,
                  const std::vector<std::uint32_t>& present_through = {}) {
  const u64 count = keys.size();
  plan.below = plan.equal = 0;
  for (const K k : keys) {
    const auto ordered = static_cast<u64>(KeyTraits<K>::ordered(k));
    plan.below += ordered < plan.key;
    plan.equal += ordered == plan.key;
  }
  plan.count = count;
  std::vector<u64> vals(count);
  for (u64 i = 0; i < count; ++i) vals[i] = i;
  // Ranks of up to 16 bits come out as 2-byte keys.
  const bool two_bytes = dist::ranks_in_two_bytes(plan.rank_bits);
  std::vector<K> expect_keys(count);
  std::vector<std::uint16_t> expect_ranks(count);
  std::vector<u64> expect_vals(count, ~u64{0});
  u64 next[3] = {0, plan.below, plan.below + plan.equal};
  for (u64 i = 0; i < count; ++i) {
    const auto ordered = static_cast<u64>(KeyTraits<K>::ordered(keys[i]));
    const u64 place = dist::own_first_place(next[dist::boundary_key_slot(ordered, &plan.key, 1)]++, plan.own_begin,
                                            count);
    const std::uint32_t rank = plan.rank_bits ? present_through[ordered - min_ordered] - 1 : 0;
    expect_keys[place] = plan.rank_bits ? static_cast<K>(rank) : keys[i];
    expect_ranks[place] = static_cast<std::uint16_t>(rank);
    expect_vals[place] = i;
  }

  DeviceBuffer d_keys(count * sizeof(K)), d_vals(count * sizeof(u64)), d_out_keys(count * sizeof(K)),
      d_out_vals(count * sizeof(u64)), d_plan(sizeof(TwoWaySplit)), d_selected(2 * sizeof(u64)),
      d_present(present_through.size() * sizeof(std::uint32_t) + 4);
  SB_CUDA_CHECK(cudaMemcpy(d_keys.get(), keys.data(), count * sizeof(K), cudaMemcpyHostToDevice));
  SB_CUDA_CHECK(cudaMemcpy(d_vals.get(), vals.data(), count * sizeof(u64), cudaMemcpyHostToDevice));
  SB_CUDA_CHECK(cudaMemcpy(d_plan.get(), &plan, sizeof(plan), cudaMemcpyHostToDevice));
  if (!present_through.empty())
    SB_CUDA_CHECK(cudaMemcpy(d_present.get(), present_through.data(), present_through.size() * sizeof(std::uint32_t),
                             cudaMemcpyHostToDevice));
  std::size_t temp_bytes = dist::split_at_boundary_bytes<K, u64>(count);
  DeviceBuffer temp(temp_bytes);
  dist::split_at_boundary(temp.get(), temp_bytes, d_keys.as<K>(), d_vals.as<u64>(), count, d_plan.as<TwoWaySplit>(),
                          d_present.as<std::uint32_t>(), min_ordered, d_out_keys.as<K>(), d_out_vals.as<u64>(),
                          d_selected.as<u64>(), nullptr);
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<K> got_keys(count);
  std::vector<std::uint16_t> got_ranks(count);
  std::vector<u64> got_vals(count);
  if (two_bytes)
    SB_CUDA_CHECK(cudaMemcpy(got_ranks.data(), d_out_keys.get(), count * 2, cudaMemcpyDeviceToHost));
  else
    SB_CUDA_CHECK(cudaMemcpy(got_keys.data(), d_out_keys.get(), count * sizeof(K), cudaMemcpyDeviceToHost));
  SB_CUDA_CHECK(cudaMemcpy(got_vals.data(), d_out_vals.get(), count * sizeof(u64), cudaMemcpyDeviceToHost));
  const std::string where =
      "count " + std::to_string(count) + ", own piece from " + std::to_string(plan.own_begin) + ", rank bits " +
      std::to_string(plan.rank_bits);
  EXPECT_EQ(got_vals, expect_vals) << where << ": places or input order";
  if (two_bytes)
    EXPECT_EQ(got_ranks, expect_ranks) << where;
  else
    EXPECT_EQ(got_keys, expect_keys) << where;
}

TEST(SplitAtBoundaryQuick, ThreePartsInInputOrderOwnPieceFirst) {
  std::mt19937_64 rng(50);
  for (u64 count : {u64{1}, u64{2}, u64{2047}, u64{2048}, u64{2049}, u64{100003}, (u64{1} << 22) + 5}) {
    std::vector<std::uint32_t> keys(count);
    for (auto& k : keys) k = 1000 + static_cast<std::uint32_t>(rng() % 64);  // many equal keys
    // Present bins from 1000: every one of the 64 (after the first) and a gap at 1010.
    std::vector<std::uint32_t> present_through(64);
    for (u64 b = 0; b < 64; ++b) present_through[b] = std::uint32_t(b) + 1 - (b >= 10);
    for (auto& k : keys)
      if (k == 1010) k = 1011;
    for (const u64 key : {u64{1000}, u64{1031}, u64{1063}, u64{5000}}) {  // first, middle, last, none equal
      for (const u64 own_begin : {u64{0}, count / 3, count}) {
        TwoWaySplit plan;
        plan.key = key;
        plan.own_begin = own_begin;
        expect_split(keys, plan, 1000);
        for (const int bits : {6, 17}) {  // 2-byte ranks, and ranks in the key's type
          plan.rank_bits = bits;
          expect_split(keys, plan, 1000, present_through);
        }
      }
    }
  }
}

TEST(SplitAtBoundaryQuick, EveryKeyEqualAndEightByteSignedKeys) {
  std::vector<std::uint32_t> same(10000, 7);
  TwoWaySplit plan;
  plan.key = 7;
  plan.own_begin = 4000;  // rank 1 keeps the last 6000 of the equal part
  expect_split(same, plan, 0);
  std::mt19937_64 rng(51);
  std::vector<std::int64_t> keys(3 * 2048 + 11);
  for (auto& k : keys) k = static_cast<std::int64_t>(rng() % 200) - 100;  // negative and positive
  plan.key = static_cast<u64>(KeyTraits<std::int64_t>::ordered(std::int64_t{-3}));
  plan.own_begin = 1234;
  expect_split(keys, plan, 0);
}

}  // namespace
}  // namespace sb::test
