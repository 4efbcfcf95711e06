// Every registered GPU algorithm against std::stable_sort over the foundation issue's matrix:
// sizes around warp and block edges, every distribution, every key type it supports, with
// and without payload, negative minVal, and maxVal near 2^31 and 2^32.
#include <gtest/gtest.h>

#include <cstdlib>

#include <fmt/format.h>

#include "sortbench/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

std::vector<InputSpec> matrix() {
  const std::vector<std::uint64_t> sizes{0, 1, 2, 3, 31, 32, 33, 1000, 1025, 65537, 1u << 20, 1u << 24};
  std::vector<InputSpec> specs = input_matrix(sizes);
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
      if (a->backend == Backend::gpu) out.push_back(a);
    return out;
  }
  for (const Algorithm& a : registry().all())
    if (a.backend == Backend::gpu) out.push_back(&a);
  return out;
}

class GpuMatrix : public testing::TestWithParam<InputSpec> {};

TEST_P(GpuMatrix, EveryGpuAlgorithmMatchesStdSort) {
  const InputSpec spec = GetParam();
  const Reference ref = make_reference(spec);
  int ran = 0;
  for (const Algorithm* a : algorithms_under_test()) {
    const Algorithm& algo = *a;
    const Outcome out = run_device_once(algo, spec);
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
                           std::string name = fmt::format("n{}_{}_{}_{}_min{}_max{}_len{}", s.n, to_string(s.dist),
                                                          to_string(s.key), to_string(s.payload), s.min_val,
                                                          s.max_val, s.len);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name + "_" + std::to_string(info.index);
                         });

}  // namespace
}  // namespace sb::test
