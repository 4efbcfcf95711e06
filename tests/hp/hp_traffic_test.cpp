// The bytes-a-key model behind every H-P row's details.traffic_bytes_per_key (kernels/hp/
// hp_traffic.hpp, issue 53) against docs/hp.md's per-kernel totals, and its range-sized share.
#include <gtest/gtest.h>

#include "../../kernels/hp/hp_traffic.hpp"

namespace sb::hp {
namespace {

// The passes alone: a range too small beside n to add a byte.
TrafficInput passes_only(unsigned key_bytes, unsigned value_bytes = 0) {
  TrafficInput in;
  in.key_bytes = key_bytes;
  in.value_bytes = value_bytes;
  in.n = 1e12;
  in.range = 1;
  return in;
}

double bytes(TrafficPath path, const TrafficInput& in) { return traffic_bytes_per_key(path, in); }

TEST(HpTraffic, KeysAloneMatchDocsTables) {
  // docs/hp.md: the floor 8 (read once, write once), the hybrid 16, hp-tiled 12, two levels 24.
  EXPECT_NEAR(bytes(TrafficPath::shared, passes_only(4)), 8, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::hybrid, passes_only(4)), 16, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::tiled, passes_only(4)), 12, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::tiled_split, passes_only(4)), 24, 1e-6);
  // 8-byte keys: read and written whole; the grouping's low bits and offsets stay as wide.
  EXPECT_NEAR(bytes(TrafficPath::tiled, passes_only(8)), 20, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::tiled_split, passes_only(8)), 36, 1e-6);
}

TEST(HpTraffic, PairsMatchDocsTables) {
  // docs/hp.md, issue 40's table: hp-tiled (and -stable) 30 and 54, hp-split-stable 34 and 62.
  EXPECT_NEAR(bytes(TrafficPath::tiled_pairs, passes_only(4, 4)), 30, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::tiled_pairs, passes_only(8, 8)), 54, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::split_pairs, passes_only(4, 4)), 34, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::split_pairs, passes_only(8, 8)), 62, 1e-6);
  // A scatter after the histogram: the keys counted, every pair read and written.
  EXPECT_NEAR(bytes(TrafficPath::scatter_pairs, passes_only(4, 4)), 20, 1e-6);
  TrafficInput hybrid = passes_only(4, 4);
  hybrid.scattered_hybrid = true;
  EXPECT_NEAR(bytes(TrafficPath::scatter_pairs, hybrid), 28, 1e-6);
}

TEST(HpTraffic, DigitPassesAndThePaperCountTheirPasses) {
  TrafficInput in = passes_only(4, 4);
  in.digit_passes = 4;
  EXPECT_NEAR(bytes(TrafficPath::digit_passes, in), 4 * (12 + 8), 1e-6);
  in.digit_passes = 0;  // one value: nothing to pass over
  EXPECT_NEAR(bytes(TrafficPath::digit_passes, in), 0, 1e-6);
  EXPECT_NEAR(bytes(TrafficPath::paper, passes_only(4)), 24, 1e-6);
}

TEST(HpTraffic, RangeSizedArraysAreSpreadOverTheKeys) {
  // n = 2^26, delta = sigma = 50: 3 words a bin and 2 runs of 8 bytes a distinct value.
  TrafficInput in;
  in.n = 67108864;
  in.range = in.n / 50;
  in.distinct = in.range / 50;
  EXPECT_NEAR(range_bytes_per_key(in), 12.0 / 50 + 16.0 / 2500, 1e-9);
  EXPECT_NEAR(bytes(TrafficPath::tiled, in), 12 + 12.0 / 50 + 16.0 / 2500, 1e-9);
  // Distinct count unknown: every bin of the range (at most n) counts as a run.
  in.distinct = 0;
  EXPECT_NEAR(range_bytes_per_key(in), 12.0 / 50 + 16.0 / 50, 1e-9);
  // Dense: the scanned counts written and read instead of runs; 64-bit counters twice as wide.
  in.dense = true;
  EXPECT_NEAR(range_bytes_per_key(in), 20.0 / 50, 1e-9);
  in.count_bytes = 8;
  EXPECT_NEAR(range_bytes_per_key(in), 40.0 / 50, 1e-9);
  // With values: the cursors, five words a bin.
  EXPECT_NEAR(cursor_bytes_per_key(in), 40.0 / 50, 1e-9);
  EXPECT_EQ(range_bytes_per_key(TrafficInput{}), 0.0);  // no keys
}

}  // namespace
}  // namespace sb::hp
