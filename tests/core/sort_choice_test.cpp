// The automatic choices on the CPU (issue 50 item 3): how range_radix_sort sorts a range
// (algo/range_radix_sort.hpp), and what `sort --algo auto` / Python sort() pick for it
// (suite/sort_once.hpp), with the rule that ties them: a range that needs every 8-bit digit of
// the key sorts whole keys, so auto takes cub-radix and cub-radix-bits adds no passes.
#include <algorithm>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/suite/sort_once.hpp"

namespace sb {
namespace {

constexpr std::uint64_t kU32Max = 0xFFFFFFFFu;

TEST(RangeRadixPlan, OneDistinctKeyIsAlreadySorted) {
  EXPECT_EQ(range_radix_plan(KeyType::i64, 77, 77).way, RangeRadixWay::already_sorted);
}

TEST(RangeRadixPlan, ARangeNeedingEveryDigitSortsWholeKeys) {
  // i32 over its full domain: 32 bits of span, 4 digits of 4.
  const RangeRadixPlan full = range_radix_plan(KeyType::i32, KeyTraits<std::int32_t>::ordered(INT32_MIN),
                                               KeyTraits<std::int32_t>::ordered(INT32_MAX));
  EXPECT_EQ(full.way, RangeRadixWay::whole_keys);
  EXPECT_EQ(full.end_bit, 32);
  // 25 bits of span are 4 digits too: offsets would sort as many digits and add two passes.
  EXPECT_EQ(range_radix_plan(KeyType::i32, 0, (1u << 24)).way, RangeRadixWay::whole_keys);
  EXPECT_EQ(range_radix_plan(KeyType::u64, 5, ~std::uint64_t{0}).end_bit, 64);
  EXPECT_EQ(range_radix_plan(KeyType::f64, KeyTraits<double>::ordered(-1e300), KeyTraits<double>::ordered(1e300)).way,
            RangeRadixWay::whole_keys);
}

TEST(RangeRadixPlan, ANarrowRangeSortsFewerDigits) {
  // i32 keys in [1000, 1000 + 2^20): offsets on 20 bits (3 digits), not the key's 4.
  const std::uint64_t lo = KeyTraits<std::int32_t>::ordered(1000);
  const RangeRadixPlan narrow = range_radix_plan(KeyType::i32, lo, lo + (1u << 20) - 1);
  EXPECT_EQ(narrow.way, RangeRadixWay::offsets);
  EXPECT_EQ(narrow.end_bit, 20);
  // u32 keys below 2^20 sort on their own bits: as few digits as the offsets, no mapping.
  const RangeRadixPlan own = range_radix_plan(KeyType::u32, 3, (1u << 20) - 1);
  EXPECT_EQ(own.way, RangeRadixWay::own_bits);
  EXPECT_EQ(own.end_bit, 20);
  // u32 keys near 2^32 with a span of 2^16: their own bits would take 4 digits, the offsets 2.
  EXPECT_EQ(range_radix_plan(KeyType::u32, kU32Max - 65535, kU32Max).way, RangeRadixWay::offsets);
}

std::string choice(KeyType key, double range, std::uint64_t n, bool values = false) {
  std::string why;
  const std::string name = choose_algorithm(Backend::gpu, key, values, false, range, n, why);
  EXPECT_FALSE(why.empty()) << name;
  return name;
}

// A profile's radix crossover moves auto's boundary for ranges sorted as offsets, only there: a
// range of 3 digits of u64 keys far from 0 goes to the whole keys where the profile measured
// them at least as fast from 3 digits on, keeps the offsets below, and a range from 0 (its own
// bits, no mapping) or another key type keeps the built-in rule.
TEST(SortChoice, AProfilesRadixCrossoverMovesTheOffsetsBoundary) {
  ChoiceProfile profile;
  profile.path = "h200.json";
  profile.radix_whole_from_digits = {{KeyType::u64, 3}};
  const std::uint64_t n = std::uint64_t{1} << 24, base = std::uint64_t{1} << 61;
  auto pick = [&](KeyType key, std::uint64_t min, std::uint64_t max, const ChoiceProfile* p) {
    KeyFacts facts;
    facts.n = n;
    facts.min_ordered = min;
    facts.max_ordered = max;
    std::string why;
    const std::string name =
        choose_algorithm(Backend::gpu, key, false, false, double(max - min) + 1, n, why, &facts, p);
    if (name == "cub-radix") EXPECT_NE(why.find("h200.json"), std::string::npos) << why;
    return name;
  };
  EXPECT_EQ(pick(KeyType::u64, base, base + (1u << 20), &profile), "cub-radix");         // 21 bits: 3 digits
  EXPECT_EQ(pick(KeyType::u64, base, base + (1u << 20), nullptr), "cub-radix-bits");     // no profile
  EXPECT_EQ(pick(KeyType::u64, base, base + (1u << 12), &profile), "cub-radix-bits");    // 2 digits
  EXPECT_EQ(pick(KeyType::u64, 0, std::uint64_t{1} << 20, &profile), "cub-radix-bits");  // its own bits
  EXPECT_EQ(pick(KeyType::i64, base, base + (1u << 20), &profile), "cub-radix-bits");    // not measured
}

TEST(SortChoice, AFullRangeKeyGoesToPlainCub) {
  const std::uint64_t n = std::uint64_t{1} << 28;
  EXPECT_EQ(choice(KeyType::i32, 4294967296.0, n), "cub-radix");
  EXPECT_EQ(choice(KeyType::u64, 18446744073709551616.0, n), "cub-radix");
  EXPECT_EQ(choice(KeyType::u64, 18446744073709551616.0, n, true), "cub-radix");
  EXPECT_EQ(choice(KeyType::f32, 4294967296.0, n), "cub-radix");
}

TEST(SortChoice, ANarrowRangeKeepsTheBitsSort) {
  const std::uint64_t n = std::uint64_t{1} << 20;
  EXPECT_EQ(choice(KeyType::u64, 1e9, n), "cub-radix-bits");  // 30 bits of 64
  EXPECT_EQ(choice(KeyType::f64, 65536.0, n), "cub-radix-bits");  // an ordered span of 17 bits
  EXPECT_EQ(choice(KeyType::i32, 1e7, n), "cub-radix-bits");  // 24 bits of 32, too sparse for H-P
  EXPECT_EQ(choice(KeyType::u32, 1e6, n), "hp-auto");         // dense 32-bit keys: H-P
}

SortProblem problem(KeyType key, Payload payload, std::uint64_t n, std::uint64_t min_ordered,
                    std::uint64_t max_ordered) {
  SortProblem p;
  p.shape = {n, key, payload};
  p.facts.n = n;
  p.facts.min_ordered = min_ordered;
  p.facts.max_ordered = max_ordered;
  return p;
}

std::string detail(const Details& d, const std::string& key) {
  for (const auto& [k, v] : d)
    if (k == key) return v;
  return "";
}

TEST(AutoRow, IsAChooserThatAllLeavesOut) {
  const Algorithm* a = registry().find("auto");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->role, AlgorithmRole::chooser);
  const auto all = registry().select("all", Backend::gpu);
  EXPECT_EQ(std::find(all.begin(), all.end(), a), all.end());
  EXPECT_EQ(registry().select("auto", Backend::gpu).front(), a);
}

TEST(AutoRow, RunsWhatSortAutoWouldChooseAndSaysSo) {
  const Algorithm& a = registry().named("auto");
  const std::uint64_t n = std::uint64_t{1} << 20;
  // i32 over its whole domain: plain CUB, the keys sorted whole.
  const SortProblem full = problem(KeyType::i32, Payload::none, n, 0, 0xFFFFFFFFu);
  EXPECT_EQ(detail(a.details(full), "variant"), "cub-radix");
  EXPECT_FALSE(a.why_unsupported(full));
  // u64 keys over 2^30 with values: CUB on the range's bits, as offsets.
  const SortProblem narrow = problem(KeyType::u64, Payload::u64, n, std::uint64_t{1} << 40, (std::uint64_t{1} << 40) + (1u << 30));
  const Details d = a.details(narrow);
  EXPECT_EQ(detail(d, "variant"), "cub-radix-bits");
  EXPECT_EQ(detail(d, "offset"), "key - min");
  EXPECT_FALSE(detail(d, "why").empty());
}

}  // namespace
}  // namespace sb
