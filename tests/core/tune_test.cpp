// sortbench tune's fit and check on the CPU (suite/tune.hpp, issue 50 items 1 and 4): the
// crossover from measured points, the distributed ways' scales, and when a re-measured point
// agrees with the profile.
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

DistPoint way(const char* name, std::uint64_t n, double measured_ms, double predicted_ms,
              Payload payload = Payload::none) {
  return {2, payload, n, name, measured_ms, predicted_ms};
}

// A chunk size's two runs give its steady rate (their slope) and its fill (what the smaller run
// took beyond its bytes at that rate); a run faster than its rate allows gives no negative fill.
TEST(TuneFit, AStreamChunksRateIsTheSlopeOfItsTwoRunsAndItsFillTheRest) {
  StreamPoint p;
  p.chunk_bytes = std::uint64_t{64} << 20;
  p.small_bytes = std::uint64_t{1} << 29;  // 0.5 GiB: 14 ms
  p.large_bytes = std::uint64_t{1} << 31;  // 2 GiB: 44 ms
  p.small_ms = 14;
  p.large_ms = 44;
  const StreamChunkCost c = fit_stream_chunk(p, "ooc-hp");
  EXPECT_EQ(c.algorithm, "ooc-hp");
  EXPECT_EQ(c.chunk_bytes, p.chunk_bytes);
  EXPECT_DOUBLE_EQ(c.ms_per_gib, 20.0);
  EXPECT_DOUBLE_EQ(c.fill_ms, 4.0);
  p.small_ms = 9;  // below 10 ms at 20 ms a GiB: no fill, not a negative one
  p.large_ms = 39;
  EXPECT_DOUBLE_EQ(fit_stream_chunk(p, "ooc-hp").fill_ms, 0.0);
}

TEST(TuneFit, EachDistributedWayGetsTheMedianOfItsMeasuredOverPredicted) {
  const std::vector<DistScale> scales =
      fit_dist_scales({way("dist-hp", 1, 3.0, 2.0), way("dist-hp", 2, 1.0, 1.0), way("dist-hp", 3, 12.0, 4.0),
                       way("dist-sample-sort", 1, 2.0, 4.0), way("dist-sample-sort", 2, 3.0, 4.0),
                       way("dist-hp", 1, 2.0, 1.0, Payload::u32), way("one-gpu", 1, 0, 1.0)});
  ASSERT_EQ(scales.size(), 3u);  // a way with no measured time gets no scale
  ChoiceProfile p;
  p.dist_scales = scales;
  EXPECT_EQ(dist_scale(p, 2, false, "dist-hp"), 1.5);           // median of 1.5, 1, 3
  EXPECT_EQ(dist_scale(p, 2, false, "dist-sample-sort"), 0.625);  // mean of the middle two
  EXPECT_EQ(dist_scale(p, 2, true, "dist-hp"), 2.0);
  EXPECT_FALSE(dist_scale(p, 2, false, "one-gpu"));
  EXPECT_FALSE(dist_scale(p, 4, false, "dist-hp"));
}

TEST(TuneCheck, ADistributedPointAgreesWhenTheScaledPredictionPicksTheFastestOrATie) {
  ChoiceProfile p;
  // Predicted dist-hp (1.0 against 2.0), and it was the fastest.
  EXPECT_TRUE(judge_dist_points({way("dist-hp", 1, 1.0, 1.0), way("dist-sample-sort", 1, 2.0, 2.0)}, p, 0.03).agrees);
  // Predicted dist-hp, but the sample sort won by more than the tie.
  const DistCheck wrong =
      judge_dist_points({way("dist-hp", 1, 3.0, 1.0), way("dist-sample-sort", 1, 2.0, 2.0)}, p, 0.03);
  EXPECT_FALSE(wrong.agrees);
  EXPECT_EQ(wrong.predicted, "dist-hp");
  EXPECT_EQ(wrong.fastest, "dist-sample-sort");
  // The profile's scale for dist-hp (measured 3x its prediction) moves the prediction to the winner.
  p.dist_scales = {{2, false, "dist-hp", 3.0}};
  EXPECT_TRUE(judge_dist_points({way("dist-hp", 1, 3.0, 1.0), way("dist-sample-sort", 1, 2.0, 2.0)}, p, 0.03).agrees);
  // Within 3 %: a tie.
  EXPECT_TRUE(
      judge_dist_points({way("dist-hp", 1, 2.05, 1.0), way("dist-sample-sort", 1, 2.0, 4.0)}, ChoiceProfile{}, 0.03)
          .agrees);
}

}  // namespace
}  // namespace sb
