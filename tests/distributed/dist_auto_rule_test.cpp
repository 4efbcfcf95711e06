// dist-auto's rule (issue 38, kernels/distributed/dist_cost_model.hpp): the predictions add their
// terms and the choice follows the fabric, not one card. Rates below are round numbers of the
// kind measure_fabric reports (an H100 pair over NVLink, a PCIe pair, a slow network).
#include <gtest/gtest.h>

#include "distributed/dist_cost_model.hpp"

namespace sb::dist {
namespace {

constexpr DistRates kNvlink{1300, 300, 20e-6, 3e-6};
constexpr DistRates kPcie{1300, 20, 30e-6, 3e-6};

DistShape uint_keys(std::uint64_t n, std::uint64_t range, int world = 2) {
  DistShape s;
  s.n = n;
  s.world = world;
  s.key_bytes = 4;
  s.key_bits = 32;
  unsigned bits = 0;
  while (bits < 64 && ((range - 1) >> bits)) ++bits;
  s.range_bits = bits;
  s.range = range;
  return s;
}

TEST(DistCostModel, FormulasAddTheirTerms) {
  const LocalRates r{1e10, 5e9, 2e10};
  const Fabric one{1, 1, 300, 50, 20e-6};
  // One GPU: no collective, only the local rate.
  EXPECT_DOUBLE_EQ(predict_dist_hp_s(1e9, 1e6, r, one), 0.1);
  EXPECT_DOUBLE_EQ(predict_sample_sort_s(1e9, 4, r, one), 0.2);
  // Two GPUs on NVLink: a ring all-reduce sends 2 (G-1)/G of the 4-byte bins; the sample sort
  // sends the half of each rank's keys that belongs to the other.
  const Fabric two{1, 2, 300, 50, 20e-6};
  EXPECT_DOUBLE_EQ(predict_dist_hp_s(1e9, 1e6, r, two), 0.05 + 4e6 / 300e9 + 20e-6);
  EXPECT_DOUBLE_EQ(predict_sample_sort_s(1e9, 4, r, two), 0.1 + 0.5 * 5e8 * 4 / 300e9 + 20e-6 + 5e8 / 2e10);
  // dist-hp's exchange does not grow with n; the sample sort's does.
  const Fabric eight{1, 8, 300, 50, 20e-6};
  EXPECT_DOUBLE_EQ(predict_dist_hp_s(2e9, 1e6, r, eight) - 2e9 / 8 / r.hp_keys_per_s,
                   predict_dist_hp_s(4e9, 1e6, r, eight) - 4e9 / 8 / r.hp_keys_per_s);
  EXPECT_GT(all_to_all_s(4e9, eight), all_to_all_s(2e9, eight));
}

TEST(DistCostModel, InfiniBandDecidesAcrossHosts) {
  // 4 hosts x 8 GPUs: 24/32 of every GPU's keys leave its host at 50 GB/s, 7/32 stay on NVLink.
  const Fabric cluster{4, 8, 300, 50, 0};
  EXPECT_DOUBLE_EQ(all_to_all_s(32e9, cluster), 24e9 / 50e9);
  EXPECT_DOUBLE_EQ(all_reduce_s(32e9, cluster), 2.0 * 31 / 32 * 32e9 / 50e9);
  const Fabric host{1, 8, 300, 50, 0};
  EXPECT_DOUBLE_EQ(all_to_all_s(32e9, host), 28e9 / 300e9);
}

TEST(DistAutoRule, RadixPassesFollowTheBits) {
  EXPECT_EQ(radix_passes(0), 1u);
  EXPECT_EQ(radix_passes(8), 1u);
  EXPECT_EQ(radix_passes(9), 2u);
  EXPECT_EQ(radix_passes(32), 4u);
  EXPECT_EQ(radix_passes(64), 8u);
  // Twice the bits, about twice the passes' traffic.
  const double t32 = radix_sort_s(1e9, 32, 4, 0, kNvlink), t16 = radix_sort_s(1e9, 16, 4, 0, kNvlink);
  EXPECT_GT(t32, 1.6 * t16);
  // A payload adds its bytes to every pass.
  EXPECT_GT(radix_sort_s(1e9, 32, 4, 4, kNvlink), 1.5 * t32);
}

TEST(DistAutoRule, DenseRangeTakesTheHistogramSort) {
  // n = 2^31, delta = sigma = 50: 43 M bins, hp-tiled in two levels.
  DistShape s = uint_keys(std::uint64_t{1} << 31, 42949673);
  s.hp = true;
  s.hp_levels = 2;
  EXPECT_EQ(dist_choice(s, kNvlink), DistChoice::hp);
  EXPECT_LT(dist_hp_s(s, kNvlink), 0.6 * dist_sample_sort_s(s, kNvlink));
}

TEST(DistAutoRule, HistogramOfTheWholeDomainLosesToTheSampleSort) {
  // A 2^32-bin histogram is 16 GB to all-reduce: with the sample sort's 2^30 keys a rank it loses.
  DistShape s = uint_keys(std::uint64_t{1} << 31, std::uint64_t{1} << 32);
  s.hp = true;
  s.hp_levels = 2;
  EXPECT_EQ(dist_choice(s, kNvlink), DistChoice::sample_sort);
}

TEST(DistAutoRule, WithoutTheHistogramSortTheSampleSortRuns) {
  DistShape s = uint_keys(std::uint64_t{1} << 30, std::uint64_t{1} << 31);
  EXPECT_EQ(dist_choice(s, kNvlink), DistChoice::sample_sort);
}

TEST(DistAutoRule, PairsOfADenseRangeTakeDistHp) {
  // 2^28 pairs, delta = sigma = 50 (about 2^22.4 bins, 23 bits): dist-hp sorts the pairs on
  // 3 radix passes where the sample sort takes 4, and both exchange and merge the same bytes.
  DistShape s = uint_keys(std::uint64_t{1} << 28, 5368710);
  s.value_bytes = 4;
  s.hp = true;
  EXPECT_LT(dist_hp_s(s, kNvlink), dist_sample_sort_s(s, kNvlink));
  EXPECT_EQ(dist_choice(s, kNvlink), DistChoice::hp);
  // On two ranks it splits first: the peer's piece crosses beside the kept piece's sort, so a
  // link that carries it within that sort costs only the all-reduce of the bins and the
  // collectives' latencies; past it, the exchange's excess over that sort.
  const double reduce = 2.0 * 0.5 * 4.0 * double(s.range), half = double(s.n) / 4, e = 8.0;
  const double kept_sort = radix_sort_s(half, s.range_bits, 4, 4, kNvlink);
  auto beside = [&](const DistRates& r) { return std::max(half * e / (r.exchange_gbs * 1e9), kept_sort); };
  for (const DistRates& link : {kPcie, DistRates{kNvlink.copy_gbs, 1e3, kNvlink.latency_s, kNvlink.launch_s}})
    EXPECT_NEAR(dist_hp_s(s, link) - dist_hp_s(s, kNvlink),
                beside(link) - beside(kNvlink) +
                    reduce * (1 / (link.exchange_gbs * 1e9) - 1 / (kNvlink.exchange_gbs * 1e9)) +
                    5.0 * (link.latency_s - kNvlink.latency_s),
                1e-9);
  // More ranks sort first and pay the exchange of the pairs unchunked: a slower link adds to
  // the prediction what it adds to that exchange, plus the all-reduce and its latency.
  s.world = 4;
  const double reduce4 = 2.0 * 0.75 * 4.0 * double(s.range);
  EXPECT_NEAR(dist_hp_s(s, kPcie) - dist_hp_s(s, kNvlink),
              exchange_and_merge_s(s, kPcie) - exchange_and_merge_s(s, kNvlink) +
                  reduce4 * (1 / (kPcie.exchange_gbs * 1e9) - 1 / (kNvlink.exchange_gbs * 1e9)) +
                  (kPcie.latency_s - kNvlink.latency_s),
              1e-9);
}

TEST(DistAutoRule, SplitFirstSortsThePresentKeysRanksWhereKnown) {
  // 2^26 pairs, delta = sigma = 50: 1,342,177 bins (21 bits, three passes), 26,844 keys present
  // (15 bits, two). Known, the two sorts take two passes, on 2-byte ranks that cross and merge
  // as 6 bytes a pair instead of 8; unknown (a file's facts), three on the keys.
  DistShape s = uint_keys(std::uint64_t{1} << 26, 1342177);
  s.value_bytes = 4;
  s.hp = true;
  s.l2_bytes = 50e6;  // the 5.4 MB table of a count a bin fits
  ASSERT_EQ(s.range_bits, 21u);
  const double on_range = dist_hp_s(s, kNvlink);
  s.distinct = 26844;
  const double m = double(s.n) / 2;
  const double received_saved = radix_sort_s(m / 2, 21, 4, 4, kNvlink) - radix_sort_s(m / 2, 15, 2, 4, kNvlink);
  // The ranks' scans and lookups, less the split's 2 bytes a pair fewer written.
  const double scan = (3.0 * 1342177 * 4 + 26844 * 4 + m * 10 - m * 2) / (2.0 * kNvlink.copy_gbs * 1e9) / kHpShare;
  auto exchange = [&](double bytes) { return m / 2 * bytes / (kNvlink.exchange_gbs * 1e9); };
  const double kept_saved = std::max(exchange(8), radix_sort_s(m / 2, 21, 4, 4, kNvlink)) -
                            std::max(exchange(6), radix_sort_s(m / 2, 15, 2, 4, kNvlink));
  const double merge_saved = m * 2 / (2.0 * kNvlink.copy_gbs * 1e9) / kMergeShare;
  EXPECT_NEAR(on_range - dist_hp_s(s, kNvlink), received_saved + kept_saved + merge_saved - scan, 1e-12);
  // A table past the L2: each lookup a sector from memory, 22 bytes of traffic more a pair.
  const double in_l2 = dist_hp_s(s, kNvlink);
  s.l2_bytes = 4e6;
  EXPECT_NEAR(dist_hp_s(s, kNvlink) - in_l2, m * 22 / (2.0 * kNvlink.copy_gbs * 1e9) / kHpShare, 1e-12);
  s.distinct = 70000;  // 17 bits: three passes, as the range's
  EXPECT_DOUBLE_EQ(dist_hp_s(s, kNvlink), on_range);
}

TEST(DistAutoRule, ChunksHideTheMergesBehindTheExchange) {
  // 2^31 keys on two ranks: 8 chunks, and all but one eighth of the merges beside the exchange.
  const DistShape s = uint_keys(std::uint64_t{1} << 31, std::uint64_t{1} << 32);
  const double one = exchange_and_merge_s(s, kNvlink), eight = exchange_and_merge_s(s, kNvlink, 8);
  const double m = double(s.n) / 2, merges = m * 2.0 * 4 / (2.0 * kNvlink.copy_gbs * 1e9) / kMergeShare;
  EXPECT_NEAR(one - eight, merges * 7 / 8 - 7 * (kNvlink.latency_s + 2 * kNvlink.launch_s), 1e-9);
  // Merges slower than the exchange (a fast link): the merges decide, less the last chunk's.
  const DistRates fast{kNvlink.copy_gbs, 1e6, kNvlink.latency_s, kNvlink.launch_s};
  EXPECT_GT(exchange_and_merge_s(s, fast, 8), merges);
}

TEST(DistAutoRule, PairsOfTheWholeDomainKeepTheSampleSort) {
  // Every key bit in the range: the same passes, plus a histogram of 2^32 bins to all-reduce.
  DistShape s = uint_keys(std::uint64_t{1} << 28, std::uint64_t{1} << 32);
  s.value_bytes = 4;
  s.hp = true;
  EXPECT_GT(dist_hp_s(s, kNvlink), dist_sample_sort_s(s, kNvlink));
  EXPECT_EQ(dist_choice(s, kNvlink), DistChoice::sample_sort);
}

TEST(DistAutoRule, TinyInputsGoToOneGpu) {
  DistShape s = uint_keys(3, 1000);
  s.one_gpu = true;
  EXPECT_EQ(dist_choice(s, kNvlink), DistChoice::one_gpu);
  // Not allowed (larger than the L2): never chosen, however the predictions fall.
  s.one_gpu = false;
  EXPECT_NE(dist_choice(s, kNvlink), DistChoice::one_gpu);
}

// A profile's measure of each way (tune --gpus N) scales its prediction: a way measured three
// times slower than predicted loses to the next one, and unit scales leave the choice as it was.
TEST(DistAutoRule, AProfilesScalesMoveTheChoice) {
  DistShape s = uint_keys(std::uint64_t{1} << 28, std::uint64_t{1} << 22);
  s.hp = true;
  s.range = std::uint64_t{1} << 22;
  ASSERT_EQ(dist_choice(s, kNvlink), DistChoice::hp);
  EXPECT_EQ(dist_choice(s, kNvlink, DistScales{}), DistChoice::hp);
  DistScales slow_hp;
  slow_hp.hp = 1.0 + dist_sample_sort_s(s, kNvlink) / dist_hp_s(s, kNvlink);
  EXPECT_EQ(dist_choice(s, kNvlink, slow_hp), DistChoice::sample_sort);
  EXPECT_EQ(slow_hp.of(DistChoice::hp), slow_hp.hp);
  EXPECT_EQ(slow_hp.of(DistChoice::one_gpu), 1.0);
  // A gather measured far faster than predicted takes a small input that may be gathered.
  DistShape small = uint_keys(std::uint64_t{1} << 22, std::uint64_t{1} << 32);
  small.one_gpu = true;
  DistScales fast_gather;
  fast_gather.one_gpu = 1e-3;
  EXPECT_EQ(dist_choice(small, kNvlink, fast_gather), DistChoice::one_gpu);
  // ... but never one that may not.
  small.one_gpu = false;
  EXPECT_NE(dist_choice(small, kNvlink, fast_gather), DistChoice::one_gpu);
}

TEST(DistAutoRule, TheLinkDecides) {
  // 8 M keys that may be gathered: a link 15x slower makes both ways that ship keys dearer,
  // and the choice is still the cheaper of the two on that link.
  DistShape s = uint_keys(std::uint64_t{1} << 23, std::uint64_t{1} << 32);
  s.one_gpu = true;
  const double fast_gather = dist_one_gpu_s(s, kNvlink), slow_gather = dist_one_gpu_s(s, kPcie);
  EXPECT_GT(slow_gather, fast_gather);
  EXPECT_GT(dist_sample_sort_s(s, kPcie), dist_sample_sort_s(s, kNvlink));
  // On the slow link the choice never ships more keys than the faster way needs.
  const DistChoice slow = dist_choice(s, kPcie);
  const double chosen = slow == DistChoice::one_gpu ? slow_gather : dist_sample_sort_s(s, kPcie);
  EXPECT_LE(chosen, std::min(slow_gather, dist_sample_sort_s(s, kPcie)));
}

TEST(DistAutoRule, OneRankNeverPaysForAnExchange) {
  DistShape s = uint_keys(std::uint64_t{1} << 28, std::uint64_t{1} << 32, 1);
  EXPECT_DOUBLE_EQ(dist_sample_sort_s(s, kNvlink), radix_sort_s(double(s.n), 32, 4, 0, kNvlink));
  s.one_gpu = true;
  EXPECT_DOUBLE_EQ(dist_one_gpu_s(s, kNvlink), radix_sort_s(double(s.n), s.range_bits, 4, 0, kNvlink));
}

TEST(DistAutoRule, WideCountsDoubleTheReduceScatter) {
  // Keys alone reduce-scatter the bins: each rank sends (G - 1) / G of them, 4 bytes more each.
  DistShape s = uint_keys(std::uint64_t{1} << 32, 85899346);
  s.hp = true;
  s.hp_levels = 2;
  const double four = dist_hp_s(s, kPcie);
  s.count_bytes = 8;
  EXPECT_GT(dist_hp_s(s, kPcie), four + 0.9 * 0.5 * 4.0 * double(s.range) / (kPcie.exchange_gbs * 1e9));
  EXPECT_LT(dist_hp_s(s, kPcie), four + 1.1 * 2.0 * 0.5 * 4.0 * double(s.range) / (kPcie.exchange_gbs * 1e9));
}

TEST(DistAutoRule, NamesAreTheAlgorithms) {
  EXPECT_STREQ(dist_choice_name(DistChoice::hp), "dist-hp");
  EXPECT_STREQ(dist_choice_name(DistChoice::sample_sort), "dist-sample-sort");
  EXPECT_STREQ(dist_choice_name(DistChoice::one_gpu), "one-gpu");
}

}  // namespace
}  // namespace sb::dist
