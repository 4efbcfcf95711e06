#include "sortbench/timing/summary.hpp"

#include <algorithm>
#include <stdexcept>

namespace sb {

const std::vector<SummaryDef>& summary_defs() {
  namespace t = summary_tag;
  static const std::vector<SummaryDef> defs{
      {t::samples, "samples", "count", true},
      {t::min_ms, "min_ms", "ms", false, "min ms", 1, 4},
      {t::median_ms, "median_ms", "ms", false, "median ms", 1, 4},
      {t::mean_ms, "mean_ms", "ms"},
      {t::max_ms, "max_ms", "ms"},
      {t::stddev_ms, "stddev_ms", "ms"},
      {t::rel_stddev, "rel_stddev", "fraction", false, "rel sd %", 100, 2},
      {t::keys_per_s, "keys_per_s", "keys/s", false, "Gkeys/s", 1e-9, 3},
      {t::bandwidth_gbs, "bandwidth_gbs", "GB/s", false, "GB/s", 1, 1},
      {t::bandwidth_pct, "bandwidth_pct_of_copy", "%", false, "%copy", 1, 1},
      {t::sm_clock_min, "sm_clock_min_mhz", "MHz", true},
      {t::sm_clock_median, "sm_clock_median_mhz", "MHz", true, "SM MHz", 1, 0, true},
      {t::mem_clock_min, "mem_clock_min_mhz", "MHz", true},
      {t::mem_clock_median, "mem_clock_median_mhz", "MHz", true},
      {t::temperature_max, "temperature_max_c", "C", true},
      {t::power_median, "power_median_w", "W", false},
      {t::throttled_samples, "throttled_samples", "count", true, "throttled", 1, 0, true},
      {t::clock_event_reasons, "clock_event_reasons", "mask", true},
      {t::workspace_bytes, "workspace_bytes", "bytes", true},
      {t::buffer_bytes, "buffer_bytes", "bytes", true},
      {t::peak_bytes, "peak_bytes", "bytes", true},
      {t::bytes_per_key, "bytes_per_key", "bytes/key", false, "B/key", 1, 1, true},
      {t::joules_per_sort, "joules_per_sort", "J", false},
      {t::keys_per_joule, "keys_per_joule", "keys/J", false, "Mkeys/J", 1e-6, 2, true},
      {t::energy_power, "energy_power_w", "W", false, "W", 1, 0, true},
      {t::idle_power, "idle_power_w", "W", false, "idle W", 1, 0, true},
      {t::energy_batch_sorts, "energy_batch_sorts", "count", true},
      {t::energy_batch_s, "energy_batch_s", "s", false},
  };
  return defs;
}

void Summaries::set(std::string_view tag, double value) {
  const auto& defs = summary_defs();
  if (std::none_of(defs.begin(), defs.end(), [&](const SummaryDef& d) { return d.tag == tag; }))
    throw std::logic_error("summary '" + std::string(tag) + "' has no definition in summary_defs()");
  for (auto& [t, v] : values_)
    if (t == tag) {
      v = value;
      return;
    }
  values_.emplace_back(std::string(tag), value);
}

std::optional<double> Summaries::get(std::string_view tag) const {
  for (const auto& [t, v] : values_)
    if (t == tag) return v;
  return std::nullopt;
}

}  // namespace sb
