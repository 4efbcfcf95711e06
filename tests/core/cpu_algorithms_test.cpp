// Every registered CPU algorithm against std::stable_sort, and the harness's handling of an
// algorithm that returns a wrong result.
#include <gtest/gtest.h>

#include "sortbench/benchmark.hpp"
#include "sortbench/errors.hpp"
#include "sortbench/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

TEST(CpuAlgorithms, EveryCpuAlgorithmMatchesStdSort) {
  const std::vector<InputSpec> specs = input_matrix({0, 1, 2, 33, 1000, 65537});
  for (const InputSpec& spec : specs) {
    const Reference ref = make_reference(spec);
    for (const Algorithm& algo : registry().all()) {
      if (algo.backend != Backend::cpu) continue;
      const Outcome out = run_host_once(algo, spec);
      if (out.unsupported) continue;
      expect_matches_reference(algo, spec, ref, out);
    }
  }
}

TEST(Benchmark, AWrongResultIsReportedAsVerificationFailure) {
  Algorithm broken;
  broken.name = "cpu-broken";
  broken.family = "test";
  broken.backend = Backend::cpu;
  broken.key_types = {KeyType::u32};
  broken.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  broken.run_host = [](const SortProblem& p, const HostBuffers& b) {
    auto* keys = static_cast<std::uint32_t*>(b.keys);
    for (std::uint64_t i = 0; i < p.n(); ++i) keys[i] = 0;  // "sorted", but not the input
  };
  Registry r;
  r.add(broken);
  RunPlan plan;
  plan.request.n = 1000;
  plan.algorithms = {r.find("cpu-broken")};
  plan.settings.min_reps = 1;
  plan.settings.budget_s = 0;
  const auto rows = run_benchmark(plan);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::verify_failed);
  EXPECT_NE(rows[0].reason.find("permutation"), std::string::npos) << rows[0].reason;
  EXPECT_TRUE(any_failed_verification(rows));
}

TEST(Benchmark, UnsupportedInputIsARowAndTheOthersStillRun) {
  Algorithm picky;
  picky.name = "cpu-picky";
  picky.family = "test";
  picky.backend = Backend::cpu;
  picky.key_types = {KeyType::u32};
  picky.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  picky.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (!p.keys_distinct()) return std::string("needs distinct keys");
    return std::nullopt;
  };
  picky.run_host = [](const SortProblem&, const HostBuffers&) {};
  Registry r;
  r.add(picky);
  RunPlan plan;
  plan.request.n = 1000;
  plan.request.delta = 4;
  plan.algorithms = {r.find("cpu-picky"), registry().find("cpu-std-sort")};
  plan.settings.min_reps = 1;
  plan.settings.budget_s = 0;
  const auto rows = run_benchmark(plan);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, RowStatus::unsupported);
  EXPECT_EQ(rows[0].reason, "needs distinct keys");
  EXPECT_EQ(rows[1].status, RowStatus::ok);
  EXPECT_EQ(rows[1].verification, "passed");
}

TEST(Registry, SelectsByNamePrefixAndAllWithSuggestions) {
  const Registry& r = registry();
  EXPECT_EQ(r.select("cub-radix", Backend::gpu).size(), 1u);
  EXPECT_GE(r.select("cub-radix*", Backend::gpu).size(), 3u);
  for (const Algorithm* a : r.select("all", Backend::cpu)) EXPECT_EQ(a->backend, Backend::cpu);
  try {
    r.select("cub-radx", Backend::gpu);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cub-radix"), std::string::npos);
  }
  EXPECT_THROW(r.select("", Backend::gpu), UsageError);
  EXPECT_THROW(r.select("zzz*", Backend::gpu), UsageError);
}

TEST(Registry, RefusesIncompleteAndDuplicateDescriptions) {
  Registry r;
  Algorithm a;
  a.name = "x";
  EXPECT_THROW(r.add(a), std::logic_error);
  a.family = "f";
  a.key_types = {KeyType::u32};
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  a.backend = Backend::cpu;
  a.run_host = [](const SortProblem&, const HostBuffers&) {};
  r.add(a);
  EXPECT_THROW(r.add(a), std::logic_error);
}

}  // namespace
}  // namespace sb::test
