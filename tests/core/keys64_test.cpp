// 64-bit keys, value columns and the new distributions (issue 13): key traits at the edge
// values, the payload codec, the full u64 and i64 domains, real and entropy inputs, and the
// verifier on every payload width. CPU only; tests/gpu checks the device generator against
// the same element functions.
#include <gtest/gtest.h>

#include <bitset>
#include <cstring>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/verify/verify.hpp"
#include "support/sortbench_test.hpp"

namespace sb {
namespace {

constexpr wide_t kTwo63 = wide_t{1} << 63;
constexpr wide_t kTwo64 = wide_t{1} << 64;

template <typename K>
std::vector<K> generate(const InputSpec& s) {
  std::vector<K> keys(s.n);
  generate_host(s, keys.data(), nullptr);
  return keys;
}

template <typename K>
void expect_ordered_round_trip(const std::vector<K>& edge) {
  for (K a : edge) {
    EXPECT_EQ(KeyTraits<K>::bits(KeyTraits<K>::from_ordered(KeyTraits<K>::ordered(a))), KeyTraits<K>::bits(a));
    for (K b : edge)
      if (KeyTraits<K>::less(a, b)) EXPECT_LT(KeyTraits<K>::ordered(a), KeyTraits<K>::ordered(b));
  }
}

TEST(KeyTraits, OrderedFormRoundTripsAndKeepsOrderAtTheEdges) {
  expect_ordered_round_trip<std::uint64_t>({0, 1, std::uint64_t{1} << 63, ~std::uint64_t{0}});
  expect_ordered_round_trip<std::int64_t>(
      {std::numeric_limits<std::int64_t>::min(), -1, 0, 1, std::numeric_limits<std::int64_t>::max()});
  const double inf = std::numeric_limits<double>::infinity();
  expect_ordered_round_trip<double>({-inf, -1e300, -2.5, -0.0, 0.0, 1e-300, 3.75, inf});
  const float finf = std::numeric_limits<float>::infinity();
  expect_ordered_round_trip<float>({-finf, -2.5f, -0.0f, 0.0f, 3.75f, finf});
  EXPECT_LT(KeyTraits<double>::ordered(-0.0), KeyTraits<double>::ordered(0.0));
  EXPECT_FALSE(KeyTraits<double>::less(-0.0, 0.0));
}

TEST(ElementDispatch, ListsDeriveWhatAnAlgorithmTakes) {
  EXPECT_EQ(key_types_of(ScalarKeys{}).size(), 6u);
  const auto payloads = payloads_of(AllValues{});
  EXPECT_EQ(payloads, all_payloads());
  EXPECT_EQ(payloads_of(KeysOnly{}), std::vector<Payload>{Payload::none});
  EXPECT_EQ(payloads_of(TypeList<NoValue, std::uint32_t>{}),
            (std::vector<Payload>{Payload::none, Payload::index, Payload::u32}));
  const std::size_t width = dispatch_element<AllKeys, AllValues>(
      KeyType::f64, Payload::u64, [](auto k, auto v) { return sizeof(k) + sizeof(v); });
  EXPECT_EQ(width, 16u);
  EXPECT_THROW(dispatch_key<Keys32>(KeyType::u64, [](auto) {}), std::logic_error);
}

TEST(Values, EveryPayloadNamesItsPosition) {
  for (std::uint64_t i : {0ull, 1ull, 77ull, 65535ull, (1ull << 32) - 1}) {
    std::uint64_t pos = 0;
    ASSERT_TRUE(decode_value<std::uint32_t>(Payload::index, encode_value<std::uint32_t>(Payload::index, i), pos));
    EXPECT_EQ(pos, i);
    ASSERT_TRUE(decode_value<std::uint32_t>(Payload::u32, encode_value<std::uint32_t>(Payload::u32, i), pos));
    EXPECT_EQ(pos, i);
  }
  for (std::uint64_t i : {0ull, 5ull, (1ull << 32) + 3, (1ull << 36) - 1}) {
    const std::uint64_t v = encode_value<std::uint64_t>(Payload::u64, i);
    std::uint64_t pos = 0;
    ASSERT_TRUE(decode_value<std::uint64_t>(Payload::u64, v, pos));
    EXPECT_EQ(pos, i);
    // A truncated or bit-flipped value names no element.
    EXPECT_FALSE(decode_value<std::uint64_t>(Payload::u64, v & 0xffffffffu, pos) && i > 0xffffffffu);
    EXPECT_FALSE(decode_value<std::uint64_t>(Payload::u64, v ^ (1ull << 50), pos));
  }
  EXPECT_NE(encode_value<std::uint32_t>(Payload::u32, 5), 5u);
}

TEST(InputSpec64, TheFullU64AndI64DomainsAreExpressible) {
  InputRequest r;
  r.key = KeyType::u64;
  r.n = 4096;
  r.min_val = 0;
  r.max_val = kTwo64;
  const InputSpec u = derive_input_spec(r);
  EXPECT_TRUE(u.range == kTwo64);
  const auto keys = generate<std::uint64_t>(u);
  EXPECT_EQ(std::set<std::uint64_t>(keys.begin(), keys.end()).size(), 4096u);
  const KeyFacts s = input_stats_host(u, keys.data());
  EXPECT_EQ(s.len, 4096u);
  EXPECT_GT(s.max_ordered, std::uint64_t{1} << 63) << "values spread over the whole domain";

  // Every value of [-2^63, -2^63 + 64) and of [2^63 - 64, 2^63) occurs: the domain's ends.
  r = {};
  r.key = KeyType::i64;
  r.n = 64;
  r.dist = Distribution::distinct;
  r.min_val = -kTwo63;
  const InputSpec lo = derive_input_spec(r);
  const auto low = generate<std::int64_t>(lo);
  EXPECT_EQ(*std::min_element(low.begin(), low.end()), std::numeric_limits<std::int64_t>::min());
  r.min_val = kTwo63 - 64;
  const auto high = generate<std::int64_t>(derive_input_spec(r));
  EXPECT_EQ(*std::max_element(high.begin(), high.end()), std::numeric_limits<std::int64_t>::max());
  r.min_val = std::nullopt;
  r.max_val = kTwo63 + 1;
  EXPECT_THROW(derive_input_spec(r), UsageError);

  // u64 keys past 2^63 with a small range: the H-P family's natural case.
  r = {};
  r.key = KeyType::u64;
  r.n = 10000;
  r.min_val = (wide_t{1} << 62) * 3;
  r.delta = 4;
  const InputSpec window = derive_input_spec(r);
  const auto wk = generate<std::uint64_t>(window);
  const KeyFacts ws = input_stats_host(window, wk.data());
  EXPECT_EQ(ws.len, window.len);
  EXPECT_GE(ws.min_ordered, std::uint64_t{3} << 62);
  EXPECT_LT(ws.max_ordered - ws.min_ordered, 2500u);
  EXPECT_TRUE(ws.min == static_cast<wide_t>(ws.min_ordered));
}

template <typename K>
void expect_real_input(KeyType key) {
  const InputSpec s = test::make_spec(5000, Distribution::real, key, Payload::none, std::nullopt, std::nullopt,
                                      -2000);
  const auto keys = generate<K>(s);
  bool neg_inf = false, pos_inf = false, zero = false, fractional = false;
  for (K k : keys) {
    ASSERT_FALSE(std::isnan(k));
    neg_inf |= std::isinf(k) && k < 0;
    pos_inf |= std::isinf(k) && k > 0;
    zero |= k == K(0);
    fractional |= std::isfinite(k) && std::trunc(k) != k;
  }
  EXPECT_TRUE(neg_inf && pos_inf && zero && fractional) << to_string(key);
  const KeyFacts st = input_stats_host(s, keys.data());
  EXPECT_EQ(st.len, s.len);
  EXPECT_FALSE(st.integral);
}

TEST(Generator64, RealInputsHoldInfinitiesZerosAndFractions) {
  expect_real_input<float>(KeyType::f32);
  expect_real_input<double>(KeyType::f64);
}

TEST(Generator64, EntropyLevelsSetTheBitDensity) {
  for (auto [entropy, words] : {std::pair{1.0, 1u}, {0.811, 2u}, {0.544, 3u}, {0.337, 4u}, {0.201, 5u}}) {
    InputRequest r;
    r.key = KeyType::u64;
    r.n = 20000;
    r.dist = Distribution::entropy;
    r.entropy = entropy;
    const InputSpec s = derive_input_spec(r);
    EXPECT_EQ(s.entropy_words, words);
    const auto keys = generate<std::uint64_t>(s);
    double bits = 0;
    for (auto k : keys) bits += std::bitset<64>(k).count();
    // Each bit is set with probability 2^-words.
    EXPECT_NEAR(bits / keys.size(), 64.0 / (1u << words), 0.5) << entropy;
  }
  InputRequest zero;
  zero.dist = Distribution::entropy;
  zero.entropy = 0;
  zero.n = 100;
  const auto keys = generate<std::uint32_t>(derive_input_spec(zero));
  EXPECT_TRUE(std::all_of(keys.begin(), keys.end(), [](auto k) { return k == 0; }));
}

template <typename V>
void expect_verifier_checks_values(Payload payload) {
  const InputSpec s = test::make_spec(1000, Distribution::uniform, KeyType::i64, payload, 10.0);
  const test::Reference ref = test::make_reference(s);
  std::vector<V> out(s.n);
  std::memcpy(out.data(), ref.stable_values.data(), ref.stable_values.size());
  VerifyInput v;
  v.key = s.key;
  v.payload = payload;
  v.n = s.n;
  v.keys_in = ref.input_keys.data();
  v.keys_out = ref.sorted_keys.data();
  v.vals_out = out.data();
  v.check_stable = true;
  EXPECT_TRUE(verify_host(v).ok) << to_string(payload);
  auto keys = reinterpret_cast<const std::int64_t*>(ref.sorted_keys.data());
  std::size_t j = 1;
  while (keys[j] != keys[j - 1]) ++j;
  std::swap(out[j], out[j - 1]);
  EXPECT_NE(verify_host(v).message.find("not stable"), std::string::npos) << to_string(payload);
  std::swap(out[j], out[j - 1]);
  out[3] ^= V{1} << (sizeof(V) * 8 - 2);
  EXPECT_FALSE(verify_host(v).ok) << to_string(payload);
}

TEST(Verify64, EveryPayloadWidthIsChecked) {
  expect_verifier_checks_values<std::uint32_t>(Payload::index);
  expect_verifier_checks_values<std::uint32_t>(Payload::u32);
  expect_verifier_checks_values<std::uint64_t>(Payload::u64);
}

}  // namespace
}  // namespace sb
