// A result row's measurements as summaries (after nvbench's summaries): the harness and the
// collectors set (tag, value) pairs, and the console, JSON and CSV writers iterate one list of
// definitions, so a new measurement is one definition and one set(), not an edit of each writer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb {

struct SummaryDef {
  std::string_view tag;     // the JSON path inside a result row, e.g. "time_ms.median"
  std::string_view column;  // the CSV column, e.g. "median_ms"
  std::string_view unit;    // "ms", "keys/s", "GB/s", "%", "count"
  bool integer = false;     // written as an integer
  // The console table's column: its header (empty: not in the table), the factor from the
  // value to what it shows, and the digits after the point.
  std::string_view header = {};
  double scale = 1;
  int precision = 0;
  bool sparse = false;  // the column is shown only when some row holds the value
};

// Every summary a row may hold, in the order the writers put them.
const std::vector<SummaryDef>& summary_defs();

class Summaries {
 public:
  void set(std::string_view tag, double value);
  std::optional<double> get(std::string_view tag) const;
  double value_or(std::string_view tag, double fallback) const { return get(tag).value_or(fallback); }
  bool empty() const { return values_.empty(); }

 private:
  std::vector<std::pair<std::string, double>> values_;
};

// The tags the harness sets for every timed row.
namespace summary_tag {
inline constexpr std::string_view samples = "time_ms.samples";
inline constexpr std::string_view min_ms = "time_ms.min";
inline constexpr std::string_view median_ms = "time_ms.median";
inline constexpr std::string_view mean_ms = "time_ms.mean";
inline constexpr std::string_view max_ms = "time_ms.max";
inline constexpr std::string_view stddev_ms = "time_ms.stddev";
inline constexpr std::string_view rel_stddev = "time_ms.rel_stddev";
inline constexpr std::string_view keys_per_s = "keys_per_s";
inline constexpr std::string_view bandwidth_gbs = "bandwidth_gbs";
inline constexpr std::string_view bandwidth_pct = "bandwidth_pct_of_copy";
// The clock collector's (clock_collector.hpp), GPU rows where NVML answers.
inline constexpr std::string_view sm_clock_min = "clocks.sm_mhz.min";
inline constexpr std::string_view sm_clock_median = "clocks.sm_mhz.median";
inline constexpr std::string_view mem_clock_min = "clocks.mem_mhz.min";
inline constexpr std::string_view mem_clock_median = "clocks.mem_mhz.median";
inline constexpr std::string_view temperature_max = "clocks.temperature_c.max";
inline constexpr std::string_view power_median = "clocks.power_w.median";
inline constexpr std::string_view throttled_samples = "clocks.throttled_samples";
inline constexpr std::string_view clock_event_reasons = "clocks.event_reasons";
// The memory account's (memory_collector.hpp), GPU rows.
inline constexpr std::string_view workspace_bytes = "memory.workspace_bytes";
inline constexpr std::string_view buffer_bytes = "memory.buffer_bytes";
inline constexpr std::string_view peak_bytes = "memory.peak_bytes";
inline constexpr std::string_view bytes_per_key = "memory.bytes_per_key";
// The energy batch's (energy.hpp), GPU rows with --energy.
inline constexpr std::string_view joules_per_sort = "energy.joules_per_sort";
inline constexpr std::string_view keys_per_joule = "energy.keys_per_joule";
inline constexpr std::string_view energy_power = "energy.power_w";
inline constexpr std::string_view idle_power = "energy.idle_power_w";
inline constexpr std::string_view energy_batch_sorts = "energy.batch_sorts";
inline constexpr std::string_view energy_batch_s = "energy.batch_s";
}  // namespace summary_tag

}  // namespace sb
