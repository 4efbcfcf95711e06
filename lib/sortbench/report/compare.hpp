// Regression comparison of two result files (issue 7; docs/sweep.md "compare"), after
// nvbench's python/scripts/nvbench_compare.py: a difference smaller than the measured noise
// is "same", whatever its size.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sortbench/session/session.hpp"

namespace sb {

// Every result of a `sortbench run --json` document (the results array) or a sweep's JSONL
// (context lines skipped). Throws UsageError naming the file (and line) when it is neither.
std::vector<ResultRow> read_result_file(const std::string& path);

// The identity compare matches on: algorithm, the complete input description and the
// algorithm parameters, e.g. "hp-1 n=1048576 range=1048576 min_val=0 len=1048576 ...".
std::string match_key(const ResultRow& r);

enum class Verdict {
  same,    // within the threshold or within the noise
  faster,
  slower,  // slower beyond both the threshold and the noise: a regression
  failed,  // ok in BASE, not ok (error, verification failure, unsupported) in NEW: a regression
  fixed,   // not ok in BASE, ok in NEW
  no_time, // neither has a time (e.g. unsupported in both)
  throttled, // either row's samples were all throttled: no judgement, rerun on a cool GPU
};
std::string_view to_string(Verdict v);

struct Comparison {
  std::string key;
  const ResultRow* base = nullptr;
  const ResultRow* next = nullptr;
  double ratio = 0;  // new median / base median
  double noise = 0;  // the relative noise band the difference is judged against
  Verdict verdict = Verdict::no_time;
  // Beside the time: the measured peak device memory (new / base; 0 where either lacks it)
  // and the samples each discarded for throttling.
  double memory_ratio = 0;
};

struct CompareReport {
  std::vector<Comparison> matched;
  std::vector<const ResultRow*> only_base, only_new;
  std::size_t regressions() const;
};

// new peak bytes / base peak bytes, 0 where either row has no measured peak.
double memory_ratio(const ResultRow& base, const ResultRow& next);

// threshold: relative (0.05 = 5 %). The noise band of a pair is the smaller of the two
// relative standard deviations, as nvbench_compare.py does; a pair is slower (or faster)
// only when |ratio - 1| exceeds both the threshold and that band.
CompareReport compare_results(const std::vector<ResultRow>& base, const std::vector<ResultRow>& next,
                              double threshold);
Verdict judge(const ResultRow& base, const ResultRow& next, double threshold, double* ratio, double* noise);

// "5%" or "5": a percentage, returned as a fraction (0.05).
double parse_threshold(const std::string& text);  // throws UsageError

std::string format_comparison(const CompareReport& report, const std::string& base_name,
                              const std::string& new_name, double threshold);

}  // namespace sb
