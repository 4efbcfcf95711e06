// Every registered GPU algorithm against std::stable_sort over the foundation issue's matrix:
// sizes around warp and block edges, every distribution, every key type it supports, with
// and without payload, negative minVal, and maxVal near 2^31 and 2^32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

std::vector<InputSpec> matrix() {
  const std::vector<std::uint64_t> sizes{0, 1, 2, 3, 31, 32, 33, 1000, 1025, 65537, 1u << 20};
  std::vector<InputSpec> specs = input_matrix(sizes);
  // 2^24: one key type of each width and kind, with and without the widest payload.
  for (KeyType k : {KeyType::u32, KeyType::u64, KeyType::f64})
    for (Distribution d : {Distribution::uniform, Distribution::reverse, Distribution::zipf})
      for (Payload p : {Payload::none, Payload::u64})
        specs.push_back(make_spec(std::uint64_t{1} << 24, d, k, p, std::nullopt, std::nullopt,
                                  k == KeyType::f64 ? std::optional<wide_t>(-(wide_t{1} << 23)) : std::nullopt));
  // The ends of the 64-bit domains: u64 over all of [0, 2^64), i64 from -2^63 and up to 2^63 - 1.
  for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{65537}})
    for (Payload p : {Payload::none, Payload::u64}) {
      InputRequest r;
      r.n = n;
      r.payload = p;
      r.key = KeyType::u64;
      r.min_val = 0;
      r.max_val = wide_t{1} << 64;
      specs.push_back(derive_input_spec(r));
      r.key = KeyType::i64;
      r.min_val = -(wide_t{1} << 63);
      r.max_val = std::nullopt;
      r.delta = 0.25;
      specs.push_back(derive_input_spec(r));
      r.min_val = std::nullopt;
      r.max_val = wide_t{1} << 63;
      r.delta = std::nullopt;
      specs.push_back(derive_input_spec(r));
    }
  // Values at the top of the 32-bit ranges, dense duplicates, and very few distinct values.
  for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{65537}, std::uint64_t{1} << 20})
    for (Payload p : {Payload::none, Payload::index}) {
      InputRequest r;
      r.n = n;
      r.payload = p;
      r.key = KeyType::i32;
      r.max_val = std::int64_t{1} << 31;
      r.min_val = (std::int64_t{1} << 31) - static_cast<std::int64_t>(4 * n);
      specs.push_back(derive_input_spec(r));
      r.key = KeyType::u32;
      r.max_val = std::int64_t{1} << 32;
      r.min_val = (std::int64_t{1} << 32) - static_cast<std::int64_t>(4 * n);
      specs.push_back(derive_input_spec(r));
      specs.push_back(make_spec(n, Distribution::uniform, KeyType::u32, p, 50.0));
      specs.push_back(make_spec(n, Distribution::uniform, KeyType::i32, p, 1.0, 3, -5));
      specs.push_back(make_spec(n, Distribution::zipf, KeyType::u32, p, 0.25));
    }
  return specs;
}

// SORTBENCH_TEST_ALGOS="hp*,cub-radix" limits the matrix to some algorithms (same syntax as --algo).
std::vector<const Algorithm*> algorithms_under_test() {
  const char* only = std::getenv("SORTBENCH_TEST_ALGOS");
  std::vector<const Algorithm*> out;
  if (only && *only) {
    for (const Algorithm* a : registry().select(only, Backend::gpu))
      if (a->backend == Backend::gpu && !a->distributed()) out.push_back(a);
    return out;
  }
  for (const Algorithm& a : registry().all())  // distributed ones: tests/gpu_multi
    if (a.backend == Backend::gpu && !a.distributed()) out.push_back(&a);
  return out;
}

// SORTBENCH_TEST_MAX_N=1048576 leaves out larger inputs (for slow-by-design algorithms,
// whose large-n correctness the harness's own verification covers in benchmark runs).
std::uint64_t max_n_under_test() {
  const char* max_n = std::getenv("SORTBENCH_TEST_MAX_N");
  return max_n && *max_n ? std::stoull(max_n) : ~std::uint64_t{0};
}

