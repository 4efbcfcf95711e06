// Bitonic family cases beyond the matrix: padding sentinels tied with real maximum keys,
// tile sizes other than the device default, signed zeros, and a padded n near 2^27.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sortbench/keys.hpp"
#include "sortbench/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

std::vector<const Algorithm*> bitonic_algorithms() { return registry().select("bitonic-*", Backend::gpu); }

void expect_sorts(const Algorithm& a, const InputSpec& spec, const Params& params = {}) {
  const Reference ref = make_reference(spec);
  const Outcome out = run_device_once(a, spec, params);
  ASSERT_FALSE(out.unsupported) << a.name << ": " << *out.unsupported;
  expect_matches_reference(a, spec, ref, out);
}

// Keys equal to the padding sentinel (u32 0xffffffff, i32 INT_MAX) must keep their payload.
TEST(BitonicGpu, RealKeysEqualToTheSentinel) {
  for (const Algorithm* a : bitonic_algorithms())
    for (std::uint64_t n : {std::uint64_t{3}, std::uint64_t{1000}, std::uint64_t{65537}, (std::uint64_t{1} << 20) + 3}) {
      InputRequest r;
      r.n = n;
      r.payload = Payload::index;
      r.key = KeyType::u32;
      r.max_val = std::int64_t{1} << 32;
      r.min_val = r.max_val.value() - 3;
      expect_sorts(*a, derive_input_spec(r));
      r.key = KeyType::i32;
      r.max_val = std::int64_t{1} << 31;
      r.min_val = r.max_val.value() - 3;
      expect_sorts(*a, derive_input_spec(r));
    }
}

TEST(BitonicGpu, TileSizes) {
  for (const Algorithm* a : bitonic_algorithms()) {
    if (std::find(a->params.begin(), a->params.end(), "tile") == a->params.end()) continue;
    for (const char* tile : {"2", "4", "64", "1024", "4096"})
      for (std::uint64_t n : {std::uint64_t{5}, std::uint64_t{4096}, std::uint64_t{100003}})
        for (Payload p : {Payload::none, Payload::index})
          expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::f32, p, std::nullopt, std::nullopt, -1000),
                       {{"tile", tile}, {"block", "64"}});
  }
}

TEST(BitonicGpu, SignedZeros) {
  const std::uint64_t n = 3001;
  std::vector<float> keys(n);
  for (std::uint64_t i = 0; i < n; ++i) keys[i] = (i % 3 == 0) ? -0.0f : (i % 3 == 1) ? 0.0f : float(int(i % 7) - 3);
  std::vector<index_t> vals(n);
  for (std::uint64_t i = 0; i < n; ++i) vals[i] = static_cast<index_t>(i);
  SortProblem problem;
  problem.spec = make_spec(n, Distribution::uniform, KeyType::f32, Payload::index);
  problem.realized.n = n;
  for (const Algorithm* a : bitonic_algorithms()) {
    std::vector<float> out_keys = keys;
    std::vector<index_t> out_vals = vals;
    sort_host_keys_on_device(*a, problem, out_keys.data(), out_vals.data());
    EXPECT_TRUE(std::is_sorted(out_keys.begin(), out_keys.end())) << a->name;
    std::vector<bool> seen(n, false);
    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_LT(out_vals[i], n) << a->name;
      ASSERT_FALSE(seen[out_vals[i]]) << a->name;
      seen[out_vals[i]] = true;
      EXPECT_EQ(float_bits(keys[out_vals[i]]), float_bits(out_keys[i])) << a->name << ": sign of zero kept";
    }
  }
}

TEST(BitonicGpu, LargePaddedN) {
  const InputSpec spec =
      make_spec((std::uint64_t{1} << 26) + 1, Distribution::uniform, KeyType::f32, Payload::index, 8.0);
  for (const char* name : {"bitonic-b2b4b8b16c2c4", "bitonic-b2b4b8b16"}) expect_sorts(*registry().find(name), spec);
}

}  // namespace
}  // namespace sb::test
