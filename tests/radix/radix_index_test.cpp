// CPU tests of the radix family's index arithmetic (kernels/radix/radix_index.hpp): the
// Blelloch sweeps, tile and block splits, the warp-segment order, digit selection, and two
// full LSD sorts on the CPU built from them, radix-lsd-seed's (one Blelloch-scanned
// histogram, sequential rearrange) and radix-lsd's (per-block counts, digit-major scan,
// per-tile warp-segment ranking), compared with std::stable_sort including payload order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "radix/radix.hpp"
#include "sortbench/errors.hpp"
#include "sortbench/generator.hpp"
#include "sortbench/registry.hpp"
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

TEST(RadixDigits, OnlyBitsWhereMinAndMaxDifferAreSorted) {
  EXPECT_EQ(make_pass_plan(8, 1, 5, 5).passes(), 0u);
  EXPECT_EQ(make_pass_plan(8, 1, 0, (1u << 26) - 1).key_bits, 26u);
  EXPECT_EQ(make_pass_plan(8, 1, 0, (1u << 26) - 1).passes(), 4u);
  EXPECT_EQ(make_pass_plan(4, 1, 0, (1u << 26) - 1).passes(), 7u);
  // 0x0fff..0x1001 share no high bits beyond bit 13: 13 bits vary.
  EXPECT_EQ(make_pass_plan(1, 1, 0x0fff, 0x1001).key_bits, 13u);
  EXPECT_EQ(make_pass_plan(8, 4, 0, ~0u).passes(), 16u);
}

// ---- Full LSD sorts on the CPU -----------------------------------------------------------

template <typename K>
struct Data {
  std::vector<K> keys;
  std::vector<index_t> vals;
};

// radix-lsd-seed's pass: one histogram, Blelloch-scanned, sequential stable rearrange.
template <typename K>
Data<K> seed_pass(const Data<K>& in, const DigitSelect& sel) {
  std::vector<std::uint32_t> count(radix_bins(sel.bits), 0);
  for (const K& k : in.keys) ++count[key_digit(k, sel)];
  count = blelloch_exclusive_scan(count);
  Data<K> out{in.keys, in.vals};
  for (std::size_t i = 0; i < in.keys.size(); ++i) {
    const std::uint32_t pos = count[key_digit(in.keys[i], sel)]++;
    out.keys[pos] = in.keys[i];
    out.vals[pos] = in.vals[i];
  }
  return out;
}