// Faithful variants that take up to seconds per sort from 2^20 on (one warp or thread
// partitions each segment; QuicksortAdversarial still runs them at 2^20 on every shape):
// over the matrix's inputs of 2^20 and 2^24 keys they would add about ten minutes. The harness
// verifies them at 2^24 in every benchmark run (results/h200/quicksort.json).
constexpr const char* kSlowAtLargeN = "quick-seq*,quick-prefix*,quick-pprefix,quick-direct,merge-dp";
constexpr std::uint64_t kLargeN = std::uint64_t{1} << 20;

bool too_slow_for(const Algorithm& a, const InputSpec& spec) {
  if (spec.n < kLargeN) return false;
  static const std::vector<const Algorithm*> slow = [] {
    std::vector<const Algorithm*> v;
    try {
      v = registry().select(kSlowAtLargeN, Backend::gpu);
    } catch (const UsageError&) {  // a build without the quicksort family
    }
    return v;
  }();
  return std::find(slow.begin(), slow.end(), &a) != slow.end();
}

class GpuMatrix : public testing::TestWithParam<InputSpec> {};

TEST_P(GpuMatrix, EveryGpuAlgorithmMatchesStdSort) {
  const InputSpec spec = GetParam();
  if (spec.n > max_n_under_test()) GTEST_SKIP() << "n above SORTBENCH_TEST_MAX_N";
  const Reference ref = make_reference(spec);
  DeviceInput input(spec);
  int ran = 0;
  for (const Algorithm* a : algorithms_under_test()) {
    const Algorithm& algo = *a;
    if (too_slow_for(algo, spec)) continue;
    const Outcome out = input.run(algo);
    if (out.unsupported) {
      EXPECT_FALSE(out.unsupported->empty()) << algo.name << " declined without a reason";
      continue;
    }
    ++ran;
    expect_matches_reference(algo, spec, ref, out);
  }
  // Over the whole registry, every input has at least one taker (cub-merge takes them all).
  const char* only = std::getenv("SORTBENCH_TEST_ALGOS");
  if (!only || !*only) EXPECT_GT(ran, 0) << describe(spec);
}

INSTANTIATE_TEST_SUITE_P(Inputs, GpuMatrix, testing::ValuesIn(matrix()),
                         [](const testing::TestParamInfo<InputSpec>& info) {
                           const InputSpec& s = info.param;
                           return test_name(fmt::format("n{}_{}_{}_{}_min{}_max{}_len{}_{}", s.n, to_string(s.dist),
                                                        to_string(s.key), to_string(s.payload), wide_text(s.min_val),
                                                        wide_text(s.max_val), s.len, info.index));
                         });

// A u64 payload lifts the 2^32 limit of 32-bit positions; at 2^28 every GPU algorithm that
// takes one is checked by the verifier alone (a host reference of 2^28 pairs would dominate).
// One case per algorithm, so each has its own timeout and they spread over the GPUs.
std::vector<std::string> gpu_algorithm_names() {
  std::vector<std::string> names;
  for (const Algorithm& a : registry().all())
    if (a.backend == Backend::gpu && !a.distributed()) names.push_back(a.name);
  return names;
}

class GpuWidePayload : public testing::TestWithParam<std::string> {};

TEST_P(GpuWidePayload, U64PayloadAt2To28) {
  if (max_n_under_test() < (std::uint64_t{1} << 28)) GTEST_SKIP() << "n above SORTBENCH_TEST_MAX_N";
  const Algorithm& algo = registry().named(GetParam());
  const auto under_test = algorithms_under_test();
  if (std::find(under_test.begin(), under_test.end(), &algo) == under_test.end())
    GTEST_SKIP() << algo.name << " is not in SORTBENCH_TEST_ALGOS";
  const InputSpec spec = make_spec(std::uint64_t{1} << 28, Distribution::uniform, KeyType::u32, Payload::u64, 50.0);
  if (too_slow_for(algo, spec)) GTEST_SKIP() << algo.name << " takes seconds a sort from 2^20 on (kSlowAtLargeN)";
  const Outcome out = run_device_once(algo, spec);
  if (out.unsupported) GTEST_SKIP() << algo.name << " declines it: " << *out.unsupported;
  EXPECT_TRUE(out.verify.ok) << algo.name << ": " << out.verify.message;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, GpuWidePayload, testing::ValuesIn(gpu_algorithm_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return test_name(info.param); });

}  // namespace
}  // namespace sb::test
