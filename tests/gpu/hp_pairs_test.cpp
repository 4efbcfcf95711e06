// The hp family beyond 32-bit keys and with payloads (issue 13): u64 keys in a small window
// ending at 2^64 - 1, i64 keys from -2^63, every payload width through the key-value path,
// a stable sort of one key repeated n times, and a range past 2^32 declined with the
// histogram's byte count (hp-auto hands it to CUB instead). Hand-made inputs, checked against
// std::stable_sort: exact pairs for a stable algorithm, the sorted keys and the multiset of
// (key, value) pairs for the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../../kernels/hp/hp_index.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

const char* const kPairAlgos[] = {"hp-smem",  "hp-global", "hp-hybrid",      "hp-tiled",
                                  "hp-auto", "hp-stable", "hp-tiled-stable"};

const Algorithm& by_name(const char* name) {
  const Algorithm* a = registry().find(name);
  if (!a) throw std::logic_error(std::string("no algorithm ") + name);
  return *a;
}

template <typename V>
Payload payload_of() {
  if constexpr (std::is_same_v<V, std::uint64_t>) return Payload::u64;
  else if constexpr (std::is_same_v<V, std::uint32_t>) return Payload::u32;
  else return Payload::none;
}

// The problem of hand-made keys: the stats the generator would have measured.
template <typename K>
SortProblem problem_of(const std::vector<K>& keys, Payload payload) {
  using T = KeyTraits<K>;
  InputSpec spec;
  spec.n = keys.size();
  spec.key = T::type;
  spec.payload = payload;
  std::vector<K> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  KeyFacts stats;
  stats.n = keys.size();
  stats.min = static_cast<wide_t>(sorted.front());
  stats.max = static_cast<wide_t>(sorted.back());
  stats.min_ordered = T::ordered(sorted.front());
  stats.max_ordered = T::ordered(sorted.back());
  stats.len = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
  spec.min_val = stats.min;
  spec.max_val = stats.max + 1;
  spec.range = static_cast<std::uint64_t>(stats.max_ordered - stats.min_ordered) + 1;
  spec.len = stats.len;
  return SortProblem{spec.shape(), stats, {}};
}

