// The host link's copy rates (device/link_bandwidth.hpp, issue 37): the JSON keys and their
// rounding on the CPU; with a GPU, that the three rates are measured and plausible.
#include <gtest/gtest.h>

#include <algorithm>

#include "sortbench/device/device_info.hpp"
#include "sortbench/device/link_bandwidth.hpp"

namespace {

using namespace sb;

TEST(LinkBandwidth, JsonHasTheThreeRatesToATenth) {
  const nlohmann::json j = to_json(LinkRates{54.04, 50.06, 89.31});
  EXPECT_EQ(j.size(), 3u);
  EXPECT_DOUBLE_EQ(j.at("link_h2d_gbs").get<double>(), 54.0);
  EXPECT_DOUBLE_EQ(j.at("link_d2h_gbs").get<double>(), 50.1);
  EXPECT_DOUBLE_EQ(j.at("link_both_gbs").get<double>(), 89.3);
}

TEST(LinkBandwidth, MeasuresBothDirectionsAndBothAtOnce) {
  if (auto why = cuda_unavailable_reason()) GTEST_SKIP() << "needs a CUDA device: " << *why;
  const LinkRates r = measure_link_rates(std::size_t{32} << 20);
  EXPECT_GT(r.h2d_gbs, 1.0);
  EXPECT_GT(r.d2h_gbs, 1.0);
  // Both at once moves twice the bytes: never much slower than one direction alone, and at most
  // the sum of the two (with noise).
  EXPECT_GT(r.both_gbs, 0.8 * std::min(r.h2d_gbs, r.d2h_gbs));
  EXPECT_LT(r.both_gbs, 1.2 * (r.h2d_gbs + r.d2h_gbs));
}

}  // namespace
