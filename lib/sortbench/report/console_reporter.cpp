// The console table: one line per result, aligned columns, reasons in full below it.
#include <algorithm>

#include <fmt/format.h>

#include "sortbench/device/device_info.hpp"
#include "sortbench/report/report.hpp"

namespace sb {

std::string format_input_summary(const InputSpec& s, const KeyFacts& z) {
  return fmt::format(
      "input: n={} key={} payload={} dist={} seed={}\n"
      "  requested: minVal={} maxVal={} range={} len={} delta={:.6g} sigma={:.6g}\n"
      "  realized:  min={} max={} len={}\n",
      s.n, to_string(s.key), to_string(s.payload), to_string(s.dist), s.seed, wide_text(s.min_val),
      wide_text(s.max_val), wide_text(s.range), s.len, s.delta(), s.sigma(), wide_text(z.min), wide_text(z.max), z.len);
}

std::string format_measured_summary(const InputSpec& s, const KeyFacts& z, RangeMode range) {
  const double span = static_cast<double>(z.max - z.min) + 1.0;
  return fmt::format(
      "input: n={} key={} payload={}\n"
      "  measured: min={} max={} range={} len={} delta={:.6g} sigma={:.6g} sortedness={:.4f} duplicates={:.4f}\n"
      "  range-aware algorithms: --range {}{}\n",
      s.n, to_string(s.key), to_string(s.payload), wide_text(z.min), wide_text(z.max), wide_text(z.max - z.min + 1),
      z.len, z.n ? z.n / span : 0.0, z.len ? span / z.len : 0.0, z.sortedness < 0 ? 1.0 : z.sortedness,
      z.n ? 1.0 - static_cast<double>(z.len) / z.n : 0.0, to_string(range),
      range == RangeMode::measured ? " (min/max discovered inside each timed region)"
                                   : " (min/max handed over, measured outside the timed region)");
}

std::string format_context_line(const RunContext& c) {
  if (!c.gpu) return fmt::format("host: {} ({} threads), no GPU\n", c.host.cpu_model, c.host.cpu_threads);
  const DeviceInfo& d = *c.gpu;
  return fmt::format("gpu: {} ({} SMs, {:.0f} GiB, driver {}, runtime {}), copy bandwidth {:.0f} GB/s\n", d.name,
                     d.sm_count, d.memory_bytes / double(1ull << 30), format_cuda_version(d.driver_version),
                     format_cuda_version(d.runtime_version), d.copy_bandwidth_gbs);
}

std::string format_conditions(const GpuConditions& c) {
  if (!c.nvml) return "  " + nvml_absent_line(c.nvml_absent) + "\n";
  auto on_off = [](const std::optional<bool>& v, const char* on, const char* off) {
    return v ? std::string(*v ? on : off) : std::string("unknown");
  };
  return fmt::format(
      "  clocks (now / max)  SM {} / {} MHz, memory {} / {} MHz\n"
      "  application clocks  {}{}\n"
      "  persistence mode    {}\n"
      "  temperature, power  {} C, {:.0f} W of a {:.0f} W limit{}\n",
      c.sm_clock_mhz, c.sm_clock_max_mhz, c.mem_clock_mhz, c.mem_clock_max_mhz,
      on_off(c.app_clocks_locked, "locked", "at their defaults"),
      c.app_sm_clock_mhz ? fmt::format(" (SM {} MHz)", c.app_sm_clock_mhz) : "",
      on_off(c.persistence_mode, "on", "off"), c.temperature_c, c.power_w, c.power_limit_w,
      c.energy_counter ? ", energy counter present" : ", no energy counter");
}

std::string format_busy_warning(int ordinal, const std::vector<GpuProcess>& busy) {
  if (busy.empty()) return "";
  std::string who;
  for (const GpuProcess& p : busy) who += (who.empty() ? "" : "; ") + describe_process(p);
  return fmt::format("warning: GPU {} is busy with other processes ({}); its timings may be disturbed\n", ordinal,
                     who);
}

std::string format_table(const std::vector<ResultRow>& rows) {
  std::size_t width = 9;
  for (const auto& r : rows) width = std::max(width, r.algorithm.size());
  // The median first: the number a reader looks for; then the other summaries with a column.
  // A sparse column (clocks, memory, energy) only when some row holds its value.
  std::vector<const SummaryDef*> columns;
  auto any_row_has = [&](const SummaryDef& d) {
    return std::any_of(rows.begin(), rows.end(), [&](const ResultRow& r) { return r.summaries.get(d.tag).has_value(); });
  };
  for (const auto& d : summary_defs())
    if (d.tag == summary_tag::median_ms) columns.insert(columns.begin(), &d);
    else if (!d.header.empty() && (!d.sparse || any_row_has(d))) columns.push_back(&d);
  std::string out = fmt::format("{:<{}}  {:>4}", "algorithm", width, "bk");
  for (const SummaryDef* d : columns) out += fmt::format("  {:>10}", d->header);
  out += "  status\n";
  std::vector<std::string> notes;
  for (const auto& r : rows) {
    std::string status = r.status == RowStatus::ok ? "verified" : std::string(to_string(r.status));
    if (r.status != RowStatus::ok) notes.push_back(fmt::format("  {}: {}", r.algorithm, r.reason));
    for (const auto& [k, v] : r.details) status += fmt::format(" {}={}", k, v);
    out += fmt::format("{:<{}}  {:>4}", r.algorithm, width, to_string(r.backend));
    for (const SummaryDef* d : columns) {
      const auto v = r.summaries.get(d->tag);
      out += v ? fmt::format("  {:>10.{}f}", *v * d->scale, d->precision) : fmt::format("  {:>10}", "-");
    }
    out += "  " + status + "\n";
  }
  for (const auto& n : notes) out += n + "\n";
  return out;
}

std::string format_fastest(const std::vector<ResultRow>& rows) {
  const ResultRow* best = nullptr;
  for (const auto& r : rows)
    if (r.status == RowStatus::ok && r.timed() && (!best || r.median_ms() < best->median_ms())) best = &r;
  if (!best) return "fastest: no algorithm was verified\n";
  std::string out = fmt::format("fastest: {} {:.4f} ms", best->algorithm, best->median_ms());
  std::string sep = " \u2014 ";
  for (const char* baseline : {"cub-radix-bits", "cub-radix"})
    for (const auto& r : rows)
      if (r.algorithm == baseline && r.status == RowStatus::ok && r.timed() && &r != best) {
        out += fmt::format("{}{:.1f}\u00d7 {}", sep, r.median_ms() / best->median_ms(), baseline);
        sep = ", ";
      }
  return out + "\n";
}

}  // namespace sb
