// The schedules of seed 003 (bitonic_schedule.hpp): every (stage, step) of the network covered
// exactly once and in order, by kernels that can run it.
#include <gtest/gtest.h>

#include "bitonic_schedule.hpp"

namespace sb::bitonic {
namespace {

std::vector<StageStep> network_order(unsigned log_n) {
  std::vector<StageStep> out;
  for (unsigned s = 1; s <= log_n; ++s)
    for (unsigned j = s; j-- > 0;) out.push_back({s, j});
  return out;
}

TEST(BitonicSchedule, EveryStageStepOnceInOrder) {
  for (const Schedule& sc : schedules())
    for (unsigned log_n = 0; log_n <= 28; ++log_n)
      for (unsigned tile_log : {1u, 2u, 5u, 10u, 13u, 14u}) {
        const unsigned tl = std::min(tile_log, log_n);
        std::vector<StageStep> seen;
        for (const Launch& l : plan_launches(sc, log_n, tl)) {
          const auto pairs = covered_pairs(l);
          ASSERT_EQ(pairs.size(), l.count);
          switch (l.kernel) {
            case Kernel::global_steps:
              EXPECT_FALSE(sc.split);
              EXPECT_GE(l.count, 1u);
              EXPECT_LE(l.count, sc.max_global_steps);
              EXPECT_EQ(pairs.back().stage, l.stage) << "a register kernel stays inside its stage";
              if (sc.shared) EXPECT_GE(pairs.back().step, tl) << "steps below the tile belong to C2";
              break;
            case Kernel::shared_steps:
              EXPECT_TRUE(sc.shared);
              for (const StageStep& p : pairs) EXPECT_LT(p.step, tl) << sc.name;
              EXPECT_EQ(pairs.back().step, 0u) << "C2 ends its stages";
              EXPECT_EQ(pairs.back().stage, l.last_stage);
              break;
            case Kernel::split:
              EXPECT_TRUE(sc.split);
              EXPECT_EQ(l.count, 1u);
              break;
          }
          seen.insert(seen.end(), pairs.begin(), pairs.end());
        }
        EXPECT_EQ(seen, network_order(log_n)) << sc.name << " log_n " << log_n << " tile_log " << tl;
      }
}

std::size_t launches_of(const std::string& name, unsigned log_n, unsigned tile_log) {
  for (const Schedule& sc : schedules())
    if (sc.name == name) return plan_launches(sc, log_n, tile_log).size();
  ADD_FAILURE() << name;
  return 0;
}

TEST(BitonicSchedule, PassCounts) {
  // B2 and split: one launch per step, log n (log n + 1) / 2 (the article's host loop).
  EXPECT_EQ(launches_of("bitonic-b2", 27, 13), 378u);
  EXPECT_EQ(launches_of("bitonic-split", 20, 13), 210u);
  // B2C2, tile 2^10, n 2^20: one C2 for stages 1..10, then per stage s = 11..20 the
  // s - 10 steps at or above the tile in B2, then C2.
  EXPECT_EQ(launches_of("bitonic-b2c2", 20, 10), 1u + (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10) + 10);
  // B2B4B8B16C2, tile 2^13, n 2^27: stages 14..27 have 1..14 global steps, ceil(k / 4) launches.
  EXPECT_EQ(launches_of("bitonic-b2b4b8b16c2", 27, 13), 1u + (4 * 1 + 4 * 2 + 4 * 3 + 2 * 4) + 14);
  EXPECT_EQ(launches_of("bitonic-b2b4b8b16c2c4", 27, 13), launches_of("bitonic-b2b4b8b16c2", 27, 13));
  // No shared memory: stage s in ceil(s / 4) launches.
  EXPECT_EQ(launches_of("bitonic-b2b4b8b16", 8, 13), 1u + 1 + 1 + 1 + 2 + 2 + 2 + 2);
  // Everything in one tile.
  EXPECT_EQ(launches_of("bitonic-b2c2", 8, 8), 1u);
}

TEST(BitonicSchedule, TrafficCountsEveryPassAndThePadding) {
  EXPECT_EQ(traffic_bytes(10, 4, 16, 8), 10u * 2 * 16 * 8);
  EXPECT_EQ(traffic_bytes(10, 4, 9, 8), (10u * 2 * 16 + (9 + 16) + 2 * 9) * 8);
  EXPECT_EQ(traffic_bytes(0, 0, 1, 8), 0u);
}

TEST(BitonicSchedule, KernelNames) {
  const Schedule& c2c4 = schedules()[5];
  ASSERT_EQ(c2c4.name, "bitonic-b2b4b8b16c2c4");
  std::vector<std::string> names;
  for (const Launch& l : plan_launches(c2c4, 9, 2)) names.push_back(kernel_name(l, c2c4.shared_round));
  EXPECT_EQ(names.front(), "C2C4");
  EXPECT_NE(std::find(names.begin(), names.end(), "B16"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "B8"), names.end());
}

TEST(BitonicSchedule, ThreadsForResidentBlocks) {
  // Hopper: 65536 registers per SM, allocated per warp in units of 256.
  EXPECT_EQ(threads_for_resident_blocks(128, 65536, 2, 32, 256), 256u);  // C16 with payload
  EXPECT_EQ(threads_for_resident_blocks(40, 65536, 2, 32, 256), 800u);   // 51 warps per SM, 25 per block
  EXPECT_EQ(threads_for_resident_blocks(32, 65536, 2, 32, 256), 1024u);
  EXPECT_EQ(threads_for_resident_blocks(28, 65536, 2, 32, 256), 1024u);  // 28 rounds up to 32
  EXPECT_EQ(threads_for_resident_blocks(33, 65536, 1, 32, 256), 1632u);  // 33 rounds up to 40: 51 warps
  EXPECT_EQ(threads_for_resident_blocks(255, 65536, 16, 32, 256), 0u);  // 8 warps per SM
  EXPECT_EQ(threads_for_resident_blocks(32, 65536, 0, 32, 256), 0u);
}

TEST(BitonicSchedule, SharedBlockKeepsMostThreadsResident) {
  // H200: 2048 threads, 32 blocks, 65536 registers per SM; 64 KiB tiles (8192 key+index
  // elements), three of which fit 228 KiB of shared memory.
  const auto h200 = [](unsigned regs, unsigned max_block) { return SmLimits{regs, max_block, 3, 2048, 32, 65536, 32, 256}; };
  // C16 with payload, 128 registers: 2 x 256 threads (1 x 512 keeps as many, fewer tiles).
  EXPECT_EQ(shared_block(h200(128, 512), 512).threads, 256u);
  EXPECT_EQ(shared_block(h200(128, 512), 512).blocks, 2u);
  // C2C4 with payload, 40 registers: 3 x 512 (1024 would leave one block per SM).
  EXPECT_EQ(shared_block(h200(40, 1024), 2048).threads, 512u);
  EXPECT_EQ(shared_block(h200(40, 1024), 2048).blocks, 3u);
  EXPECT_EQ(resident_blocks(h200(40, 1024), 1024), 1u);
  EXPECT_EQ(resident_blocks(h200(40, 1024), 800), 2u);
  // C2, 28 registers (allocated as 32): 2 x 1024.
  EXPECT_EQ(shared_block(h200(28, 1024), 4096).threads, 1024u);
  EXPECT_EQ(shared_block(h200(28, 1024), 4096).blocks, 2u);
  // Never more threads than groups; a block size above the kernel's limit does not launch.
  EXPECT_EQ(shared_block(h200(28, 1024), 8).threads, 8u);
  EXPECT_EQ(resident_blocks(h200(28, 1024), 2048), 0u);
}

}  // namespace
}  // namespace sb::bitonic
