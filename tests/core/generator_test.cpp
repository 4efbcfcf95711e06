// Generator properties: exact len, bounds, determinism, distribution shapes (CPU side; the
// GPU side runs the same element functions, checked bit for bit in tests/gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sortbench/input/generator.hpp"
#include "sortbench/core/keys.hpp"
#include "support/sortbench_test.hpp"

namespace sb {
namespace {

template <typename K>
std::vector<K> generate(const InputSpec& s) {
  std::vector<K> keys(s.n);
  generate_host(s, keys.data(), nullptr);
  return keys;
}

TEST(Bijection, PermutesEveryDomainSize) {
  for (std::uint64_t m : {1u, 2u, 3u, 5u, 16u, 17u, 1000u, 4097u}) {
    const Bijection b = make_bijection(m, 12345);
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < m; ++i) {
      const std::uint64_t p = permute(b, i);
      ASSERT_LT(p, m);
      seen.insert(p);
    }
    EXPECT_EQ(seen.size(), m) << "m=" << m;
  }
}

TEST(Generator, ExactLenWithinBoundsForEveryDistribution) {
  for (Distribution d : all_distributions())
    for (std::uint64_t n : {1u, 7u, 1000u, 65537u}) {
      if (d == Distribution::real || d == Distribution::entropy) continue;  // tests of their own below
      const InputSpec s = test::make_spec(n, d, KeyType::i32, Payload::none, 0.5, std::nullopt, -300);
      const auto keys = generate<std::int32_t>(s);
      const std::set<std::int32_t> distinct(keys.begin(), keys.end());
      EXPECT_EQ(distinct.size(), s.len) << to_string(d) << " n=" << n;
      EXPECT_GE(*distinct.begin(), s.min_val);
      EXPECT_LT(*distinct.rbegin(), s.max_val);
      const KeyFacts stats = input_stats_host(s, keys.data());
      EXPECT_EQ(stats.len, s.len);
      EXPECT_EQ(stats.min, *distinct.begin());
      EXPECT_EQ(stats.max, *distinct.rbegin());
    }
}

TEST(Generator, SmallLenIsExactAndValuesAreNotEvenlySpaced) {
  InputRequest r;
  r.n = 100000;
  r.max_val = 1000000;
  r.len = 10;
  const InputSpec s = derive_input_spec(r);
  const auto keys = generate<std::uint32_t>(s);
  const std::set<std::uint32_t> distinct(keys.begin(), keys.end());
  ASSERT_EQ(distinct.size(), 10u);
  std::set<std::uint32_t> gaps;
  for (auto it = std::next(distinct.begin()); it != distinct.end(); ++it) gaps.insert(*it - *std::prev(it));
  EXPECT_GT(gaps.size(), 1u) << "values must be random, not a lattice";
}

TEST(Generator, DeterministicPerSeedAndSeedsDiffer) {
  const InputSpec a = test::make_spec(5000, Distribution::uniform, KeyType::u32, Payload::none, 2.0);
  InputSpec b = a;
  b.seed = a.seed + 1;
  EXPECT_EQ(generate<std::uint32_t>(a), generate<std::uint32_t>(a));
  EXPECT_NE(generate<std::uint32_t>(a), generate<std::uint32_t>(b));
}

TEST(Generator, ShapesOfTheOrderedDistributions) {
  const auto sorted = generate<std::uint32_t>(test::make_spec(10000, Distribution::sorted));
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto reverse = generate<std::uint32_t>(test::make_spec(10000, Distribution::reverse));
  EXPECT_TRUE(std::is_sorted(reverse.rbegin(), reverse.rend()));
  EXPECT_FALSE(std::is_sorted(reverse.begin(), reverse.end()));
  const auto nearly = generate<std::uint32_t>(test::make_spec(100000, Distribution::nearly_sorted));
  EXPECT_FALSE(std::is_sorted(nearly.begin(), nearly.end()));
  std::size_t descents = 0;
  for (std::size_t i = 1; i < nearly.size(); ++i) descents += nearly[i] < nearly[i - 1];
  EXPECT_LT(descents, nearly.size() / 20) << "nearly sorted means few descents";
  const auto equal = generate<std::uint32_t>(test::make_spec(1000, Distribution::equal));
  EXPECT_EQ(std::set<std::uint32_t>(equal.begin(), equal.end()).size(), 1u);
  const auto shuffled = generate<std::uint32_t>(test::make_spec(10000, Distribution::uniform));
  EXPECT_FALSE(std::is_sorted(shuffled.begin(), shuffled.end()));
}

TEST(Generator, ZipfIsSkewed) {
  const InputSpec s = test::make_spec(200000, Distribution::zipf, KeyType::u32, Payload::none, 20.0);
  const auto keys = generate<std::uint32_t>(s);
  std::map<std::uint32_t, std::uint64_t> counts;
  for (auto k : keys) ++counts[k];
  EXPECT_EQ(counts.size(), s.len);
  std::uint64_t top = 0;
  for (const auto& [k, c] : counts) top = std::max(top, c);
  EXPECT_GT(top, 10 * (s.n / s.len)) << "the most frequent value must stand far above the mean count";
}

TEST(Generator, F32KeysHoldTheIntegerValues) {
  const InputSpec s = test::make_spec(4096, Distribution::uniform, KeyType::f32, Payload::none, 1.0, std::nullopt, -2048);
  const auto keys = generate<float>(s);
  for (float k : keys) {
    EXPECT_EQ(k, static_cast<float>(static_cast<std::int64_t>(k)));
    EXPECT_GE(k, -2048.0f);
    EXPECT_LT(k, 2048.0f);
  }
}

TEST(Generator, RowsHaveIndependentWordsFromOneValueSet) {
  InputRequest r;
  r.n = 5000;
  r.key = KeyType::u32x4;
  r.max_val = 100;
  const InputSpec s = derive_input_spec(r);
  std::vector<Row4> rows(s.n);
  generate_host(s, rows.data(), nullptr);
  for (unsigned w = 0; w < 4; ++w) {
    std::set<std::uint32_t> values;
    for (const auto& row : rows) values.insert(row.w[w]);
    EXPECT_EQ(values.size(), s.len) << "word " << w;
    EXPECT_LT(*values.rbegin(), 100u);
  }
  EXPECT_NE(rows[0].w[0] == rows[0].w[1] && rows[1].w[0] == rows[1].w[1] && rows[2].w[0] == rows[2].w[1], true);
}

TEST(Generator, IndexPayloadIsThePosition) {
  const InputSpec s = test::make_spec(100, Distribution::uniform, KeyType::u32, Payload::index);
  std::vector<std::uint32_t> keys(s.n);
  std::vector<index_t> vals(s.n, 999);
  generate_host(s, keys.data(), vals.data());
  for (std::size_t i = 0; i < vals.size(); ++i) EXPECT_EQ(vals[i], i);
}

// A slice of the input made alone (a shard, a streamed piece) is the same range of the whole
// input, keys and values, for every key type and payload of the distributions that need no sort.
TEST(Generator, HostSlicesEqualTheSameRangeOfTheWholeInput) {
  const std::uint64_t n = 1009;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> slices{
      {0, n}, {0, 100}, {n / 2 - 50, 101}, {n - 100, 100}, {n - 1, 1}, {0, 1}, {n / 3, 0}, {n, 0}};
  int checked = 0;
  for (Distribution d : {Distribution::uniform, Distribution::zipf, Distribution::entropy, Distribution::real})
    for (KeyType k : all_key_types()) {
      const bool float_key = k == KeyType::f32 || k == KeyType::f64;
      if ((d == Distribution::real) != float_key && (d == Distribution::real || d == Distribution::entropy))
        continue;  // real: float keys only; entropy: integer keys only (its bit patterns would be NaNs)
      for (Payload p : all_payloads()) {
        // delta 20: a value for every 20 positions, so most positions draw their rank.
        const bool drawn = d == Distribution::uniform || d == Distribution::zipf;
        const InputSpec s = test::make_spec(n, d, k, p, drawn ? std::optional<double>(20.0) : std::nullopt);
        const std::size_t kb = key_bytes(k), vb = payload_bytes(p);
        std::vector<unsigned char> keys(n * kb), vals(n * vb);
        generate_host(s, keys.data(), vb ? vals.data() : nullptr);
        for (const auto& [begin, count] : slices) {
          SCOPED_TRACE(std::string(to_string(d)) + " " + std::string(to_string(k)) + " payload " +
                       std::string(to_string(p)) + " [" + std::to_string(begin) + ", +" + std::to_string(count) +
                       ")");
          std::vector<unsigned char> slice_keys(count * kb + 1, 0xCD), slice_vals(count * vb + 1, 0xCD);
          generate_host_slice(s, begin, count, slice_keys.data(), vb ? slice_vals.data() : nullptr);
          EXPECT_EQ(std::memcmp(slice_keys.data(), keys.data() + begin * kb, count * kb), 0);
          EXPECT_EQ(slice_keys.back(), 0xCD) << "nothing written past the slice";
          if (vb) {
            EXPECT_EQ(std::memcmp(slice_vals.data(), vals.data() + begin * vb, count * vb), 0);
            EXPECT_EQ(slice_vals.back(), 0xCD) << "nothing written past the slice";
          }
          ++checked;
        }
      }
    }
  EXPECT_EQ(checked, 8 * 4 * (2 * 7 + 5 + 2));
}

TEST(Generator, HostSlicesRefuseSortedDistributionsAndRangesPastTheEnd) {
  std::vector<std::uint32_t> keys(10);
  for (Distribution d : {Distribution::sorted, Distribution::reverse, Distribution::nearly_sorted})
    EXPECT_THROW(generate_host_slice(test::make_spec(100, d), 0, 10, keys.data(), nullptr), std::logic_error)
        << to_string(d);
  const InputSpec s = test::make_spec(100);
  EXPECT_THROW(generate_host_slice(s, 95, 10, keys.data(), nullptr), std::logic_error);
  EXPECT_THROW(generate_host_slice(s, 101, 0, keys.data(), nullptr), std::logic_error);
  EXPECT_NO_THROW(generate_host_slice(s, 90, 10, keys.data(), nullptr));
}

// The device twin checks the same before it touches the GPU, so this runs on the CPU.
TEST(Generator, DeviceSlicesRefuseSortedDistributionsAndRangesPastTheEnd) {
  EXPECT_THROW(generate_device_slice(test::make_spec(100, Distribution::sorted), 0, 10, nullptr, nullptr, nullptr),
               std::logic_error);
  EXPECT_THROW(generate_device_slice(test::make_spec(100), 95, 10, nullptr, nullptr, nullptr), std::logic_error);
}

}  // namespace
}  // namespace sb
