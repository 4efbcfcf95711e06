// hp-hybrid's support checks that need no GPU (kernels/hp/hp_fast_rule.cpp, hybrid_unsupported;
// docs/hp.md, the hybrid from 2^32 keys): 64-bit counts take 2^32 keys alone and the buffered
// scatter only, the bucket widths 12..16, and the 4,096-bucket limit at the width asked for.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "sortbench/algo/registry.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/input_params.hpp"

namespace sb {
namespace {

const Algorithm& hybrid() {
  static const Registry r = [] {
    Registry hp;
    register_hp(hp);
    return hp;
  }();
  return *r.find("hp-hybrid");
}

// u32 keys 0..range - 1, n of them, with the given payload and parameters.
SortProblem problem_of(std::uint64_t n, std::uint64_t range, Params params = {}, Payload payload = Payload::none) {
  InputSpec spec;
  spec.n = n;
  spec.payload = payload;
  SortProblem p{spec.shape(), {}, std::move(params)};
  p.facts.min_ordered = 0;
  p.facts.max_ordered = range - 1;
  return p;
}

std::string why(const SortProblem& p) { return hybrid().why_unsupported(p).value_or(""); }

constexpr std::uint64_t kN32 = std::uint64_t{1} << 32;

TEST(HpHybridLimits, SixtyFourBitCountsTakeKeysAloneAndTheBufferedScatter) {
  EXPECT_NE(why(problem_of(kN32, kN32 / 50, {{"scatter", "grouped"}})).find("scatter=grouped counts in 32 bits"),
            std::string::npos);
  EXPECT_NE(why(problem_of(1 << 20, 1 << 18, {{"scatter", "grouped"}, {"count_bits", "64"}}))
                .find("scatter=grouped counts in 32 bits"),
            std::string::npos);
  EXPECT_NE(why(problem_of(kN32, kN32 / 50, {}, Payload::u32)).find("n at or above 2^32"), std::string::npos);
  EXPECT_THROW(why(problem_of(kN32, kN32 / 50, {{"count_bits", "32"}})), UsageError);
  EXPECT_THROW(why(problem_of(1 << 20, 1 << 18, {{"count_bits", "64"}}, Payload::u32)), UsageError);
}

TEST(HpHybridLimits, BucketsOfTwelveToSixteenBitsAndAtMost4096OfThem) {
  EXPECT_THROW(why(problem_of(1 << 20, 1 << 18, {{"low_bits", "17"}})), UsageError);
  EXPECT_THROW(why(problem_of(1 << 20, 1 << 18, {{"low_bits", "11"}})), UsageError);
  // 2^28 values: 8,192 buckets of 2^15 bins by default, 4,096 of 2^16 when asked.
  const std::uint64_t n = std::uint64_t{1} << 30, range = std::uint64_t{1} << 28;
  EXPECT_NE(why(problem_of(n, range)).find("above 4096 buckets of 2^15 bins"), std::string::npos);
  EXPECT_EQ(why(problem_of(n, range, {{"low_bits", "16"}})), "");
  EXPECT_NE(why(problem_of(n, range + 1, {{"low_bits", "16"}})).find("above 4096 buckets of 2^16 bins"),
            std::string::npos);
}

}  // namespace
}  // namespace sb
