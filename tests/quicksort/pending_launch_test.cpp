// CPU tests of the DP sorts' pending-launch limit (issue 35 item 3): how prepare raises it by
// halves where the runtime refuses a size (quicksort_index.hpp raise_by_halves), and the
// bookkeeping in the device context's memo that lets release put back the value prepare found
// (KernelFacts keep_limit / take_limit; no CUDA call, so no GPU needed).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "quicksort_index.hpp"
#include "sortbench/core/device_context.hpp"

namespace sb::qs {
namespace {

// A runtime that accepts limits up to `most` and records every size asked for.
struct FakeLimit {
  u64 most;
  std::vector<u64> asked;
  bool operator()(u64 want) {
    asked.push_back(want);
    return want <= most;
  }
};

TEST(PendingLaunches, AlreadyHighEnoughAsksForNothing) {
  FakeLimit set{u64(1) << 20, {}};
  EXPECT_EQ(raise_by_halves(4096, 4096, set), 4096u);
  EXPECT_EQ(raise_by_halves(8192, 4096, set), 8192u);
  EXPECT_TRUE(set.asked.empty());
}

TEST(PendingLaunches, TakesTheFirstSizeTheRuntimeAccepts) {
  FakeLimit roomy{u64(1) << 20, {}};
  EXPECT_EQ(raise_by_halves(2048, u64(1) << 18, roomy), u64(1) << 18);
  EXPECT_EQ(roomy.asked, (std::vector<u64>{u64(1) << 18}));

  FakeLimit tight{u64(1) << 16, {}};
  EXPECT_EQ(raise_by_halves(2048, u64(1) << 18, tight), u64(1) << 16);
  EXPECT_EQ(tight.asked, (std::vector<u64>{u64(1) << 18, u64(1) << 17, u64(1) << 16}));
}

TEST(PendingLaunches, RefusedDownToTheCurrentSizeKeepsIt) {
  FakeLimit none{1000, {}};
  EXPECT_EQ(raise_by_halves(2048, 10000, none), 2048u);
  EXPECT_EQ(none.asked, (std::vector<u64>{10000, 5000, 2500}));  // never at or below the current size
}

TEST(PendingLaunches, ReleasePutsBackTheValueTheFirstRaiseFound) {
  KernelFacts memo;
  EXPECT_FALSE(memo.take_limit(cudaLimitDevRuntimePendingLaunchCount).has_value());  // never raised
  memo.keep_limit(cudaLimitDevRuntimePendingLaunchCount, 2048);
  memo.keep_limit(cudaLimitDevRuntimePendingLaunchCount, 1 << 18);  // a second raise found the first's value
  memo.keep_limit(cudaLimitStackSize, 1024);                        // another limit is kept apart
  EXPECT_EQ(memo.take_limit(cudaLimitDevRuntimePendingLaunchCount), std::optional<std::size_t>(2048));
  EXPECT_FALSE(memo.take_limit(cudaLimitDevRuntimePendingLaunchCount).has_value());  // put back once
  EXPECT_EQ(memo.take_limit(cudaLimitStackSize), std::optional<std::size_t>(1024));
}

}  // namespace
}  // namespace sb::qs