// Sorts (keys, vals) with algo and checks it; returns false when algo declines the input.
template <typename K, typename V>
bool sort_and_check(const Algorithm& algo, const SortProblem& problem, const std::vector<K>& keys,
                    const std::vector<V>& vals) {
  if (auto why = algo.why_unsupported(problem)) return false;
  std::vector<K> out_keys = keys;
  std::vector<V> out_vals = vals;
  sort_host_keys_on_device(algo, problem, out_keys.data(), out_vals.data());
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  std::vector<std::pair<K, V>> want(keys.size()), got(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    want[i] = {keys[order[i]], vals[order[i]]};
    got[i] = {out_keys[i], out_vals[i]};
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (got[i].first != want[i].first) {
      ADD_FAILURE() << algo.name << ": key " << i << " is " << got[i].first << ", want " << want[i].first;
      return true;
    }
  if (!algo.stable) {  // equal keys may hold their values in any order
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
  }
  EXPECT_TRUE(got == want) << algo.name << ": the values do not follow their keys"
                           << (algo.stable ? " in input order" : "");
  return true;
}

template <typename K, typename V>
bool sort_and_check(const Algorithm& algo, const std::vector<K>& keys, const std::vector<V>& vals) {
  return sort_and_check(algo, problem_of(keys, payload_of<V>()), keys, vals);
}

template <typename K, typename V>
std::vector<V> values_for(std::size_t n) {
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<V>(i * 0x9e3779b97f4a7c15ull + 1);
  return v;
}

// The problem (with its parameters) on keys and values_for's values; it must be taken.
template <typename K, typename V>
void check_problem(const Algorithm& algo, const SortProblem& problem, const std::vector<K>& keys) {
  EXPECT_TRUE(sort_and_check(algo, problem, keys, values_for<K, V>(keys.size()))) << algo.name << " declined";
}

// n keys base + (random % width) in the key's own modular arithmetic.
template <typename K>
std::vector<K> window_keys(K base, std::uint64_t width, std::size_t n, std::uint64_t seed) {
  using W = typename KeyTraits<K>::Ordered;
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  for (auto& k : keys) k = static_cast<K>(static_cast<W>(static_cast<W>(base) + rng() % width));
  return keys;
}

// hp-smem keeps its histogram in shared memory: a window wider than that is its one
// legitimate refusal, and must say so.
bool declines_only_for_shared_memory(const char* name, const SortProblem& problem) {
  const auto why = by_name(name).why_unsupported(problem);
  if (!why) return false;
  EXPECT_EQ(std::string(name), "hp-smem") << *why;
  EXPECT_NE(why->find("shared memory"), std::string::npos) << *why;
  return true;
}

template <typename K, typename V>
void check_all(const std::vector<K>& keys, const char* what) {
  const std::vector<V> vals = values_for<K, V>(keys.size());
  for (const char* name : kPairAlgos) {
    SCOPED_TRACE(std::string(name) + " " + what);
    if (declines_only_for_shared_memory(name, problem_of(keys, payload_of<V>()))) continue;
    EXPECT_TRUE(sort_and_check(by_name(name), keys, vals)) << name << " declined " << what;
  }
}

template <typename K>
void check_every_payload(const std::vector<K>& keys, const char* what) {
  check_all<K, std::uint32_t>(keys, what);
  check_all<K, std::uint64_t>(keys, what);
  // Keys only: the run expansion, 8-byte words for 64-bit keys.
  for (const char* name : kPairAlgos) {
    SCOPED_TRACE(std::string(name) + " keys only " + what);
    const SortProblem problem = problem_of(keys, Payload::none);
    if (declines_only_for_shared_memory(name, problem)) continue;
    std::vector<K> out = keys;
    sort_host_keys_on_device(by_name(name), problem, out.data());
    std::vector<K> want = keys;
    std::sort(want.begin(), want.end());
    EXPECT_TRUE(out == want);
  }
}

// hp-tiled's key-value path (group_tiles with values, per-group counts, place_pairs) at its
// edges, for each bucket width: every key in one bucket (whole-tile segments, one batch a
// tile), one key repeated (one bin takes a whole batch), every key but minVal in the last
// bucket, one key per bucket, with several groups a bucket and a partial last tile.
TEST(HpPairs, TiledPairsAtBucketEdges) {
  for (const char* name : {"hp-tiled", "hp-tiled-stable"}) {
    const Algorithm& tiled = by_name(name);
    SCOPED_TRACE(name);
    for (unsigned width : {12u, 13u, 14u}) {
      const std::uint32_t bucket = 1u << width;
      for (std::uint64_t n : {1000ull, 3 * 8192ull + 5, (1ull << 21) + 77}) {
        std::vector<std::uint32_t> one(n), same(n, 123456), last(n), per_bucket(n);
        for (std::uint64_t i = 0; i < n; ++i) {
          const auto h = static_cast<std::uint32_t>(i * 2654435761u >> 3);
          one[i] = 5 * bucket + h % 700;
          last[i] = i == 0 ? 0 : 9 * bucket - 1 - h % 300;
          per_bucket[i] = (h % 97) * bucket + 3;
        }
        for (const auto* keys : {&one, &same, &last, &per_bucket}) {
          for (Payload payload : {Payload::u32, Payload::u64}) {
            SortProblem problem = problem_of(*keys, payload);
            problem.params["low_bits"] = std::to_string(width);
            SCOPED_TRACE("width " + std::to_string(width) + ", n " + std::to_string(n) + ", payload " +
                         std::string(to_string(payload)));
            if (auto why = tiled.why_unsupported(problem)) {
              // 8-byte values leave no room for 2^14 bins beside a batch: the one refusal allowed.
              EXPECT_EQ(payload, Payload::u64) << *why;
              EXPECT_EQ(width, 14u) << *why;
              continue;
            }
            if (payload == Payload::u32)
              check_problem<std::uint32_t, std::uint32_t>(tiled, problem, *keys);
            else
              check_problem<std::uint32_t, std::uint64_t>(tiled, problem, *keys);
          }
        }
      }
    }
  }
}

// hp-tiled-stable with many copies of each value spread over every tile (sigma = 50: ~2,500
// copies at delta = 50, ~200 at delta = 4): equal keys come out in input order with many
// groups a bucket, many batches a group, and 82 or 1,024 buckets of 2^12 bins.
TEST(HpPairs, TiledStableKeepsInputOrderOfManyCopies) {
  const Algorithm& stable = by_name("hp-tiled-stable");
  const std::uint64_t n = (std::uint64_t{1} << 24) + 13;
  for (std::uint64_t delta : {50ull, 4ull}) {
    const std::uint64_t range = n / delta, sigma = 50;
    std::vector<std::uint32_t> keys(n);
    for (std::uint64_t i = 0; i < n; ++i)
      keys[i] = static_cast<std::uint32_t>(7 + (i * 2654435761u >> 5) % (range / sigma) * sigma);
    for (Payload payload : {Payload::u32, Payload::u64}) {
      SCOPED_TRACE("delta " + std::to_string(delta) + ", payload " + std::string(to_string(payload)));
      const SortProblem problem = problem_of(keys, payload);
      ASSERT_FALSE(stable.why_unsupported(problem));
      if (payload == Payload::u32)
        check_problem<std::uint32_t, std::uint32_t>(stable, problem, keys);
      else
        check_problem<std::uint32_t, std::uint64_t>(stable, problem, keys);
    }
  }
}

// hp-tiled-stable ranks a batch in one pass over its bins' ordinals where a bucket holds at
// most 2^ordinal_digit_bits present bins, in two passes over the bins' digits past that: keys
// spanning less than one bucket with exactly that many present bins, spread over it, and with
// one more, for each width.
TEST(HpPairs, TiledStableRanksByOrdinalsUpToTheirRowsAndByDigitsPast) {
  const Algorithm& stable = by_name("hp-tiled-stable");
  const std::uint64_t n = 5 * 8192 + 3;
  for (unsigned width : {12u, 13u, 14u}) {
    const std::uint32_t bins = 1u << width, rows = 1u << sb::hp::ordinal_digit_bits(width);
    for (std::uint32_t present : {rows, rows + 1}) {
      std::vector<std::uint32_t> keys(n);
      for (std::uint64_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::uint32_t>((i * 2654435761u >> 7) % present);
        keys[i] = 3 * bins + (k + 1) * (bins / present) - 1;
      }
      for (Payload payload : {Payload::u32, Payload::u64}) {
        SortProblem problem = problem_of(keys, payload);
        problem.params["low_bits"] = std::to_string(width);
        SCOPED_TRACE("width " + std::to_string(width) + ", " + std::to_string(present) + " bins, payload " +
                     std::string(to_string(payload)));
        if (auto why = stable.why_unsupported(problem)) {
          EXPECT_EQ(payload, Payload::u64) << *why;  // as in TiledPairsAtBucketEdges
          EXPECT_EQ(width, 14u) << *why;
          continue;
        }
        if (payload == Payload::u32)
          check_problem<std::uint32_t, std::uint32_t>(stable, problem, keys);
        else
          check_problem<std::uint32_t, std::uint64_t>(stable, problem, keys);
      }
    }
  }
}

TEST(HpPairs, U64KeysInASmallWindowBelow2To64) {
  // 1000 values ending at 2^64 - 1 (hp-smem), and 200K values (the hybrid and global range).
  check_every_payload(window_keys<std::uint64_t>(~std::uint64_t{0} - 999, 1000, 100003, 1), "u64 window 1000");
  check_every_payload(window_keys<std::uint64_t>(~std::uint64_t{0} - 199999, 200000, 300007, 2),
                      "u64 window 200K");
}

TEST(HpPairs, I64KeysFromMinus2To63) {
  auto keys = window_keys<std::int64_t>(std::numeric_limits<std::int64_t>::min(), 5000, 65536 + 17, 3);
  keys[5] = std::numeric_limits<std::int64_t>::min();
  check_every_payload(keys, "i64 from -2^63");
  check_every_payload(window_keys<std::int64_t>(-30000, 60000, 200001, 4), "i64 across zero");
}

TEST(HpPairs, ThirtyTwoBitKeysWithPayloads) {
  check_all<std::uint32_t, std::uint32_t>(window_keys<std::uint32_t>(0xfff00000u, 40000, 250000, 5), "u32");
  check_all<std::int32_t, std::uint64_t>(window_keys<std::int32_t>(-20000, 40000, 250000, 6), "i32");
}

TEST(HpPairs, OneKeyRepeatedKeepsInputOrderInAStableSort) {
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::vector<std::uint64_t> keys(n, (std::uint64_t{1} << 63) + 12345);
  for (const Algorithm& a : registry().all())
    if (a.family == "hp" && a.backend == Backend::gpu && a.stable && a.supports_payload(Payload::u32)) {
      SCOPED_TRACE(a.name);
      EXPECT_TRUE(sort_and_check(a, keys, values_for<std::uint64_t, std::uint32_t>(n)));
    }
  // The fast versions (not stable) still keep the one key's values as a multiset.
  check_all<std::uint64_t, std::uint64_t>(keys, "one key");
}

TEST(HpPairs, RangePast2To32IsDeclinedWithItsBytesAndAutoHandsItToCub) {
  std::vector<std::uint64_t> keys = window_keys<std::uint64_t>(0, 1000, 4096, 7);
  keys[0] = std::uint64_t{1} << 40;  // range 2^40 + 1
  const SortProblem problem = problem_of(keys, Payload::u32);
  const auto why = by_name("hp-global").why_unsupported(problem);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("4398046511108 bytes"), std::string::npos) << *why;
  EXPECT_TRUE(sort_and_check(by_name("hp-auto"), keys, values_for<std::uint64_t, std::uint32_t>(keys.size())));
  // Float keys: hp-auto takes them (CUB); the H-P variants declare integer keys only.
  std::vector<double> fkeys(3000);
  for (std::size_t i = 0; i < fkeys.size(); ++i) fkeys[i] = double(int(i * 7919 % 1000)) - 500.5;
  EXPECT_FALSE(by_name("hp-hybrid").supports_key(KeyType::f64));
  EXPECT_TRUE(sort_and_check(by_name("hp-auto"), fkeys, values_for<double, std::uint64_t>(fkeys.size())));
}

}  // namespace
}  // namespace sb::test
