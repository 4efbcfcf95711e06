// The one output schema (docs/schema.md): a context block and one result object per
// (input, algorithm). Writers (JSON, CSV) and the console table read the same rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sortbench/session/session.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/device/nvml.hpp"

namespace sb {

inline constexpr int kSchemaVersion = 1;

struct HostInfo {
  std::string hostname;
  std::string cpu_model;
  int cpu_threads = 0;
};
HostInfo query_host();
std::string utc_now_iso8601();

struct RunContext {
  std::string sortbench_version;
  std::string git_commit;
  std::string date_utc;
  HostInfo host;
  std::optional<DeviceInfo> gpu;  // absent for CPU-only runs
  std::optional<GpuConditions> conditions;  // NVML's view at the start (GPU runs)
  std::vector<GpuProcess> busy;             // other processes busy on the GPU at the start
  std::string command_line;
  MeasureSettings settings;
  // The host link's measured rates, where the input streamed through the GPU (issue 37).
  std::optional<LinkRates> link;
};
// Fills version, commit, date and host; the caller adds gpu and command line.
RunContext make_context();

nlohmann::json to_json(const RunContext& c);
nlohmann::json to_json(const ResultRow& r);
// A row's (or a sort's) details as one JSON object of strings.
nlohmann::json details_json(const Details& details);
// Reads a row back (for compare and tests); throws std::runtime_error on a malformed row.
ResultRow row_from_json(const nlohmann::json& j);

nlohmann::json make_document(const RunContext& c, const std::vector<ResultRow>& rows);

// CSV: one header line, one flat line per row, units in the column names.
std::vector<std::string> csv_header();
std::vector<std::string> csv_fields(const ResultRow& r);
std::string to_csv(const std::vector<ResultRow>& rows);
// Splits one CSV line written by to_csv (quoted fields allowed).
std::vector<std::string> parse_csv_line(const std::string& line);

// Throws Error(output) when the path's file cannot be created; leaves nothing behind.
void check_writable(const std::string& path);
// Writes to a temporary file beside the target and renames it over the target, so an
// interrupted run never leaves a half-written file. Throws Error(output).
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace sb

namespace sb {

// Console printers (read rows, never measure).
std::string format_input_summary(const InputSpec& spec, const KeyFacts& stats);
std::string format_table(const std::vector<ResultRow>& rows);
// A file's measured statistics and the range mode (run --input).
std::string format_measured_summary(const InputSpec& spec, const KeyFacts& stats, RangeMode range);
// "fastest: hp-hybrid 0.50 ms — 2.1× cub-radix-bits, 2.9× cub-radix" over the verified rows,
// or a line saying none was verified.
std::string format_fastest(const std::vector<ResultRow>& rows);
std::string format_context_line(const RunContext& c);
// info's lines on clocks, application clocks, persistence mode, temperature and power, or the
// one line saying NVML is absent.
std::string format_conditions(const GpuConditions& c);
// "warning: GPU 0 is busy with other processes (...); its timings may be disturbed", or "".
std::string format_busy_warning(int ordinal, const std::vector<GpuProcess>& busy);

}  // namespace sb
