// sortbench tune's fit and check on the CPU (suite/tune.hpp, issue 50 items 1 and 4): the
// crossover from measured points, and when a re-measured point agrees with the profile.
#include <gtest/gtest.h>

#include "sortbench/suite/tune.hpp"

namespace sb {
namespace {

TunePoint point(double delta, double tiled_ms, double cub_ms) {
  TunePoint p;
  p.delta = delta;
  p.tiled_ms = tiled_ms;
  p.cub_ms = cub_ms;
  return p;
}

TEST(TuneFit, TheCrossoverIsWhereHpTiledWinsFromThereOn) {
  // Unordered on purpose: CUB at 0.5, hp-tiled from 1 up.
  EXPECT_EQ(fit_tiled_crossover({point(2, 2.0, 3.0), point(0.5, 4.0, 3.0), point(1, 2.5, 3.0)}), 1);
  // A win below a loss does not count: the crossover is past the last loss.
  EXPECT_EQ(fit_tiled_crossover({point(0.5, 2.0, 3.0), point(1, 3.5, 3.0), point(2, 2.0, 3.0)}), 2);
  // Never winning, or losing at the largest delta: never.
  EXPECT_EQ(fit_tiled_crossover({point(1, 4.0, 3.0), point(6, 2.0, 3.0), point(24, 3.1, 3.0)}), kNeverTiled);
  // Unsupported (no hp-tiled time) is a loss.
  EXPECT_EQ(fit_tiled_crossover({point(1, 0, 3.0), point(2, 1.0, 3.0)}), 2);
  EXPECT_EQ(fit_tiled_crossover({}), kNeverTiled);
}

TEST(TuneCheck, APointAgreesWhenTheProfilesWinnerWonOrItWasATie) {
  EXPECT_TRUE(judge_point(point(2, 2.0, 3.0), 1.5, 0.03).agrees);   // predicted hp-tiled, it won
  EXPECT_FALSE(judge_point(point(2, 3.5, 3.0), 1.5, 0.03).agrees);  // predicted hp-tiled, CUB won
  EXPECT_TRUE(judge_point(point(1, 3.5, 3.0), 1.5, 0.03).agrees);   // predicted CUB, it won
  EXPECT_TRUE(judge_point(point(2, 3.05, 3.0), 1.5, 0.03).agrees);  // within 3 %: a tie
  EXPECT_FALSE(judge_point(point(1, 0, 3.0), 0.5, 0.03).agrees);    // predicted hp-tiled, it could not run
  EXPECT_TRUE(judge_point(point(2, 2.0, 3.0), 1.5, 0.03).predicted_tiled);
}

RadixPoint radix(int digits, double whole_ms, double bits_ms) { return {KeyType::u32, digits, whole_ms, bits_ms}; }

TEST(TuneFit, TheRadixCrossoverIsWhereWholeKeysWinFromThereOn) {
  // Offsets win at 1 and 2 digits, the whole keys from 3 of 4 (a tie counts for the whole keys).
  EXPECT_EQ(fit_radix_crossover({radix(3, 2.0, 2.0), radix(1, 2.0, 1.0), radix(2, 2.0, 1.5)}, 4), 3);
  // A win below a loss does not count.
  EXPECT_EQ(fit_radix_crossover({radix(1, 1.0, 2.0), radix(2, 2.0, 1.5), radix(3, 2.0, 2.1)}, 4), 3);
  // Offsets winning at the largest count measured: only all the digits (the built-in rule).
  EXPECT_EQ(fit_radix_crossover({radix(6, 1.0, 2.0), radix(7, 2.0, 1.9)}, 8), 8);
  EXPECT_EQ(fit_radix_crossover({}, 8), 8);
}

TEST(TuneCheck, ARadixPointAgreesWhenThePredictedSortWonOrItWasATie) {
  EXPECT_TRUE(judge_radix_point(radix(3, 2.0, 2.5), 3, 0.03).agrees);   // predicted whole keys, they won
  EXPECT_FALSE(judge_radix_point(radix(3, 2.5, 2.0), 3, 0.03).agrees);  // predicted whole keys, offsets won
  EXPECT_TRUE(judge_radix_point(radix(2, 2.5, 2.0), 3, 0.03).agrees);   // predicted offsets, they won
  EXPECT_TRUE(judge_radix_point(radix(2, 2.02, 2.0), 3, 0.03).agrees);  // within 3 %: a tie
  EXPECT_FALSE(judge_radix_point(radix(2, 2.0, 2.5), 3, 0.03).predicted_whole);
}

}  // namespace
}  // namespace sb
