// Bitonic family cases beyond the matrix: padding sentinels tied with real maximum keys,
// tile sizes other than the device default, signed zeros, and a padded n near 2^27; 64-bit
// keys and values (u64 keys with a u64 payload, f64 keys) on the schedules that take them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sortbench/core/keys.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

std::vector<const Algorithm*> bitonic_algorithms() { return registry().select("bitonic-*", Backend::gpu); }

// The schedules that take 64-bit keys and every payload (bitonic_schedule.cpp: all_types).
constexpr const char* kAllTypes = "bitonic-b32c16,bitonic-b32c4";
std::vector<const Algorithm*> all_types_algorithms() { return registry().select(kAllTypes, Backend::gpu); }

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

// Keys equal to the 64-bit sentinels (u64 all ones, i64 INT64_MAX, f64 +inf), with values
// of every width (the sentinel's value is the largest of its column).
TEST(BitonicGpu, RealKeysEqualToTheSixtyFourBitSentinel) {
  for (const Algorithm* a : all_types_algorithms())
    for (std::uint64_t n : {std::uint64_t{3}, std::uint64_t{1000}, std::uint64_t{65537}, (std::uint64_t{1} << 20) + 3})
      for (Payload p : {Payload::none, Payload::index, Payload::u32, Payload::u64}) {
        InputRequest r;
        r.n = n;
        r.payload = p;
        r.key = KeyType::u64;
        r.max_val = wide_t{1} << 64;
        r.min_val = r.max_val.value() - 3;
        expect_sorts(*a, derive_input_spec(r));
        r.key = KeyType::i64;
        r.max_val = wide_t{1} << 63;
        r.min_val = r.max_val.value() - 3;
        expect_sorts(*a, derive_input_spec(r));
        // -inf, +inf and signed zeros only: a third of the keys tie with the f64 sentinel.
        for (KeyType k : {KeyType::f64, KeyType::f32})
          expect_sorts(*a, make_spec(n, Distribution::real, k, p, std::nullopt, 3));
      }
}

// u64 keys with a u64 payload and f64 keys, through every kind of launch (register passes
// above the tile, one shared-memory launch below it) at sizes padded and not.
TEST(BitonicGpu, SixtyFourBitKeys) {
  for (const Algorithm* a : all_types_algorithms())
    for (std::uint64_t n : {std::uint64_t{2}, std::uint64_t{33}, std::uint64_t{4096}, std::uint64_t{100003},
                            std::uint64_t{1} << 20, (std::uint64_t{1} << 22) + 5}) {
      expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::u64, Payload::u64));
      expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::u64, Payload::u64, 1000.0));  // duplicates
      expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::f64, Payload::none, std::nullopt, std::nullopt,
                                 -static_cast<wide_t>(n)));
      expect_sorts(*a, make_spec(n, Distribution::real, KeyType::f64, Payload::u64, std::nullopt, std::nullopt,
                                 -static_cast<wide_t>(n)));
      expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::f64, Payload::index, 4.0, std::nullopt, -7));
      expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::i64, Payload::u32, std::nullopt, std::nullopt,
                                 -static_cast<wide_t>(n)));
      expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::u32, Payload::u64));
    }
}

// The seeds' schedules take what the seeds define (32-bit keys, index payload); ours take
// every scalar key type and value column.
TEST(BitonicGpu, DeclaredElementTypes) {
  for (const Algorithm* a : bitonic_algorithms()) {
    const bool all_types = a->name == "bitonic-b32c16" || a->name == "bitonic-b32c4";
    for (KeyType k : {KeyType::u32, KeyType::i32, KeyType::f32}) EXPECT_TRUE(a->supports_key(k)) << a->name;
    for (KeyType k : {KeyType::u64, KeyType::i64, KeyType::f64}) EXPECT_EQ(a->supports_key(k), all_types) << a->name;
    EXPECT_FALSE(a->supports_key(KeyType::u32x4)) << a->name;
    for (Payload p : {Payload::none, Payload::index, Payload::u32}) EXPECT_TRUE(a->supports_payload(p)) << a->name;
    EXPECT_EQ(a->supports_payload(Payload::u64), all_types) << a->name;
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
  // 16-byte elements: 8192 of them take 128 KiB of shared memory, past the default tile.
  for (const Algorithm* a : all_types_algorithms())
    for (const char* tile : {"2", "64", "4096", "8192"})
      for (std::uint64_t n : {std::uint64_t{5}, std::uint64_t{8192}, std::uint64_t{100003}}) {
        expect_sorts(*a, make_spec(n, Distribution::uniform, KeyType::u64, Payload::u64),
                     {{"tile", tile}, {"block", "64"}});
        expect_sorts(*a,
                     make_spec(n, Distribution::uniform, KeyType::f64, Payload::u64, std::nullopt, std::nullopt, -1000),
                     {{"tile", tile}});
      }
}

TEST(BitonicGpu, SignedZeros) {
  const std::uint64_t n = 3001;
  std::vector<float> keys(n);
  for (std::uint64_t i = 0; i < n; ++i) keys[i] = (i % 3 == 0) ? -0.0f : (i % 3 == 1) ? 0.0f : float(int(i % 7) - 3);
  std::vector<index_t> vals(n);
  for (std::uint64_t i = 0; i < n; ++i) vals[i] = static_cast<index_t>(i);
  SortProblem problem;
  problem.shape = make_spec(n, Distribution::uniform, KeyType::f32, Payload::index).shape();
  problem.facts.n = n;
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

// u64 keys with a u64 payload: 16 bytes an element, 4096-element tiles (a case of its own, issue 48).
TEST(BitonicGpu, LargePaddedNSixteenByteElements) {
  const InputSpec wide = make_spec((std::uint64_t{1} << 24) + 1, Distribution::uniform, KeyType::u64, Payload::u64);
  for (const Algorithm* a : all_types_algorithms()) expect_sorts(*a, wide);
}

}  // namespace
}  // namespace sb::test