// radix-lsd's pass, as the kernels do it: per-block histograms into digit-major counts, one
// exclusive scan of them, then per block and tile a rank per (warp, digit) in warp-segment
// order, the tile's local sort by digit, and the write-out from each digit's next position.
template <typename K>
Data<K> lsd_pass(const Data<K>& in, const DigitSelect& sel, unsigned warps, unsigned rounds, std::uint32_t max_blocks) {
  const std::uint64_t n = in.keys.size(), tile = std::uint64_t{warps} * rounds * kWarp;
  const unsigned bins = radix_bins(sel.bits);
  const TileSplit s = make_tile_split(n, tile, max_blocks);
  std::vector<std::uint64_t> counts(std::size_t{bins} * s.blocks, 0);
  for (std::uint32_t b = 0; b < s.blocks; ++b)
    for (std::uint64_t i = block_begin(s, b, n); i < block_end(s, b, n); ++i)
      ++counts[count_index(key_digit(in.keys[i], sel), b, s.blocks)];
  std::exclusive_scan(counts.begin(), counts.end(), counts.begin(), std::uint64_t{0});

  Data<K> out{in.keys, in.vals};
  for (std::uint32_t b = 0; b < s.blocks; ++b) {
    std::vector<std::uint64_t> next(bins);
    for (unsigned d = 0; d < bins; ++d) next[d] = counts[count_index(d, b, s.blocks)];
    const std::uint64_t end = block_end(s, b, n);
    for (std::uint64_t base = block_begin(s, b, n); base < end; base += tile) {
      std::vector<std::vector<std::uint32_t>> warp_count(warps, std::vector<std::uint32_t>(bins, 0));
      std::vector<std::uint32_t> rank(tile);
      for (unsigned w = 0; w < warps; ++w)
        for (unsigned r = 0; r < rounds; ++r)
          for (unsigned lane = 0; lane < kWarp; ++lane) {
            const std::uint32_t t = tile_offset(w, r, lane, rounds);
            if (base + t < end) rank[t] = warp_count[w][key_digit(in.keys[base + t], sel)]++;
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
      std::vector<index_t> local_vals(valid);
      for (std::uint32_t t = 0; t < valid; ++t) {
        const unsigned d = key_digit(in.keys[base + t], sel);
        const unsigned w = t / (rounds * kWarp);
        const std::uint32_t pos = tile_start[d] + warp_count[w][d] + rank[t];
        local_keys[pos] = in.keys[base + t];
        local_vals[pos] = in.vals[base + t];
      }
      for (std::uint32_t i = 0; i < valid; ++i) {
        const unsigned d = key_digit(local_keys[i], sel);
        out.keys[next[d] + (i - tile_start[d])] = local_keys[i];
        out.vals[next[d] + (i - tile_start[d])] = local_vals[i];
      }
      for (unsigned d = 0; d < bins; ++d) next[d] += tile_count[d];
    }
  }
  return out;
}

enum class Flavor { seed, lsd };

void expect_cpu_lsd_sorts(const InputSpec& spec, unsigned bits, Flavor flavor, unsigned warps = 2,
                          unsigned rounds = 3, std::uint32_t max_blocks = 5) {
  const test::Reference ref = test::make_reference(spec);
  const InputStats stats = input_stats_host(spec, ref.input_keys.data());
  const SortProblem problem{spec, stats, {{"radix-bits", std::to_string(bits)}}};
  const PassPlan plan = pass_plan(problem);
  EXPECT_EQ(plan.bits, bits);
  dispatch_key(spec.key, [&](auto k) {
    using K = decltype(k);
    Data<K> d;
    d.keys.resize(spec.n);
    if (spec.n) std::memcpy(d.keys.data(), ref.input_keys.data(), ref.input_keys.size());
    d.vals = ref.input_vals;
    for (unsigned pass = 0; pass < plan.passes(); ++pass)
      d = flavor == Flavor::seed ? seed_pass(d, pass_select(plan, pass))
                                 : lsd_pass(d, pass_select(plan, pass), warps, rounds, max_blocks);
    const std::string what = fmt::format("{} bits={} {}", flavor == Flavor::seed ? "seed" : "lsd", bits,
                                         test::describe(spec));
    ASSERT_EQ(d.keys.size() * sizeof(K), ref.sorted_keys.size()) << what;
    EXPECT_TRUE(spec.n == 0 || std::memcmp(d.keys.data(), ref.sorted_keys.data(), ref.sorted_keys.size()) == 0)
        << what;
    EXPECT_EQ(d.vals, ref.stable_vals) << "payload not in stable order: " << what;
  });
}

TEST(RadixCpuLsd, SortsLikeStableSortForEveryKeyTypeAndDigitWidth) {
  for (KeyType key : {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4})
    for (std::uint64_t n : {0ull, 1ull, 2ull, 33ull, 1000ull, 5000ull})
      for (Distribution dist : {Distribution::uniform, Distribution::reverse, Distribution::zipf})
        for (unsigned bits : {1u, 3u, 4u, 8u}) {
          const bool is_signed = key == KeyType::i32 || key == KeyType::f32;
          const InputSpec spec = test::make_spec(
              n, dist, key, Payload::index, std::nullopt, std::nullopt,
              is_signed ? std::optional<wide_t>(-static_cast<wide_t>(n / 2)) : std::nullopt);
          expect_cpu_lsd_sorts(spec, bits, Flavor::seed);
          expect_cpu_lsd_sorts(spec, bits, Flavor::lsd);
        }
}

TEST(RadixCpuLsd, KeepsEqualKeysInInputOrder) {
  // Many duplicates (len 3), full-size tiles and a block count that leaves a partial tile.
  for (KeyType key : {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4}) {
    const InputSpec spec = test::make_spec(20000, Distribution::uniform, key, Payload::index, 50.0, 3);
    for (unsigned bits : {2u, 8u}) {
      expect_cpu_lsd_sorts(spec, bits, Flavor::seed);
      expect_cpu_lsd_sorts(spec, bits, Flavor::lsd, 8, 16, 3);
      expect_cpu_lsd_sorts(spec, bits, Flavor::lsd, 8, 6, 528);
    }
  }
}

TEST(RadixParams, RadixBitsOutsideOneToEightIsAUsageError) {
  const InputSpec spec = test::make_spec(100);
  for (const char* bad : {"0", "9", "16", "x"}) {
    const SortProblem p{spec, {}, {{"radix-bits", bad}}};
    EXPECT_THROW(pass_plan(p), UsageError) << bad;
  }
  const SortProblem fine{spec, {}, {}};
  EXPECT_EQ(pass_plan(fine).bits, kDefaultRadixBits);
}

TEST(RadixRegistry, BothAlgorithmsAreStableWithPayloadForAllKeyTypes) {
  Registry r;
  register_radix(r);
  for (const char* name : {"radix-lsd-seed", "radix-lsd"}) {
    const Algorithm* a = r.find(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_TRUE(a->stable && a->supports_payload(Payload::index)) << name;
    for (KeyType k : {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4}) EXPECT_TRUE(a->supports_key(k)) << name << " " << to_string(k);
    EXPECT_EQ(a->params, std::vector<std::string>{"radix-bits"});
  }
  const InputSpec big = test::make_spec(radix::kSeedMaxN + 1);
  const SortProblem p{big, {}, {}};
  EXPECT_TRUE(r.find("radix-lsd-seed")->why_unsupported(p).has_value());
  EXPECT_FALSE(r.find("radix-lsd")->why_unsupported(p).has_value());
}

}  // namespace
}  // namespace sb::radix
