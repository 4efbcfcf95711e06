// A caller's arrays as a source (input/caller_array.hpp; issue 39 item 1), on the CPU: the dtype
// mapping and its one-line messages, argsort's positions, and a host Session over the source
// verifying as a file's would. The device fill runs on the GPU machine (tests/python, gpu mark).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <tuple>
#include <vector>

#include "sortbench/algo/registry.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/input/caller_array.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/session/session.hpp"

namespace {

using namespace sb;

TEST(CallerArray, DtypesMapToKeyTypesAndTheRestAreTypeErrors) {
  EXPECT_EQ(key_type_of_array(ArrayKind::signed_int, 32, "int32"), KeyType::i32);
  EXPECT_EQ(key_type_of_array(ArrayKind::unsigned_int, 64, "uint64"), KeyType::u64);
  EXPECT_EQ(key_type_of_array(ArrayKind::floating, 32, "float32"), KeyType::f32);
  EXPECT_EQ(key_type_of_array(ArrayKind::floating, 64, "float64"), KeyType::f64);
  for (const auto& [kind, bits, name] : {std::tuple{ArrayKind::floating, 16u, "float16"},
                                         std::tuple{ArrayKind::other, 8u, "bool"},
                                         std::tuple{ArrayKind::other, 64u, "complex64"},
                                         std::tuple{ArrayKind::signed_int, 8u, "int8"}}) {
    try {
      key_type_of_array(kind, bits, name);
      ADD_FAILURE() << name << " accepted";
    } catch (const ArrayTypeError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string("keys of dtype ") + name), std::string::npos) << m;
      EXPECT_NE(m.find("int32, uint32, int64, uint64, float32, float64"), std::string::npos) << m;
    }
  }
  EXPECT_EQ(payload_of_values(32, "float32"), Payload::u32);
  EXPECT_EQ(payload_of_values(64, "int64"), Payload::u64);
  EXPECT_THROW(payload_of_values(16, "int16"), ArrayTypeError);
}

TEST(CallerArray, PositionsRoundTripThroughTheirPayload) {
  EXPECT_EQ(positions_payload(std::uint64_t{1} << 32), Payload::index);
  EXPECT_EQ(positions_payload((std::uint64_t{1} << 32) + 1), Payload::u64);
  std::vector<std::uint64_t> wide{encode_value<std::uint64_t>(Payload::u64, 7),
                                  encode_value<std::uint64_t>(Payload::u64, (std::uint64_t{1} << 33) + 5)};
  std::vector<std::int64_t> out(2);
  decode_positions(Payload::u64, wide.data(), 2, out.data());
  EXPECT_EQ(out, (std::vector<std::int64_t>{7, (std::int64_t{1} << 33) + 5}));
  const std::vector<std::uint32_t> narrow{3, 0, 2};
  out.resize(3);
  decode_positions(Payload::index, narrow.data(), 3, out.data());
  EXPECT_EQ(out, (std::vector<std::int64_t>{3, 0, 2}));
}

TEST(CallerArray, NanKeysAreNamedByCountAndFirstPosition) {
  const std::vector<float> keys{1.f, 2.f, NAN, 0.f, NAN};
  try {
    refuse_nan_keys_in(KeyType::f32, keys.data(), keys.size(), "x");
    ADD_FAILURE() << "NaN keys accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("x: 2 NaN keys, the first at position 2"), std::string::npos) << e.what();
  }
}

TEST(CallerArray, AHostSessionSortsAndVerifiesArgsortPositions) {
  std::vector<std::int64_t> keys{5, -2, 5, 9, -2, 0, 5};
  CallerArrays a;
  a.shape = {keys.size(), KeyType::i64, positions_payload(keys.size())};
  a.keys = keys.data();
  a.positions = true;
  const auto source = make_caller_array_source(a);
  EXPECT_EQ(source->provenance().at("kind"), "array");
  EXPECT_EQ(source->default_range(), RangeMode::measured);
  EXPECT_FALSE(source->values_are_data());  // positions: the verifier checks them as positions
  SessionOptions options;
  options.placement = PlacementKind::host;
  options.repeated = false;
  Session session(source, options);
  EXPECT_EQ(session.facts().min, -2);
  EXPECT_EQ(session.facts().max, 9);
  const ResultRow row = session.run(*registry().find("cpu-stable-sort"), single_sample_settings(), {});
  ASSERT_EQ(row.status, RowStatus::ok) << row.reason;
  EXPECT_EQ(row.verification, "passed");

  struct Positions : OutputSink {
    std::vector<std::int64_t> order;
    bool wants(Column c) const override { return c == Column::values; }
    void write(Column, std::uint64_t first_byte, const unsigned char* data, std::uint64_t bytes) override {
      order.resize((first_byte + bytes) / 4);
      decode_positions(Payload::index, data, bytes / 4, order.data() + first_byte / 4);
    }
  } sink;
  session.drain(sink);
  std::vector<std::int64_t> expected(keys.size());
  std::iota(expected.begin(), expected.end(), 0);
  std::stable_sort(expected.begin(), expected.end(), [&](auto i, auto j) { return keys[i] < keys[j]; });
  EXPECT_EQ(sink.order, expected);
  // A slice keeps the whole array's positions.
  std::vector<std::uint32_t> tail(3);
  std::vector<std::int64_t> tail_keys(3);
  source->slice(4, 3)->fill_host(tail_keys.data(), tail.data());
  EXPECT_EQ(tail, (std::vector<std::uint32_t>{4, 5, 6}));
  EXPECT_EQ(tail_keys, (std::vector<std::int64_t>{-2, 0, 5}));
}

}  // namespace
