// One benchmark run: generate an input once, then for each algorithm check support,
// allocate its workspace, time it, verify its output and produce a ResultRow. The app and
// the sweep both drive this; printers and writers only read its rows.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/measure/harness.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/measure/nvml.hpp"
#include "sortbench/measure/summary.hpp"

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

struct RunPlan {
  InputRequest request;  // the generator's parameters, when source is null
  std::shared_ptr<const InputSource> source;  // null: generated from request
  std::optional<RangeMode> range;             // absent: the source's default
  std::vector<const Algorithm*> algorithms;
  MeasureSettings settings;
  Params params;
  double copy_bandwidth_gbs = 0;  // for bandwidth_pct; 0 leaves it unset
  // The GPU's NVML device (clocks, throttling, energy); null: run_benchmark opens its own, and
  // runs without those where NVML is absent.
  std::shared_ptr<const NvmlDevice> nvml;
  std::vector<int> devices;       // distributed algorithms: one rank per listed GPU
  int process_rank = -1;          // one process per GPU: this process's rank (devices[0]) ...
  int process_world = 0;          // ... of this many
  std::string rendezvous;         // ... meeting in this directory
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void input_ready(const InputSpec&, const KeyFacts&) {}
  virtual void row_started(const Algorithm&) {}
  virtual void row_done(const ResultRow&) {}
};

// Throws UsageError for bad parameters, Error(no_device) when GPU algorithms are selected
// and no device answers, Error(device_memory) when the input does not fit, Error(cuda)
// when the CUDA context becomes unusable. A failing algorithm becomes a row, not a throw.
std::vector<ResultRow> run_benchmark(const RunPlan& plan, RunObserver* observer = nullptr);

// "--energy reads NVML's total-energy counter, but NVML is absent here; drop --energy"
std::string energy_unavailable_message(const std::string& why);

bool any_failed_verification(const std::vector<ResultRow>& rows);

}  // namespace sb
