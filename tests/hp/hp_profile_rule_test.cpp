// hp-auto with a GPU profile (issue 50 item 2; kernels/hp/hp_auto_rule.hpp, measured_tiled_choice and
// measured_pairs_choice): the measured crossovers between hp-tiled and CUB replace the built-in
// ones for integer keys alone and for pairs within hp-tiled's pair ranges, and nothing else.
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

// The pairs rule's ranges as hp-auto builds them (2^16..2^22 bins); the other fields are unused.
AutoRule pairs_rule() {
  AutoRule r{};
  r.pairs_min_range = std::uint64_t{1} << 16;
  r.pairs_max_range = std::uint64_t{1} << 22;
  r.pairs_keys_per_bin = 16;
  r.pairs_bins_per_value = 16;
  return r;
}

TEST(HpProfileRule, APairsProfileThatSaysTiledWinsBelowTheBuiltInDeltaMakesHpAutoTakeIt) {
  // n = 2^26 pairs over 2^22 bins (delta 16), sigma 4: the built-in rule wants sigma >= 16.
  constexpr std::uint64_t n = std::uint64_t{1} << 26, range = std::uint64_t{1} << 22;
  const AutoInput pairs{n, range, true, true, range / 4};
  EXPECT_EQ(auto_choice(pairs, pairs_rule()), AutoChoice::cub);
  EXPECT_EQ(measured_pairs_choice(AutoChoice::cub, pairs, pairs_rule(), 8), AutoChoice::tiled);
  // A profile whose crossover lies above delta 16 keeps CUB, and takes CUB where the rule took hp-tiled.
  EXPECT_EQ(measured_pairs_choice(AutoChoice::cub, pairs, pairs_rule(), 32), AutoChoice::cub);
  const AutoInput sigma50{n, range, true, true, range / 50};
  EXPECT_EQ(auto_choice(sigma50, pairs_rule()), AutoChoice::tiled);
  EXPECT_EQ(measured_pairs_choice(AutoChoice::tiled, sigma50, pairs_rule(), 32), AutoChoice::cub);
}

TEST(HpProfileRule, APairsProfileKeepsHpTiledsRangesAndLeavesKeysAlone) {
  constexpr std::uint64_t n = std::uint64_t{1} << 28;
  // Past 2^22 bins or below 2^16 hp-tiled's pair path does not take the range: the rule stands.
  const AutoInput past{n, std::uint64_t{1} << 23, true, true, 0};
  EXPECT_EQ(measured_pairs_choice(AutoChoice::cub, past, pairs_rule(), 1), AutoChoice::cub);
  EXPECT_EQ(measured_pairs_choice(AutoChoice::cub, AutoInput{n, 1000, true, true, 0}, pairs_rule(), 1),
            AutoChoice::cub);
  // Keys alone, float keys and 2^32 keys: not the pairs crossover's.
  EXPECT_EQ(measured_pairs_choice(AutoChoice::smem, AutoInput{n, 1 << 20, true, false, 0}, pairs_rule(), 1e9),
            AutoChoice::smem);
  EXPECT_EQ(measured_pairs_choice(AutoChoice::cub, AutoInput{n, 1 << 20, false, true, 0}, pairs_rule(), 1),
            AutoChoice::cub);
  EXPECT_EQ(measured_pairs_choice(AutoChoice::cub, AutoInput{kMaxRange, 1 << 20, true, true, 0}, pairs_rule(), 1),
            AutoChoice::cub);
}

}  // namespace
}  // namespace sb::hp
