// sortbench compare BASE NEW: the regression check of CI (lib/sortbench/report/compare.hpp;
// docs/sweep.md "compare"). Exit 1 when a row is slower beyond both the threshold and the
// measured noise, or fails in NEW where it passed in BASE.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/report/compare.hpp"
#include "sortbench/core/errors.hpp"

namespace sb::cli {
namespace {

struct CompareOptions {
  std::string base, next, threshold = "5%";
};

int run_compare(const CompareOptions& o) {
  const double threshold = parse_threshold(o.threshold);
  const std::vector<ResultRow> base = read_result_file(o.base);
  const std::vector<ResultRow> next = read_result_file(o.next);
  const CompareReport report = compare_results(base, next, threshold);
  // A comparison of nothing must not pass: a CI job that compares the wrong pair of files would.
  if (report.matched.empty())
    throw UsageError(fmt::format("no row of {} ({} rows) matches a row of {} ({} rows): they ran other inputs or "
                                 "algorithms; compare results of the same runs",
                                 o.base, base.size(), o.next, next.size()));
  std::cout << format_comparison(report, o.base, o.next, threshold);
  if (report.regressions()) {
    std::cerr << "sortbench: " << report.regressions()
              << " rows regressed (SLOWER beyond the threshold and the noise, or FAILED)\n";
    return static_cast<int>(ExitCode::verification_failed);
  }
  return 0;
}

}  // namespace

Command add_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "compare two result files (.json or sweep .jsonl) row by row");
  auto o = std::make_shared<CompareOptions>();
  cmd->add_option("BASE", o->base, "the baseline results")->required();
  cmd->add_option("NEW", o->next, "the results to judge")->required();
  cmd->add_option("--threshold", o->threshold, "smallest relative change that counts, e.g. 5%")
      ->capture_default_str();
  return {cmd, [o] { return run_compare(*o); }};
}

}  // namespace sb::cli
