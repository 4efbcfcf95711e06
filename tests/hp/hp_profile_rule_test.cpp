// hp-auto with a GPU profile (issue 50 item 2; kernels/hp/hp_auto_rule.hpp, measured_tiled_choice):
// the measured crossover between hp-tiled and CUB replaces the built-in one for integer keys
// alone, and nothing else.
#include <gtest/gtest.h>

#include "../../kernels/hp/hp_auto_rule.hpp"

namespace sb::hp {
namespace {

constexpr std::uint64_t kN = std::uint64_t{1} << 28;

TEST(HpProfileRule, AProfileThatSaysTiledWinsAtDeltaOneMakesHpAutoTakeIt) {
  // n = 2^28, delta = sigma = 1: the built-in rule (from an H100) handed this input to CUB.
  const AutoInput dense{kN, kN, true, false, kN};
  EXPECT_EQ(measured_tiled_choice(AutoChoice::cub, dense, 0.75, true), AutoChoice::tiled);
  // ... unless hp-tiled cannot take the input.
  EXPECT_EQ(measured_tiled_choice(AutoChoice::cub, dense, 0.75, false), AutoChoice::cub);
}

TEST(HpProfileRule, AProfileThatSaysCubWinsBelowItsCrossoverTakesCub) {
  const AutoInput delta2{kN, kN / 2, true, false, 0};
  EXPECT_EQ(measured_tiled_choice(AutoChoice::tiled, delta2, 3.0, true), AutoChoice::cub);
  EXPECT_EQ(measured_tiled_choice(AutoChoice::tiled, delta2, 2.0, true), AutoChoice::tiled);
}

TEST(HpProfileRule, OtherChoicesAndOtherInputsStand) {
  const AutoInput small_range{kN, 1000, true, false, 0};
  EXPECT_EQ(measured_tiled_choice(AutoChoice::smem, small_range, 1e9, true), AutoChoice::smem);
  EXPECT_EQ(measured_tiled_choice(AutoChoice::hybrid, AutoInput{kN, kN / 8, true, false, 0}, 1e9, true),
            AutoChoice::hybrid);
  // Pairs and float keys: the profile measured keys alone.
  EXPECT_EQ(measured_tiled_choice(AutoChoice::cub, AutoInput{kN, kN, true, true, 0}, 0.5, true), AutoChoice::cub);
  EXPECT_EQ(measured_tiled_choice(AutoChoice::cub, AutoInput{kN, kN, false, false, 0}, 0.5, true), AutoChoice::cub);
}

}  // namespace
}  // namespace sb::hp
