// Every registered CPU algorithm against std::stable_sort, and the harness's handling of an
// algorithm that returns a wrong result.
#include <gtest/gtest.h>

#include <functional>

#include "sortbench/session/session.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

TEST(CpuAlgorithms, EveryCpuAlgorithmMatchesStdSort) {
  const std::vector<InputSpec> specs = input_matrix({0, 1, 2, 33, 1023, 65537});
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

// A CPU algorithm on u32 keys, for the harness tests below.
Algorithm test_cpu_algorithm(std::string name, std::function<void(const SortProblem&, const HostBuffers&)> run) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "test";
  a.backend = Backend::cpu;
  a.key_types = {KeyType::u32};
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  a.run_host = std::move(run);
  a.pick_when = "a test's own algorithm";
  return a;
}

// One timed repetition, no warm-up budget: these tests check rows, not times.
RunPlan one_rep_plan(std::vector<const Algorithm*> algorithms) {
  RunPlan plan;
  plan.request.n = 1000;
  plan.algorithms = std::move(algorithms);
  plan.settings.min_reps = 1;
  plan.settings.budget_s = 0;
  return plan;
}

TEST(Benchmark, AWrongResultIsReportedAsVerificationFailure) {
  Registry r;
  r.add(test_cpu_algorithm("cpu-broken", [](const SortProblem& p, const HostBuffers& b) {
    auto* keys = static_cast<std::uint32_t*>(b.keys);
    for (std::uint64_t i = 0; i < p.n(); ++i) keys[i] = 0;  // "sorted", but not the input
  }));
  const auto rows = run_benchmark(one_rep_plan({r.find("cpu-broken")}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::verify_failed);
  EXPECT_NE(rows[0].reason.find("permutation"), std::string::npos) << rows[0].reason;
  EXPECT_TRUE(any_failed_verification(rows));
}

TEST(Benchmark, UnsupportedInputIsARowAndTheOthersStillRun) {
  Algorithm picky = test_cpu_algorithm("cpu-picky", [](const SortProblem&, const HostBuffers&) {});
  picky.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (!p.keys_distinct()) return std::string("needs distinct keys");
    return std::nullopt;
  };
  Registry r;
  r.add(picky);
  RunPlan plan = one_rep_plan({r.find("cpu-picky"), registry().find("cpu-std-sort")});
  plan.request.delta = 4;
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
  a.pick_when = "a test's own algorithm";
  r.add(a);
  EXPECT_THROW(r.add(a), std::logic_error);
}

}  // namespace
}  // namespace sb::test
