// The one fit rule (place/placement_plan.hpp; issue 49 item 1): what a whole input on one GPU
// needs, against the free memory or the --gpu-memory-limit, and how its shortfall reads.
#include <gtest/gtest.h>

#include "sortbench/place/placement_plan.hpp"

namespace sb {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

TEST(PlacementPlan, ASingleRunNeedsTwoCopiesABenchmarkThree) {
  EXPECT_EQ(device_fit(4 * GiB, false, 100 * GiB, 0).needed(), 8 * GiB);
  EXPECT_EQ(device_fit(4 * GiB, true, 100 * GiB, 0).needed(), 12 * GiB);
  // Exactly full fits; a byte more does not.
  EXPECT_TRUE(device_fit(4 * GiB, false, 8 * GiB, 0).fits());
  EXPECT_FALSE(device_fit(4 * GiB + 1, false, 8 * GiB, 0).fits());
}

TEST(PlacementPlan, TheLimitCountsOnlyWhereItIsBelowWhatIsFree) {
  const DeviceFit limited = device_fit(4 * GiB, false, 100 * GiB, 6 * GiB);
  EXPECT_TRUE(limited.limited);
  EXPECT_EQ(limited.usable, 6 * GiB);
  EXPECT_FALSE(limited.fits());
  const DeviceFit above = device_fit(4 * GiB, false, 10 * GiB, 64 * GiB);
  EXPECT_FALSE(above.limited);
  EXPECT_EQ(above.usable, 10 * GiB);
  EXPECT_TRUE(above.fits());
  EXPECT_TRUE(device_fit(0, true, 0, 0).fits());  // an empty input needs nothing
}

// A sort of a file exactly twice the limit's half (issue 52's note: a 1 GiB u64 file under
// --gpu-memory-limit 2G exited 4) has no room for the sort beside it: it streams.
TEST(PlacementPlan, ASingleSortFitsOnlyWithItsWorkspaceBesideTheCopies) {
  EXPECT_TRUE(device_fit(GiB, false, 80 * GiB, 2 * GiB).fits());
  const DeviceFit with_sort = device_fit(GiB, false, 80 * GiB, 2 * GiB, 40 << 20);
  EXPECT_EQ(with_sort.needed(), 2 * GiB + (40 << 20));
  EXPECT_FALSE(with_sort.fits());
  EXPECT_EQ(with_sort.shortfall("it streams"),
            "the input needs 2.0 GiB on the GPU (input plus a work buffer of 1.0 GiB each, and a sort's workspace of "
            "40.0 MiB) but 2.0 GiB is the --gpu-memory-limit; it streams");
}

TEST(PlacementPlan, TheShortfallNamesTheBytesTheCopiesAndTheFix) {
  EXPECT_EQ(device_fit(12 * GiB, false, 8 * GiB, 0).shortfall("lower -n"),
            "the input needs 24.0 GiB on the GPU (input plus a work buffer of 12.0 GiB each) but 8.0 GiB are free; "
            "lower -n");
  EXPECT_EQ(device_fit(GiB, true, 80 * GiB, GiB).shortfall("it streams"),
            "the input needs 3.0 GiB on the GPU (input plus two work buffers of 1.0 GiB each) but 1.0 GiB is the "
            "--gpu-memory-limit; it streams");
}

}  // namespace
}  // namespace sb
