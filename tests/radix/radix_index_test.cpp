// CPU tests of the radix family's index arithmetic (kernels/radix/radix_index.hpp): the
// Blelloch sweeps, tile and block splits, the warp-segment order, digit selection (32- and
// 64-bit ordered words, rows), and two full LSD sorts on the CPU built from them,
// radix-lsd-seed's (one Blelloch-scanned histogram, sequential rearrange) and radix-lsd's
// (per-block counts, digit-major scan, per-tile warp-segment ranking, keys then values
// through the tile), compared with std::stable_sort including payload order, over the
// element types each algorithm declares.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "radix/radix.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::radix {
namespace {

// ---- Blelloch scan ---------------------------------------------------------------------

std::vector<std::uint32_t> blelloch_exclusive_scan(std::vector<std::uint32_t> count) {
  const auto bins = static_cast<std::uint32_t>(count.size());
  const unsigned stages = blelloch_stages(bins);
  for (unsigned stage = 0; stage < stages; ++stage)
    for (std::uint32_t gid = 0; gid < blelloch_work_items(bins, stage); ++gid) blelloch_up_step(count, gid, stage);
  count[bins - 1] = 0;  // the root
  for (unsigned stage = stages; stage-- > 0;)
    for (std::uint32_t gid = 0; gid < blelloch_work_items(bins, stage); ++gid) blelloch_down_step(count, gid, stage);
  return count;
}

TEST(RadixBlelloch, MatchesExclusiveScanIncludingCountsAbove255) {
  std::mt19937 rng(5);
  for (unsigned bits = 1; bits <= kMaxRadixBits; ++bits) {
    const std::uint32_t bins = radix_bins(bits);
    EXPECT_EQ(blelloch_stages(bins), bits);
    std::vector<std::uint32_t> count(bins);
    // Counts well above 255 (the printed uchar would truncate) and up to 2^20 in total.
    for (auto& c : count) c = rng() % 4096;
    std::vector<std::uint32_t> expect(bins);
    std::exclusive_scan(count.begin(), count.end(), expect.begin(), std::uint32_t{0});
    EXPECT_EQ(blelloch_exclusive_scan(count), expect) << "bins=" << bins;
  }
}

TEST(RadixBlelloch, StagesTouchDisjointPairsInsideTheArray) {
  for (unsigned bits = 1; bits <= kMaxRadixBits; ++bits) {
    const std::uint32_t bins = radix_bins(bits);
    for (unsigned stage = 0; stage < blelloch_stages(bins); ++stage) {
      std::vector<int> touched(bins, 0);
      for (std::uint32_t gid = 0; gid < blelloch_work_items(bins, stage); ++gid) {
        ASSERT_LT(blelloch_right(gid, stage), bins);
        EXPECT_EQ(blelloch_right(gid, stage) - blelloch_left(gid, stage), 1u << stage);
        ++touched[blelloch_left(gid, stage)], ++touched[blelloch_right(gid, stage)];
      }
      EXPECT_EQ(*std::max_element(touched.begin(), touched.end()), 1);
    }
  }
}

// ---- Tiles, blocks, warp segments ------------------------------------------------------

TEST(RadixTiles, BlocksCoverTheInputInOrderWithoutEmptyBlocks) {
  for (std::uint64_t n : {1ull, 31ull, 4096ull, 4097ull, 1000000ull, 1ull << 26, (1ull << 33) + 7})
    for (std::uint64_t tile : {64ull, 1536ull, 4096ull})
      for (std::uint32_t max_blocks : {1u, 7u, 528u}) {
        const TileSplit s = make_tile_split(n, tile, max_blocks);
        ASSERT_GE(s.blocks, 1u);
        ASSERT_LE(s.blocks, max_blocks);
        EXPECT_EQ(block_begin(s, 0, n), 0u);
        EXPECT_EQ(block_end(s, s.blocks - 1, n), n);
        for (std::uint32_t b = 0; b < s.blocks; ++b) {
          EXPECT_LT(block_begin(s, b, n), block_end(s, b, n)) << "empty block " << b;
          EXPECT_EQ(block_begin(s, b, n) % tile, 0u);
          if (b + 1 < s.blocks) EXPECT_EQ(block_end(s, b, n), block_begin(s, b + 1, n));
        }
      }
  EXPECT_EQ(make_tile_split(0, 4096, 8).blocks, 0u);
}

TEST(RadixTiles, WarpSegmentsRunInInputOrder) {
  for (unsigned rounds : {1u, 6u, 16u}) {
    std::uint32_t expect = 0;
    for (unsigned w = 0; w < 8; ++w)
      for (unsigned r = 0; r < rounds; ++r)
        for (unsigned lane = 0; lane < kWarp; ++lane) EXPECT_EQ(tile_offset(w, r, lane, rounds), expect++);
  }
}

TEST(RadixTiles, CountsAreDigitMajor) {
  EXPECT_EQ(count_index(0, 0, 5), 0u);
  EXPECT_EQ(count_index(0, 4, 5), 4u);
  EXPECT_EQ(count_index(1, 0, 5), 5u);
  EXPECT_EQ(count_index(255, 527, 528), 255u * 528 + 527);
}

// ---- Digits and passes -----------------------------------------------------------------

// The digits of all passes, most significant first, compare like the keys.
template <typename K>
std::vector<unsigned> msd_digits(const K& key, const PassPlan& plan) {
  std::vector<unsigned> d;
  for (unsigned pass = plan.passes(); pass-- > 0;) d.push_back(key_digit(key, pass_select(plan, pass)));
  return d;
}

TEST(RadixDigits, PassesOrderKeysLikeTheKeyType) {
  std::mt19937 rng(11);
  for (unsigned bits : {1u, 3u, 5u, 8u}) {
    const PassPlan i32 = make_pass_plan(bits, 1, 0, ~0u);
    for (int t = 0; t < 2000; ++t) {
      const auto a = static_cast<std::int32_t>(rng()), b = static_cast<std::int32_t>(rng() % 64) - 32;
      EXPECT_EQ(KeyTraits<std::int32_t>::less(a, b), msd_digits(a, i32) < msd_digits(b, i32));
      const float fa = static_cast<float>(a % (1 << 24)), fb = static_cast<float>(b);
      EXPECT_EQ(fa < fb, msd_digits(fa, i32) < msd_digits(fb, i32)) << fa << " " << fb;
    }
    const PassPlan rows = make_pass_plan(bits, 4, 0, 7);  // words in [0, 8): 3 bits each
    EXPECT_EQ(rows.passes(), 4 * ((3 + bits - 1) / bits));
    EXPECT_EQ(pass_word(rows, 0), 3u);
    EXPECT_EQ(pass_word(rows, rows.passes() - 1), 0u);
    for (int t = 0; t < 2000; ++t) {
      Row4 x{}, y{};
      for (int w = 0; w < 4; ++w) x.w[w] = rng() % 8, y.w[w] = rng() % 8;
      EXPECT_EQ(KeyTraits<Row4>::less(x, y), msd_digits(x, rows) < msd_digits(y, rows));
    }
  }
}

TEST(RadixDigits, SixtyFourBitWordsOrderKeysLikeTheKeyType) {
  std::mt19937_64 rng(13);
  for (unsigned bits : {1u, 3u, 7u, 8u}) {
    const PassPlan full = make_pass_plan_for<std::uint64_t>(bits, 0, ~std::uint64_t{0});
    EXPECT_EQ(full.word_bits, 64u);
    EXPECT_EQ(full.key_bits, 64u);
    EXPECT_EQ(full.passes(), (64 + bits - 1) / bits);
    for (int t = 0; t < 2000; ++t) {
      // Pairs that differ only in the high word, only in the low word, or anywhere.
      const std::uint64_t a = rng(), b = t % 3 == 0 ? (a & 0xffffffffull) | (rng() << 32)
                                          : t % 3 == 1 ? (a & ~0xffffffffull) | (rng() & 0xffffffffull)
                                                       : rng();
      EXPECT_EQ(a < b, msd_digits(a, full) < msd_digits(b, full)) << a << " " << b;
      const auto ia = static_cast<std::int64_t>(a), ib = static_cast<std::int64_t>(b);
      EXPECT_EQ(ia < ib, msd_digits(ia, full) < msd_digits(ib, full)) << ia << " " << ib;
      // Doubles over many magnitudes and both signs, infinities included.
      const double da = std::ldexp(static_cast<double>(static_cast<std::int32_t>(a)), static_cast<int>(b % 200) - 100);
      const double db = t % 50 == 0 ? -std::numeric_limits<double>::infinity()
                                     : std::ldexp(static_cast<double>(static_cast<std::int32_t>(b)),
                                                  static_cast<int>(a % 200) - 100);
      EXPECT_EQ(da < db, msd_digits(da, full) < msd_digits(db, full)) << da << " " << db;
    }
  }
}

TEST(RadixDigits, FloatZerosOfEitherSignShareTheirDigits) {
  const PassPlan f32 = make_pass_plan_for<float>(8, 0, ~0u), f64 = make_pass_plan_for<double>(8, 0, ~0ull);
  EXPECT_EQ(msd_digits(-0.0f, f32), msd_digits(0.0f, f32));
  EXPECT_EQ(msd_digits(-0.0, f64), msd_digits(0.0, f64));
  EXPECT_LT(msd_digits(-std::numeric_limits<float>::denorm_min(), f32), msd_digits(-0.0f, f32));
  EXPECT_LT(msd_digits(0.0, f64), msd_digits(std::numeric_limits<double>::denorm_min(), f64));
}

TEST(RadixDigits, OnlyBitsWhereMinAndMaxDifferAreSorted) {
  EXPECT_EQ(make_pass_plan(8, 1, 5, 5).passes(), 0u);
  EXPECT_EQ(make_pass_plan(8, 1, 0, (1u << 26) - 1).key_bits, 26u);
  EXPECT_EQ(make_pass_plan(8, 1, 0, (1u << 26) - 1).passes(), 4u);
  EXPECT_EQ(make_pass_plan(4, 1, 0, (1u << 26) - 1).passes(), 7u);
  // 0x0fff..0x1001 share no high bits beyond bit 13: 13 bits vary.
  EXPECT_EQ(make_pass_plan(1, 1, 0x0fff, 0x1001).key_bits, 13u);
  EXPECT_EQ(make_pass_plan(8, 4, 0, ~0u).passes(), 16u);
  // 64-bit words: the key's Ordered width, constant high digits skipped.
  EXPECT_EQ(make_pass_plan_for<std::uint64_t>(8, 0, ~0ull).passes(), 8u);
  EXPECT_EQ(make_pass_plan_for<std::uint64_t>(8, 0, (1ull << 26) - 1).passes(), 4u);
  EXPECT_EQ(make_pass_plan_for<std::uint64_t>(8, 1ull << 40, (1ull << 40) + 255).passes(), 1u);
  EXPECT_EQ(make_pass_plan_for<std::uint64_t>(5, 0, 1ull << 63).passes(), 13u);
  const std::uint64_t i64_lo = KeyTraits<std::int64_t>::ordered(-1000), i64_hi = KeyTraits<std::int64_t>::ordered(1000);
  EXPECT_EQ(make_pass_plan_for<std::int64_t>(8, i64_lo, i64_hi).key_bits, 64u);  // straddles zero: sign bit
  EXPECT_EQ(make_pass_plan_for<std::int64_t>(8, KeyTraits<std::int64_t>::ordered(1), i64_hi).key_bits, 10u);
  // Doubles in [1, 2): sign and exponent constant, the 52 mantissa bits sorted (7 passes).
  EXPECT_EQ(make_pass_plan_for<double>(8, KeyTraits<double>::ordered(1.0), KeyTraits<double>::ordered(1.75)).key_bits,
            52u);
  // 32-bit keys keep 32-bit words; rows 4 words of 32.
  EXPECT_EQ(make_pass_plan_for<std::uint32_t>(8, 0, ~0u).word_bits, 32u);
  EXPECT_EQ(make_pass_plan_for<Row4>(8, 0, ~0u).passes(), 16u);
}

// ---- Full LSD sorts on the CPU -----------------------------------------------------------

// Keys and their value column (V: NoValue, std::uint32_t, std::uint64_t; with NoValue the
// column is placeholders that travel along unchecked).
template <typename K, typename V>
struct Data {
  std::vector<K> keys;
  std::vector<V> vals;
};

// radix-lsd-seed's pass: one histogram, Blelloch-scanned, sequential stable rearrange.
template <typename K, typename V>
Data<K, V> seed_pass(const Data<K, V>& in, const DigitSelect& sel) {
  std::vector<std::uint32_t> count(radix_bins(sel.bits), 0);
  for (const K& k : in.keys) ++count[key_digit(k, sel)];
  count = blelloch_exclusive_scan(count);
  Data<K, V> out{in.keys, in.vals};
  for (std::size_t i = 0; i < in.keys.size(); ++i) {
    const std::uint32_t pos = count[key_digit(in.keys[i], sel)]++;
    out.keys[pos] = in.keys[i];
    out.vals[pos] = in.vals[i];
  }
  return out;
}

// radix-lsd's pass, as the kernels do it: per-block histograms into digit-major counts, one
// exclusive scan of them, then per block and tile a rank per (warp, digit) in warp-segment
// order, the tile's local sort by digit (keys, then values at the same local positions),
// and the write-out from each digit's next position.
template <typename K, typename V>
Data<K, V> lsd_pass(const Data<K, V>& in, const DigitSelect& sel, unsigned warps, unsigned rounds,
                    std::uint32_t max_blocks) {
  const std::uint64_t n = in.keys.size(), tile = std::uint64_t{warps} * rounds * kWarp;
  const unsigned bins = radix_bins(sel.bits);
  const TileSplit s = make_tile_split(n, tile, max_blocks);
  std::vector<std::uint64_t> counts(std::size_t{bins} * s.blocks, 0);
  for (std::uint32_t b = 0; b < s.blocks; ++b)
    for (std::uint64_t i = block_begin(s, b, n); i < block_end(s, b, n); ++i)
      ++counts[count_index(key_digit(in.keys[i], sel), b, s.blocks)];
  std::exclusive_scan(counts.begin(), counts.end(), counts.begin(), std::uint64_t{0});

  Data<K, V> out{in.keys, in.vals};
  for (std::uint32_t b = 0; b < s.blocks; ++b) {
    std::vector<std::uint64_t> next(bins);
    for (unsigned d = 0; d < bins; ++d) next[d] = counts[count_index(d, b, s.blocks)];
    const std::uint64_t end = block_end(s, b, n);
    for (std::uint64_t base = block_begin(s, b, n); base < end; base += tile) {
      std::vector<std::vector<std::uint32_t>> warp_count(warps, std::vector<std::uint32_t>(bins, 0));
      std::vector<std::uint32_t> pos(tile);  // rank, then local position
      for (unsigned w = 0; w < warps; ++w)
        for (unsigned r = 0; r < rounds; ++r)
          for (unsigned lane = 0; lane < kWarp; ++lane) {
            const std::uint32_t t = tile_offset(w, r, lane, rounds);
            if (base + t < end) pos[t] = warp_count[w][key_digit(in.keys[base + t], sel)]++;
          }
      std::vector<std::uint32_t> tile_count(bins, 0), tile_start(bins);
      for (unsigned d = 0; d < bins; ++d)
        for (unsigned w = 0; w < warps; ++w) {
          const std::uint32_t c = warp_count[w][d];
          warp_count[w][d] = tile_count[d];
          tile_count[d] += c;
        }
      std::exclusive_scan(tile_count.begin(), tile_count.end(), tile_start.begin(), std::uint32_t{0});
      const std::uint64_t valid = std::min(tile, end - base);
      std::vector<K> local_keys(valid);
      for (std::uint32_t t = 0; t < valid; ++t) {
        const unsigned d = key_digit(in.keys[base + t], sel);
        const unsigned w = t / (rounds * kWarp);
        pos[t] += tile_start[d] + warp_count[w][d];
        local_keys[pos[t]] = in.keys[base + t];
      }
      std::vector<unsigned> digit(valid);
      for (std::uint32_t i = 0; i < valid; ++i) {
        digit[i] = key_digit(local_keys[i], sel);
        out.keys[next[digit[i]] + (i - tile_start[digit[i]])] = local_keys[i];
      }
      std::vector<V> local_vals(valid);
      for (std::uint32_t t = 0; t < valid; ++t) local_vals[pos[t]] = in.vals[base + t];
      for (std::uint32_t i = 0; i < valid; ++i) out.vals[next[digit[i]] + (i - tile_start[digit[i]])] = local_vals[i];
      for (unsigned d = 0; d < bins; ++d) next[d] += tile_count[d];
    }
  }
  return out;
}

enum class Flavor { seed, lsd };

const Algorithm& registered(Flavor flavor) {
  static const Registry r = [] {
    Registry reg;
    register_radix(reg);
    return reg;
  }();
  return *r.find(flavor == Flavor::seed ? "radix-lsd-seed" : "radix-lsd");
}

// Whether the algorithm declares the spec's element type (its `list` row).
bool declares(Flavor flavor, const InputSpec& spec) {
  const Algorithm& a = registered(flavor);
  return a.supports_key(spec.key) && a.supports_payload(spec.payload);
}

void expect_cpu_lsd_sorts(const InputSpec& spec, unsigned bits, Flavor flavor, unsigned warps = 2,
                          unsigned rounds = 3, std::uint32_t max_blocks = 5) {
  ASSERT_TRUE(declares(flavor, spec)) << test::describe(spec);
  const test::Reference ref = test::make_reference(spec);
  const KeyFacts stats = input_stats_host(spec, ref.input_keys.data());
  const SortProblem problem{spec.shape(), stats, {{"radix-bits", std::to_string(bits)}}};
  const PassPlan plan = pass_plan(problem);
  EXPECT_EQ(plan.bits, bits);
  dispatch_element<LsdKeys, LsdValues>(spec.key, spec.payload, [&](auto k, auto v) {
    using K = decltype(k);
    using V = decltype(v);
    constexpr bool kValues = !std::is_same_v<V, NoValue>;
    EXPECT_EQ(plan.word_bits, 8 * sizeof(radix_word_t<K>));
    Data<K, V> d;
    d.keys.resize(spec.n);
    d.vals.resize(spec.n);
    if (spec.n) std::memcpy(d.keys.data(), ref.input_keys.data(), ref.input_keys.size());
    if constexpr (kValues)
      if (spec.n) std::memcpy(d.vals.data(), ref.input_values.data(), ref.input_values.size());
    for (unsigned pass = 0; pass < plan.passes(); ++pass)
      d = flavor == Flavor::seed ? seed_pass(d, pass_select(plan, pass))
                                 : lsd_pass(d, pass_select(plan, pass), warps, rounds, max_blocks);
    const std::string what = fmt::format("{} bits={} {}", flavor == Flavor::seed ? "seed" : "lsd", bits,
                                         test::describe(spec));
    ASSERT_EQ(d.keys.size() * sizeof(K), ref.sorted_keys.size()) << what;
    EXPECT_TRUE(spec.n == 0 || std::memcmp(d.keys.data(), ref.sorted_keys.data(), ref.sorted_keys.size()) == 0)
        << what;
    if constexpr (kValues) {
      ASSERT_EQ(d.vals.size() * sizeof(V), ref.stable_values.size()) << what;
      EXPECT_TRUE(spec.n == 0 || std::memcmp(d.vals.data(), ref.stable_values.data(), ref.stable_values.size()) == 0)
          << "payload not in stable order: " << what;
    }
  });
}

bool signed_key(KeyType key) {
  return key == KeyType::i32 || key == KeyType::f32 || key == KeyType::i64 || key == KeyType::f64;
}


TEST(RadixCpuLsd, SortsLikeStableSortForEveryKeyTypeAndDigitWidth) {
  for (KeyType key : all_key_types())
    for (std::uint64_t n : {0ull, 1ull, 2ull, 33ull, 1000ull, 5000ull})
      for (Distribution dist : {Distribution::uniform, Distribution::reverse, Distribution::zipf})
        for (unsigned bits : {1u, 3u, 4u, 8u}) {
          const InputSpec spec = test::make_spec(
              n, dist, key, Payload::index, std::nullopt, std::nullopt,
              signed_key(key) ? std::optional<wide_t>(-static_cast<wide_t>(n / 2)) : std::nullopt);
          if (declares(Flavor::seed, spec)) expect_cpu_lsd_sorts(spec, bits, Flavor::seed);
          expect_cpu_lsd_sorts(spec, bits, Flavor::lsd);
        }
}

TEST(RadixCpuLsd, SortsWholeDomainsAndEdgeValuesWithEveryPayloadWidth) {
  for (KeyType key : all_key_types())
    for (Payload payload : all_payloads())
      for (unsigned bits : {3u, 8u}) {
        std::vector<InputSpec> specs{test::full_domain_spec(3001, key, payload)};
        if (is_float_key(key)) specs.push_back(test::make_spec(3001, Distribution::real, key, payload));
        if (!is_float_key(key)) {
          InputRequest r;
          r.n = 3001;
          r.key = key;
          r.payload = payload;
          r.dist = Distribution::entropy;
          r.entropy = 0.544;
          specs.push_back(derive_input_spec(r));
        }
        for (const InputSpec& spec : specs) {
          if (declares(Flavor::seed, spec)) expect_cpu_lsd_sorts(spec, bits, Flavor::seed);
          expect_cpu_lsd_sorts(spec, bits, Flavor::lsd);
          expect_cpu_lsd_sorts(spec, bits, Flavor::lsd, 8, 16, 3);
        }
      }
}

TEST(RadixCpuLsd, KeepsEqualKeysInInputOrder) {
  // Many duplicates (len 3), full-size tiles and a block count that leaves a partial tile.
  for (KeyType key : all_key_types())
    for (Payload payload : {Payload::index, Payload::u64}) {
      const InputSpec spec = test::make_spec(20000, Distribution::uniform, key, payload, 50.0, 3);
      for (unsigned bits : {2u, 8u}) {
        if (declares(Flavor::seed, spec)) expect_cpu_lsd_sorts(spec, bits, Flavor::seed);
        expect_cpu_lsd_sorts(spec, bits, Flavor::lsd, 8, 16, 3);
        expect_cpu_lsd_sorts(spec, bits, Flavor::lsd, 8, 6, 528);
      }
    }
}

TEST(RadixParams, RadixBitsOutsideOneToEightIsAUsageError) {
  const InputSpec spec = test::make_spec(100);
  for (const char* bad : {"0", "9", "16", "x"}) {
    const SortProblem p{spec.shape(), {}, {{"radix-bits", bad}}};
    EXPECT_THROW(pass_plan(p), UsageError) << bad;
  }
  const SortProblem fine{spec.shape(), {}, {}};
  EXPECT_EQ(pass_plan(fine).bits, kDefaultRadixBits);
}

TEST(RadixRegistry, BothAlgorithmsAreStableAndDeclareTheirElementTypes) {
  Registry r;
  register_radix(r);
  for (const char* name : {"radix-lsd-seed", "radix-lsd"}) {
    const Algorithm* a = r.find(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_TRUE(a->stable) << name;
    EXPECT_EQ(a->params, std::vector<std::string>{"radix-bits"});
  }
  // radix-lsd: every key type and payload.
  const Algorithm& lsd = *r.find("radix-lsd");
  EXPECT_EQ(lsd.key_types, all_key_types());
  EXPECT_EQ(lsd.payloads, all_payloads());
  // radix-lsd-seed: the seed's 32-bit words and a 32-bit column, said in its constraints.
  const Algorithm& seed = *r.find("radix-lsd-seed");
  EXPECT_EQ(seed.key_types, (std::vector<KeyType>{KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4}));
  EXPECT_EQ(seed.payloads, (std::vector<Payload>{Payload::none, Payload::index, Payload::u32}));
  EXPECT_NE(seed.constraints.find("32-bit"), std::string::npos) << seed.constraints;
  for (KeyType k : {KeyType::u64, KeyType::i64, KeyType::f64})
    EXPECT_TRUE(seed.why_unsupported({test::make_spec(100, Distribution::uniform, k).shape(), {}, {}}).has_value());
  EXPECT_TRUE(
      seed.why_unsupported({test::make_spec(100, Distribution::uniform, KeyType::u32, Payload::u64).shape(), {}, {}})
          .has_value());

  const InputSpec big = test::make_spec(radix::kSeedMaxN + 1);
  const SortProblem p{big.shape(), {}, {}};
  EXPECT_TRUE(seed.why_unsupported(p).has_value());
  EXPECT_FALSE(lsd.why_unsupported(p).has_value());
}

}  // namespace
}  // namespace sb::radix
