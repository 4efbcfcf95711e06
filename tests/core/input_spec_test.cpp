// Parameter derivation (seed 004 sections 1.3, 6.2) and its error messages.
#include <gtest/gtest.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/input/input_params.hpp"

namespace sb {
namespace {

InputSpec derive(InputRequest r) { return derive_input_spec(r); }

std::string error_of(const InputRequest& r) {
  try {
    derive_input_spec(r);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "message must be one line";
    return e.what();
  }
  ADD_FAILURE() << "expected a UsageError";
  return {};
}

TEST(ParseCount, AcceptsPlainSuffixPowerAndScientific) {
  EXPECT_EQ(parse_count("16777216"), 16777216u);
  EXPECT_EQ(parse_count("16M"), 16777216u);
  EXPECT_EQ(parse_count("16m"), 16777216u);
  EXPECT_EQ(parse_count("2^24"), 16777216u);
  EXPECT_EQ(parse_count("4K"), 4096u);
  EXPECT_EQ(parse_count("1G"), 1u << 30);
  EXPECT_EQ(parse_count("1e6"), 1000000u);
  EXPECT_EQ(parse_count("0"), 0u);
}

TEST(ParseCount, RejectsNegativeGarbageAndOverflow) {
  for (const char* bad : {"-5", "abc", "", "12x", "2^", "2^99", "99999999999999999999", "1e30", "17179869184G"})
    EXPECT_THROW(parse_count(bad), UsageError) << bad;
  EXPECT_EQ(parse_value("-2^31", "--min-val"), -(std::int64_t{1} << 31));
  EXPECT_EQ(parse_value("1000", "--max-val"), 1000);
}

TEST(DeriveInputSpec, DefaultsAreDeltaOneOverTwoToThe24) {
  const InputSpec s = derive({});
  EXPECT_EQ(s.n, kDefaultN);
  EXPECT_EQ(s.min_val, 0);
  EXPECT_EQ(s.range, s.n);
  EXPECT_EQ(s.max_val, static_cast<std::int64_t>(s.n));
  EXPECT_EQ(s.len, s.n);
  EXPECT_DOUBLE_EQ(s.delta(), 1.0);
  EXPECT_DOUBLE_EQ(s.sigma(), 1.0);
}

TEST(DeriveInputSpec, DeltaAndSigmaGiveRangeAndLen) {
  InputRequest r;
  r.n = 1000000;
  r.delta = 50;
  r.sigma = 50;
  const InputSpec s = derive(r);
  EXPECT_EQ(s.range, 20000u);
  EXPECT_EQ(s.max_val, 20000);
  EXPECT_EQ(s.len, 400u);
}

TEST(DeriveInputSpec, LenAndSigmaGiveTheRange) {
  InputRequest r;
  r.n = 100;
  r.len = 5;
  r.sigma = 2;
  EXPECT_EQ(derive(r).range, 10u);
}

TEST(DeriveInputSpec, NFollowsFromDeltaAndMaxVal) {
  InputRequest r;
  r.delta = 10;
  r.max_val = 1000;
  const InputSpec s = derive(r);
  EXPECT_EQ(s.n, 10000u);
  EXPECT_EQ(s.range, 1000u);
}

TEST(DeriveInputSpec, FractionalDeltaMeansRangeAboveN) {
  InputRequest r;
  r.n = 1000;
  r.delta = 0.25;
  r.dist = Distribution::distinct;
  const InputSpec s = derive(r);
  EXPECT_EQ(s.range, 4000u);
  EXPECT_EQ(s.len, 1000u);
}

TEST(DeriveInputSpec, NegativeMinValShiftsTheRange) {
  InputRequest r;
  r.n = 100;
  r.min_val = -50;
  r.key = KeyType::i32;
  const InputSpec s = derive(r);
  EXPECT_EQ(s.min_val, -50);
  EXPECT_EQ(s.max_val, 50);
}

TEST(DeriveInputSpec, DistributionDefaultsForLen) {
  InputRequest r;
  r.n = 100;
  r.delta = 0.5;
  r.dist = Distribution::equal;
  EXPECT_EQ(derive(r).len, 1u);
  r.dist = Distribution::distinct;
  EXPECT_EQ(derive(r).len, 100u);
  r.dist = Distribution::zipf;
  EXPECT_EQ(derive(r).len, 100u);
  r.delta = 4;
  r.dist = Distribution::uniform;
  EXPECT_EQ(derive(r).len, 25u);
}

TEST(DeriveInputSpec, ErrorsNameTheProblem) {
  InputRequest r;
  r.delta = 0;
  EXPECT_NE(error_of(r).find("--delta"), std::string::npos);
  r = {};
  r.delta = -1;
  EXPECT_NE(error_of(r).find("> 0"), std::string::npos);
  r = {};
  r.sigma = 0.5;
  EXPECT_NE(error_of(r).find("--sigma"), std::string::npos);
  r = {};
  r.n = 100;
  r.max_val = 50;
  r.len = 60;
  EXPECT_NE(error_of(r).find("exceeds range"), std::string::npos);
  r = {};
  r.n = 10;
  r.max_val = 100;
  r.len = 20;
  EXPECT_NE(error_of(r).find("exceeds -n"), std::string::npos);
  r = {};
  r.min_val = 10;
  r.max_val = 10;
  EXPECT_NE(error_of(r).find("must be below"), std::string::npos);
  r = {};
  r.min_val = -(std::int64_t{1} << 33);
  EXPECT_NE(error_of(r).find("--key u32 holds values in [0, 4294967295]"), std::string::npos);
  r = {};
  r.max_val = std::int64_t{1} << 33;
  EXPECT_NE(error_of(r).find("--key u32 holds values in"), std::string::npos);
  r = {};
  r.key = KeyType::i64;
  r.min_val = -(wide_t{1} << 63) - 1;
  EXPECT_NE(error_of(r).find("--key i64 holds values in [-9223372036854775808, 9223372036854775807]"),
            std::string::npos);
  r = {};
  r.n = 1u << 20;
  r.delta = 50;
  r.max_val = 1000;
  EXPECT_NE(error_of(r).find("at most two"), std::string::npos);
  r = {};
  r.n = 100;
  r.max_val = 50;
  r.dist = Distribution::distinct;
  EXPECT_NE(error_of(r).find("distinct"), std::string::npos);
  r = {};
  r.n = 100;
  r.max_val = 100;
  r.len = 5;
  r.sigma = 2;
  EXPECT_NE(error_of(r).find("conflict"), std::string::npos);
  r = {};
  r.key = KeyType::u32;
  r.min_val = -1;
  EXPECT_NE(error_of(r).find("--key u32"), std::string::npos);
  r = {};
  r.key = KeyType::f32;
  r.n = 1u << 25;
  EXPECT_NE(error_of(r).find("--key f32"), std::string::npos);
  r = {};
  r.key = KeyType::i32;
  r.min_val = 0;
  r.max_val = (std::int64_t{1} << 31) + 1;
  EXPECT_NE(error_of(r).find("--key i32"), std::string::npos);
  r = {};
  r.n = (std::uint64_t{1} << 32) + 1;
  r.payload = Payload::index;
  r.delta = 2;
  EXPECT_NE(error_of(r).find("--payload index"), std::string::npos);
}

TEST(DeriveInputSpec, AcceptsExtremesOfTheKeyTypes) {
  InputRequest r;
  r.n = 1000;
  r.key = KeyType::i32;
  r.min_val = -(std::int64_t{1} << 31);
  r.max_val = std::int64_t{1} << 31;
  EXPECT_EQ(derive(r).range, std::uint64_t{1} << 32);
  r.key = KeyType::u32;
  r.min_val = 0;
  r.max_val = std::int64_t{1} << 32;
  EXPECT_EQ(derive(r).range, std::uint64_t{1} << 32);
}

}  // namespace
}  // namespace sb
