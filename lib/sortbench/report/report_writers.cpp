// CSV form of the schema and crash-safe file writing (written aside and renamed; issue 37: the
// temporary is registered so an interrupt removes it).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <type_traits>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "sortbench/report/report.hpp"

namespace sb {

namespace {

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

template <typename T>
std::string opt_text(const std::optional<T>& v) {
  if constexpr (std::is_same_v<T, wide_t>) return v ? wide_text(*v) : std::string();
  else return v ? fmt::format("{}", *v) : std::string();
}

std::string details_text(const Details& d) {
  std::string out;
  for (const auto& [k, v] : d) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

std::string params_text(const Params& p) {
  std::string out;
  for (const auto& [k, v] : p) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

}  // namespace

std::vector<std::string> csv_header() {
  std::vector<std::string> header{"algorithm",      "family",        "backend",         "stable",          "status",
          "reason",         "verification",  "n",               "min_val",         "max_val",
          "range",          "len",           "delta",           "sigma",           "dist",
          "key",            "payload",       "seed",            "requested_n",     "requested_delta",
          "requested_sigma", "requested_len", "requested_min_val", "requested_max_val", "realized_min",
          "realized_max",   "realized_len",  "params",          "details",         "range_mode",
          "input_source",   "realized_sortedness"};
  // The summaries' columns follow the fixed ones, in summary_defs() order.
  for (const SummaryDef& d : summary_defs()) header.emplace_back(d.column);
  return header;
}

std::vector<std::string> csv_fields(const ResultRow& r) {
  const InputSpec& s = r.spec;
  const InputRequest& q = r.requested;
  std::vector<std::string> fields{r.algorithm,
          r.family,
          std::string(to_string(r.backend)),
          r.stable ? "true" : "false",
          std::string(to_string(r.status)),
          r.reason,
          r.verification,
          fmt::format("{}", s.n),
          wide_text(s.min_val),
          wide_text(s.max_val),
          wide_text(s.range),
          fmt::format("{}", s.len),
          fmt::format("{}", s.delta()),
          fmt::format("{}", s.sigma()),
          std::string(to_string(s.dist)),
          std::string(to_string(s.key)),
          std::string(to_string(s.payload)),
          fmt::format("{}", s.seed),
          opt_text(q.n),
          opt_text(q.delta),
          opt_text(q.sigma),
          opt_text(q.len),
          opt_text(q.min_val),
          opt_text(q.max_val),
          wide_text(r.realized.min),
          wide_text(r.realized.max),
          fmt::format("{}", r.realized.len),
          params_text(r.params),
          details_text(r.details),
          std::string(to_string(r.range)),
          r.source.value("kind", "generator") == "file" ? r.source.value("path", "") : std::string("generator"),
          r.realized.sortedness >= 0 ? fmt::format("{}", r.realized.sortedness) : std::string()};
  for (const SummaryDef& d : summary_defs()) {
    const auto v = r.summaries.get(d.tag);
    fields.push_back(!v ? std::string() : d.integer ? fmt::format("{}", static_cast<std::uint64_t>(*v))
                                                    : fmt::format("{}", *v));
  }
  return fields;
}

std::string to_csv(const std::vector<ResultRow>& rows) {
  auto line = [](const std::vector<std::string>& fields) {
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_quote(fields[i]);
    return out + "\n";
  };
  std::string out = line(csv_header());
  for (const auto& r : rows) out += line(csv_fields(r));
  return out;
}

std::vector<std::string> parse_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  fields.push_back(cur);
  return fields;
}

void check_writable(const std::string& path) {
  const std::string probe = temp_path_for(path);
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (!f)
    throw Error(ExitCode::output, fmt::format("cannot write '{}': {}; choose a writable path", path,
                                              std::strerror(errno)));
  std::fclose(f);
  std::remove(probe.c_str());
}

void write_file_atomically(const std::string& path, const std::string& content) {
  // Registered while it exists, so an interrupt mid-write leaves no temporary (issue 37).
  TempOutput temp(path);
  {
    std::ofstream out(temp.path(), std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error(ExitCode::output, fmt::format("cannot write '{}': {}; choose a writable path", path,
                                                std::strerror(errno)));
    out << content;
    out.flush();
    if (!out)
      throw Error(ExitCode::output, fmt::format("writing '{}' failed (disk full?); free space and rerun", path));
  }
  temp.commit();
}

}  // namespace sb
