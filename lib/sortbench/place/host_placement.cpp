// The input in host memory (placement.hpp): CPU algorithms sort a copy of it, timed with the
// steady clock (harness.hpp), and the verifier checks the output on the host. Also the row
// helpers every placement shares.
#include <algorithm>

#include <fmt/format.h>

#include "sortbench/core/pinned_ring.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/place/placement.hpp"

namespace sb {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

void log_phase(PhaseLog* phases, const char* phase, double t0_s) {
  if (phases) phases->emplace_back(phase, (steady_now_s() - t0_s) * 1e3);
}

void drain_columns(OutputSink& sink, const HostColumns& columns, bool with_values) {
  using Column = OutputSink::Column;
  for (Column c : {Column::keys, Column::values}) {
    if (!sink.wants(c) || (c == Column::values && !with_values)) continue;
    const std::vector<unsigned char>& column = c == Column::keys ? columns.keys : columns.vals;
    for (std::uint64_t first = 0; first < column.size(); first += PinnedRing::kSlotBytes)
      sink.write(c, first, column.data() + first, std::min(PinnedRing::kSlotBytes, column.size() - first));
  }
}

void finish_timing(ResultRow& row, const std::vector<double>& samples_ms, double copy_bandwidth_gbs) {
  namespace tag = summary_tag;
  if (samples_ms.empty()) return;  // every sample throttled: no time to report
  const TimingStats t = summarize_times(samples_ms);
  Summaries& s = row.summaries;
  s.set(tag::samples, static_cast<double>(t.samples));
  s.set(tag::min_ms, t.min_ms);
  s.set(tag::median_ms, t.median_ms);
  s.set(tag::mean_ms, t.mean_ms);
  s.set(tag::max_ms, t.max_ms);
  s.set(tag::stddev_ms, t.stddev_ms);
  s.set(tag::rel_stddev, t.rel_stddev);
  const double seconds = t.median_ms * 1e-3;
  if (seconds > 0) {
    const double gbs = 2.0 * static_cast<double>(row.spec.n * row.spec.element_bytes()) / seconds / 1e9;
    s.set(tag::keys_per_s, static_cast<double>(row.spec.n) / seconds);
    s.set(tag::bandwidth_gbs, gbs);
    if (row.backend == Backend::gpu && copy_bandwidth_gbs > 0)
      s.set(tag::bandwidth_pct, 100.0 * gbs / copy_bandwidth_gbs);
  }
}

void note_discovery(ResultRow& row, const std::vector<double>& discovery_ms) {
  if (!discovery_ms.empty()) row.details.emplace_back("discovery_ms", fmt::format("{:.4f}", median_of(discovery_ms)));
}

void apply_verification(ResultRow& row, const VerifyReport& v) {
  row.verification = v.message;
  if (!v.ok) {
    row.status = RowStatus::verify_failed;
    row.reason = v.message;
  }
}

HostPlacement::HostPlacement(const InputSource& source, PhaseLog* phases)
    : shape_(source.spec().shape()), values_are_data_(source.values_are_data()), phases_(phases) {
  const double t0 = steady_now_s();
  input_.keys.resize(shape_.key_column_bytes());
  input_.vals.resize(shape_.payload_column_bytes());
  source.fill_host(input_.keys.data(), input_.vals.empty() ? nullptr : input_.vals.data());
  log_phase(phases_, "read", t0);
}

HostPlacement::HostPlacement(const InputSource& source, HostColumns columns)
    : shape_(source.spec().shape()), values_are_data_(source.values_are_data()), input_(std::move(columns)) {}

KeyFacts HostPlacement::measure_facts(bool count_distinct) const {
  const double t0 = steady_now_s();
  KeyFacts facts;
  if (count_distinct) {
    InputSpec spec;
    spec.n = shape_.n;
    spec.key = shape_.key;
    facts = input_stats_host(spec, input_.keys.data());
  } else {
    // Min and max in one pass; the distinct count stays unknown (0), as on the GPU.
    facts.n = shape_.n;
    apply_key_facts(facts, shape_.key, discover_key_facts_host(shape_.key, input_.keys.data(), shape_.n));
  }
  log_phase(phases_, "analyze", t0);
  return facts;
}

void HostPlacement::run(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings,
                        ResultRow& row) {
  output_.keys.assign(input_.keys.size(), 0);
  output_.vals.assign(input_.vals.size(), 0);
  const void* in_vals = input_.vals.empty() ? nullptr : input_.vals.data();
  const SortTiming timing = time_host(a, problem, input_.keys.data(), in_vals, output_.keys.data(),
                                      output_.vals.empty() ? nullptr : output_.vals.data(), settings);
  finish_timing(row, timing.samples_ms, 0);
  note_discovery(row, timing.discovery_ms);
  if (phases_) phases_->emplace_back("sort", timing.samples_ms.empty() ? 0.0 : timing.samples_ms.back());
  const double t0 = steady_now_s();
  VerifyInput v;
  v.key = problem.shape.key;
  v.payload = problem.shape.payload;
  v.n = problem.n();
  v.keys_in = input_.keys.data();
  v.keys_out = output_.keys.data();
  v.vals_out = in_vals ? output_.vals.data() : nullptr;
  if (values_are_data_ && in_vals) v.vals_in = in_vals;
  v.check_stable = a.stable;
  apply_verification(row, verify_host(v));
  log_phase(phases_, "verify", t0);
}

void HostPlacement::drain(OutputSink& sink) const { drain_columns(sink, output_, shape_.payload != Payload::none); }

}  // namespace sb
