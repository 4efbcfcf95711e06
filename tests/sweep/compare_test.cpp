// sortbench compare: verdicts against threshold and noise, matching, and exit codes on the
// fixture files in tests/fixtures/ (a run document as BASE, sweep JSONL as NEW).
#include <gtest/gtest.h>

#include "sortbench/report/compare.hpp"
#include "sortbench/core/errors.hpp"
#include "support/command.hpp"

namespace sb {
namespace {

using test::exe;
using test::run_command;
using test::source_path;

ResultRow timed(double median_ms, double rel_stddev) {
  ResultRow r;
  r.algorithm = "a";
  r.summaries.set(summary_tag::samples, 10);
  r.summaries.set(summary_tag::median_ms, median_ms);
  r.summaries.set(summary_tag::rel_stddev, rel_stddev);
  return r;
}

Verdict verdict(const ResultRow& base, const ResultRow& next, double threshold = 0.05) {
  double ratio = 0, noise = 0;
  return judge(base, next, threshold, &ratio, &noise);
}

TEST(CompareJudge, ThresholdAndNoiseBothDecide) {
  EXPECT_EQ(verdict(timed(1.0, 0.01), timed(1.04, 0.01)), Verdict::same);     // under the threshold
  EXPECT_EQ(verdict(timed(1.0, 0.01), timed(1.10, 0.01)), Verdict::slower);   // over both
  EXPECT_EQ(verdict(timed(1.0, 0.01), timed(0.90, 0.01)), Verdict::faster);
  EXPECT_EQ(verdict(timed(1.0, 0.20), timed(1.15, 0.30)), Verdict::same);     // inside the noise
  EXPECT_EQ(verdict(timed(1.0, 0.20), timed(1.15, 0.01)), Verdict::slower);   // the quieter run decides
  EXPECT_EQ(verdict(timed(1.0, 0.01), timed(1.04, 0.01), 0.0), Verdict::slower);
  double ratio = 0, noise = 0;
  judge(timed(2.0, 0.03), timed(3.0, 0.02), 0.05, &ratio, &noise);
  EXPECT_DOUBLE_EQ(ratio, 1.5);
  EXPECT_DOUBLE_EQ(noise, 0.02);
}

TEST(CompareJudge, StatusChanges) {
  ResultRow broken = timed(0, 0);
  broken.summaries = {};
  broken.status = RowStatus::verify_failed;
  ResultRow unsupported = broken;
  unsupported.status = RowStatus::unsupported;
  EXPECT_EQ(verdict(timed(1.0, 0.01), broken), Verdict::failed);
  EXPECT_EQ(verdict(broken, timed(1.0, 0.01)), Verdict::fixed);
  EXPECT_EQ(verdict(unsupported, unsupported), Verdict::no_time);
}

TEST(CompareJudge, ThresholdText) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("2.5"), 0.025);
  for (const char* bad : {"", "%", "five", "-1%", "5%%"}) EXPECT_THROW(parse_threshold(bad), UsageError) << bad;
}

TEST(CompareFiles, ReadsRunDocumentsAndSweepLines) {
  const auto base = read_result_file(source_path("tests/fixtures/compare-base.json"));
  const auto next = read_result_file(source_path("tests/fixtures/compare-new-regressed.jsonl"));
  EXPECT_EQ(base.size(), 6u);
  EXPECT_EQ(next.size(), 6u);
  const CompareReport report = compare_results(base, next, 0.05);
  ASSERT_EQ(report.matched.size(), 5u);
  const std::vector<Verdict> expected{Verdict::same, Verdict::slower, Verdict::same, Verdict::faster, Verdict::failed};
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(report.matched[i].verdict, expected[i]) << report.matched[i].key;
  ASSERT_EQ(report.only_base.size(), 1u);
  ASSERT_EQ(report.only_new.size(), 1u);
  EXPECT_EQ(report.regressions(), 2u);
  EXPECT_THROW(read_result_file(source_path("datasets/smoke.json")), UsageError);
}

TEST(CompareCli, ExitOneOnARegressionOnly) {
  const std::string base = source_path("tests/fixtures/compare-base.json");
  const auto bad = run_command(exe() + " compare " + base + " " + source_path("tests/fixtures/compare-new-regressed.jsonl"));
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("  SLOWER\n"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("FAILED"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("only in"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("1.200"), std::string::npos) << "the ratio of the slower row: " << bad.output;

  const auto ok = run_command(exe() + " compare " + base + " " + source_path("tests/fixtures/compare-new-ok.jsonl"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("only in"), std::string::npos) << "rows only in one file are listed: " << ok.output;

  // A generous threshold hides the slower row, not the failure.
  const auto loose = run_command(exe() + " compare --threshold 50% " + base + " " +
                                 source_path("tests/fixtures/compare-new-regressed.jsonl"));
  EXPECT_EQ(loose.exit_code, 1) << loose.output;
  EXPECT_EQ(loose.output.find("  SLOWER\n"), std::string::npos) << loose.output;

  const auto same = run_command(exe() + " compare " + base + " " + base);
  EXPECT_EQ(same.exit_code, 0) << same.output;
  const auto missing = run_command(exe() + " compare " + base + " /nonexistent.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

// Issue 47 item 2: two files with no row in common compared nothing and exited 0.
TEST(CompareCli, NoMatchingRowIsExitTwo) {
  const std::string base = source_path("tests/fixtures/compare-base.json");
  const auto none = run_command(exe() + " compare " + base + " " + source_path("tests/fixtures/bitonic-results.jsonl"));
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("matches a row of"), std::string::npos) << none.output;
}

}  // namespace
}  // namespace sb
