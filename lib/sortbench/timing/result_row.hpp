// One result: an algorithm on one input, as every placement fills it and every writer reads it
// (docs/schema.md). Measurements are summaries (summary.hpp); facts are details.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/timing/summary.hpp"

namespace sb {

// throttled: every sample was taken below the throttle threshold (clock_collector.hpp), so the
// row has no time.
enum class RowStatus { ok, unsupported, error, verify_failed, throttled };
std::optional<RowStatus> parse_row_status(std::string_view s);
std::string_view to_string(RowStatus s);

struct ResultRow {
  std::string algorithm;
  std::string family;
  Backend backend = Backend::gpu;
  bool stable = false;
  InputRequest requested;
  InputSpec spec;
  KeyFacts realized;
  nlohmann::json source = nlohmann::json::object();  // the input's provenance (InputSource)
  RangeMode range = RangeMode::given;                 // how range-aware algorithms got min/max
  Params params;

  RowStatus status = RowStatus::ok;
  std::string reason;        // why unsupported / the error / the verification failure
  std::string verification;  // "passed", a failure message, or "not run"
  // Timing statistics, keys/s, effective bandwidth 2 * n * element bytes / median and its share
  // of the measured copy bandwidth (GPU rows): summary.hpp.
  Summaries summaries;
  Details details;

  bool timed() const { return summaries.value_or(summary_tag::samples, 0) > 0; }
  double median_ms() const { return summaries.value_or(summary_tag::median_ms, 0); }
};

bool any_failed_verification(const std::vector<ResultRow>& rows);

}  // namespace sb
