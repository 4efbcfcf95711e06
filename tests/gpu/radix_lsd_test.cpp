// radix family cases beyond the GPU matrix (issue 5): every digit width 1..8, full 32- and
// 64-bit key ranges (all passes), rows with wide words, float edge values, every payload
// width, heavy duplicates across tile and block edges, large inputs for radix-lsd, and the
// seed's n cap and element types.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "radix/radix.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

const Algorithm& algo(const char* name) {
  const Algorithm* a = registry().find(name);
  if (!a) throw std::runtime_error(fmt::format("{} is not registered", name));
  return *a;
}

void expect_sorts(const char* name, const InputSpec& spec, unsigned bits) {
  SCOPED_TRACE(fmt::format("{} radix-bits={} {}", name, bits, describe(spec)));
  const Reference ref = make_reference(spec);
  const Outcome out = run_device_once(algo(name), spec, {{"radix-bits", std::to_string(bits)}});
  ASSERT_FALSE(out.unsupported) << *out.unsupported;
  expect_matches_reference(algo(name), spec, ref, out);
}


InputSpec entropy_keys(std::uint64_t n, KeyType key, Payload payload, double entropy) {
  InputRequest r;
  r.n = n;
  r.key = key;
  r.payload = payload;
  r.dist = Distribution::entropy;
  r.entropy = entropy;
  return derive_input_spec(r);
}

TEST(RadixGpu, EveryDigitWidthSortsFullRangeKeysStably) {
  for (unsigned bits = 1; bits <= radix::kMaxRadixBits; ++bits) {
    for (const char* name : {"radix-lsd", "radix-lsd-seed"}) {
      expect_sorts(name, full_domain_spec(65537, KeyType::u32, Payload::index), bits);
      expect_sorts(name, full_domain_spec(4099, KeyType::i32, Payload::index), bits);
    }
    // 64-bit words: all 64 bits sorted (64 passes at 1 bit).
    expect_sorts("radix-lsd", full_domain_spec(65537, KeyType::u64, Payload::u64), bits);
    expect_sorts("radix-lsd", full_domain_spec(4099, KeyType::i64, Payload::index), bits);
    expect_sorts("radix-lsd", full_domain_spec(4099, KeyType::f64, Payload::u32), bits);
  }
}

TEST(RadixGpu, SixtyFourBitKeysWithEveryPayload) {
  for (KeyType key : {KeyType::u64, KeyType::i64, KeyType::f64})
    for (Payload payload : all_payloads())
      for (unsigned bits : {4u, 8u}) {
        // Whole domain, partial tiles and blocks.
        expect_sorts("radix-lsd", full_domain_spec(1000003, key, payload), bits);
        // Signed keys straddling zero, a few thousand values: high digits constant, skipped.
        expect_sorts("radix-lsd",
                     make_spec(300007, Distribution::uniform, key, payload, 50.0, {},
                               key == KeyType::u64 ? std::nullopt : std::optional<wide_t>(-3000)),
                     bits);
        if (key == KeyType::f64) {
          // -inf, +inf, zeros of both signs (in input order, as '<' ties them), fractions.
          expect_sorts("radix-lsd", make_spec(300007, Distribution::real, key, payload), bits);
        } else {
          expect_sorts("radix-lsd", entropy_keys(300007, key, payload, 0.811), bits);
        }
      }
}

TEST(RadixGpu, ThirtyTwoBitKeysAndRowsWithSixtyFourBitValues) {
  for (KeyType key : {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4})
    for (Payload payload : {Payload::none, Payload::u32, Payload::u64})
      expect_sorts("radix-lsd", full_domain_spec(300007, key, payload), 8);
  expect_sorts("radix-lsd", make_spec(300007, Distribution::real, KeyType::f32, Payload::u64), 8);
  for (Payload payload : {Payload::none, Payload::index, Payload::u32})
    expect_sorts("radix-lsd-seed", make_spec(100003, Distribution::real, KeyType::f32, payload), 8);
}

TEST(RadixGpu, RowsWithWideWordsAndFloats) {
  for (unsigned bits : {4u, 8u})
    for (const char* name : {"radix-lsd", "radix-lsd-seed"}) {
      expect_sorts(name, full_domain_spec(100003, KeyType::u32x4, Payload::index), bits);
      expect_sorts(name, make_spec(100003, Distribution::uniform, KeyType::u32x4, Payload::index, 0.001), bits);
      // f32 integers in [-2^24, 2^24): negative floats reverse their bit order.
      expect_sorts(name, make_spec(1u << 20, Distribution::uniform, KeyType::f32, Payload::index, 1.0 / 32, {},
                                   -(std::int64_t{1} << 24)),
                   bits);
    }
}

TEST(RadixGpu, HeavyDuplicatesAcrossTileAndBlockEdges) {
  // 3 and 17 distinct values: long runs of one digit in every tile, every block.
  for (std::uint64_t len : {3ull, 17ull})
    for (std::uint64_t n : {4095ull, 4097ull, (1ull << 20) + 1, 3000017ull})
      for (unsigned bits : {1u, 8u}) {
        expect_sorts("radix-lsd", make_spec(n, Distribution::uniform, KeyType::u32, Payload::index, 50.0, len), bits);
        expect_sorts("radix-lsd", make_spec(n, Distribution::uniform, KeyType::i64, Payload::u64, 50.0, len, -7),
                     bits);
      }
}

// Large inputs, one case each (issue 48: together they ran past a minute beside other tests).
TEST(RadixGpu, LargeU32KeysWithIndex) {
  expect_sorts("radix-lsd", full_domain_spec(1ull << 26, KeyType::u32, Payload::index), 8);
}

TEST(RadixGpu, LargeU32x4ZipfRowsWithIndex) {
  expect_sorts("radix-lsd", make_spec(1ull << 25, Distribution::zipf, KeyType::u32x4, Payload::index), 8);
}

TEST(RadixGpu, LargeU64Keys) { expect_sorts("radix-lsd", full_domain_spec(1ull << 26, KeyType::u64, Payload::none), 8); }

TEST(RadixGpu, LargeU64KeysWithU64Values) {
  expect_sorts("radix-lsd", full_domain_spec(1ull << 25, KeyType::u64, Payload::u64), 8);
}

TEST(RadixGpu, SeedDeclinesSixtyFourBitElements) {
  for (KeyType key : {KeyType::u64, KeyType::i64, KeyType::f64}) {
    const Outcome out = run_device_once(algo("radix-lsd-seed"), make_spec(1000, Distribution::uniform, key), {});
    EXPECT_TRUE(out.unsupported.has_value()) << to_string(key);
  }
  const Outcome out =
      run_device_once(algo("radix-lsd-seed"), make_spec(1000, Distribution::uniform, KeyType::u32, Payload::u64), {});
  EXPECT_TRUE(out.unsupported.has_value());
}

TEST(RadixGpu, SeedDeclinesAboveItsCapWithAReason) {
  const Outcome out = run_device_once(algo("radix-lsd-seed"), make_spec(radix::kSeedMaxN + 1), {});
  ASSERT_TRUE(out.unsupported.has_value());
  EXPECT_NE(out.unsupported->find("2^20"), std::string::npos) << *out.unsupported;
}

}  // namespace
}  // namespace sb::test
