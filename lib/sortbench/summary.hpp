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
}  // namespace summary_tag

}  // namespace sb
