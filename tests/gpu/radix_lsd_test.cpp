// radix family cases beyond the GPU matrix (issue 5): every digit width 1..8, full 32-bit
// key ranges (all passes), rows with wide words, heavy duplicates across tile and block
// edges, a large input for radix-lsd, and the seed's n cap.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "radix/radix.hpp"
#include "sortbench/registry.hpp"
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

InputSpec full_range(std::uint64_t n, KeyType key, Payload payload) {
  InputRequest r;
  r.n = n;
  r.key = key;
  r.payload = payload;
  const bool is_signed = key == KeyType::i32;
  r.min_val = is_signed ? -(std::int64_t{1} << 31) : 0;
  r.max_val = is_signed ? (std::int64_t{1} << 31) : (std::int64_t{1} << 32);
  return derive_input_spec(r);
}

TEST(RadixGpu, EveryDigitWidthSortsFullRangeKeysStably) {
  for (unsigned bits = 1; bits <= radix::kMaxRadixBits; ++bits)
    for (const char* name : {"radix-lsd", "radix-lsd-seed"}) {
      expect_sorts(name, full_range(65537, KeyType::u32, Payload::index), bits);
      expect_sorts(name, full_range(4099, KeyType::i32, Payload::index), bits);
    }
}

TEST(RadixGpu, RowsWithWideWordsAndFloats) {
  for (unsigned bits : {4u, 8u})
    for (const char* name : {"radix-lsd", "radix-lsd-seed"}) {
      expect_sorts(name, full_range(100003, KeyType::u32x4, Payload::index), bits);
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
      for (unsigned bits : {1u, 8u})
        expect_sorts("radix-lsd", make_spec(n, Distribution::uniform, KeyType::u32, Payload::index, 50.0, len), bits);
}

TEST(RadixGpu, LargeInputs) {
  expect_sorts("radix-lsd", full_range(1ull << 26, KeyType::u32, Payload::index), 8);
  expect_sorts("radix-lsd", make_spec(1ull << 25, Distribution::zipf, KeyType::u32x4, Payload::index), 8);
}

TEST(RadixGpu, SeedDeclinesAboveItsCapWithAReason) {
  const Outcome out = run_device_once(algo("radix-lsd-seed"), make_spec(radix::kSeedMaxN + 1), {});
  ASSERT_TRUE(out.unsupported.has_value());
  EXPECT_NE(out.unsupported->find("2^20"), std::string::npos) << *out.unsupported;
}

}  // namespace
}  // namespace sb::test
