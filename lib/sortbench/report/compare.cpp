// sortbench compare: match two result files row by row and judge each time difference
// against the threshold and the measured noise (compare.hpp).
#include "sortbench/report/compare.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sortbench/core/errors.hpp"
#include "sortbench/report/report.hpp"

namespace sb {

using nlohmann::json;

std::vector<ResultRow> read_result_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot be read ({})", path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<ResultRow> rows;
  // A whole document with a results array (sortbench run --json)?
  {
    json doc = json::parse(text, nullptr, false);
    if (!doc.is_discarded() && doc.is_object() && doc.contains("results")) {
      if (!doc.at("results").is_array()) throw UsageError(fmt::format("{}: \"results\" is not a list", path));
      for (std::size_t i = 0; i < doc.at("results").size(); ++i) {
        try {
          rows.push_back(row_from_json(doc.at("results")[i]));
        } catch (const std::exception& e) {
          throw UsageError(fmt::format("{}: results[{}]: {}", path, i, e.what()));
        }
      }
      return rows;
    }
  }
  // Otherwise JSON lines (a sweep output): context lines skipped, a partial last line ignored.
  std::size_t start = 0, line_no = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) break;
    ++line_no;
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw UsageError(fmt::format("{}:{}: neither a result document (with \"results\") nor JSON lines", path, line_no));
    if (j.contains("context") && !j.contains("algorithm")) continue;
    try {
      rows.push_back(row_from_json(j));
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("{}:{}: not a result row: {}", path, line_no, e.what()));
    }
  }
  return rows;
}

std::string match_key(const ResultRow& r) {
  const InputSpec& s = r.spec;
  const std::string kind = r.source.value("kind", "generator");
  if (kind == "array") {
    // A caller's array is the same input when its bytes are: n, dtype and the keys' fingerprint
    // (and the values' where they are data). A row written before arrays had one matches nothing.
    std::string key = fmt::format("{} array={} values={} n={} key={} payload={} range={}", r.algorithm,
                                  r.source.value("fingerprint", fmt::format("none@{}", static_cast<const void*>(&r))),
                                  r.source.value("values_fingerprint", ""), s.n, to_string(s.key),
                                  to_string(s.payload), to_string(r.range));
    for (const auto& [k, v] : r.params) key += fmt::format(" param:{}={}", k, v);
    return key;
  }
  if (kind == "file") {
    // A file is the same input when its content is: the hash, not the path.
    std::string key = fmt::format("{} file={} n={} key={} payload={} range={}", r.algorithm, r.source.value("hash", ""),
                                  s.n, to_string(s.key), to_string(s.payload), to_string(r.range));
    for (const auto& [k, v] : r.params) key += fmt::format(" param:{}={}", k, v);
    return key;
  }
  std::string key = fmt::format("{} n={} min_val={} max_val={} len={} dist={} key={} payload={} seed={}", r.algorithm,
                                s.n, wide_text(s.min_val), wide_text(s.max_val), s.len, to_string(s.dist), to_string(s.key),
                                to_string(s.payload), s.seed);
  if (r.range == RangeMode::measured) key += " range=measured";
  for (const auto& [k, v] : r.params) key += fmt::format(" param:{}={}", k, v);
  return key;
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "SLOWER";
    case Verdict::failed: return "FAILED";
    case Verdict::fixed: return "fixed";
    case Verdict::no_time: return "-";
    case Verdict::throttled: return "throttled";
  }
  return "?";
}

Verdict judge(const ResultRow& base, const ResultRow& next, double threshold, double* ratio, double* noise) {
  const bool base_ok = base.status == RowStatus::ok && base.timed();
  const bool new_ok = next.status == RowStatus::ok && next.timed();
  *ratio = 0;
  *noise = 0;
  if (base.status == RowStatus::throttled || next.status == RowStatus::throttled) return Verdict::throttled;
  if (base_ok && !new_ok) return Verdict::failed;
  if (!base_ok && new_ok) return Verdict::fixed;
  if (!base_ok) return Verdict::no_time;
  if (base.median_ms() <= 0) return Verdict::no_time;
  *ratio = next.median_ms() / base.median_ms();
  *noise = std::min(base.summaries.value_or(summary_tag::rel_stddev, 0),
                    next.summaries.value_or(summary_tag::rel_stddev, 0));
  const double diff = *ratio - 1.0;
  if (std::fabs(diff) <= threshold || std::fabs(diff) <= *noise) return Verdict::same;
  return diff > 0 ? Verdict::slower : Verdict::faster;
}

double memory_ratio(const ResultRow& base, const ResultRow& next) {
  const double b = base.summaries.value_or(summary_tag::peak_bytes, 0);
  const double n = next.summaries.value_or(summary_tag::peak_bytes, 0);
  return b > 0 && n > 0 ? n / b : 0;
}

std::size_t CompareReport::regressions() const {
  return static_cast<std::size_t>(std::count_if(matched.begin(), matched.end(), [](const Comparison& c) {
    return c.verdict == Verdict::slower || c.verdict == Verdict::failed;
  }));
}

CompareReport compare_results(const std::vector<ResultRow>& base, const std::vector<ResultRow>& next,
                              double threshold) {
  // A key seen twice in one file (e.g. a rerun appended): the last one counts.
  std::map<std::string, const ResultRow*> base_by_key, new_by_key;
  std::vector<std::string> order;
  for (const auto& r : base) {
    const std::string k = match_key(r);
    if (!base_by_key.count(k)) order.push_back(k);
    base_by_key[k] = &r;
  }
  for (const auto& r : next) new_by_key[match_key(r)] = &r;
  CompareReport report;
  for (const auto& k : order) {
    const ResultRow* b = base_by_key.at(k);
    auto it = new_by_key.find(k);
    if (it == new_by_key.end()) {
      report.only_base.push_back(b);
      continue;
    }
    Comparison c;
    c.key = k;
    c.base = b;
    c.next = it->second;
    c.verdict = judge(*b, *it->second, threshold, &c.ratio, &c.noise);
    c.memory_ratio = memory_ratio(*b, *it->second);
    report.matched.push_back(c);
  }
  std::vector<std::string> seen_new;
  for (const auto& r : next) {
    const std::string k = match_key(r);
    if (!base_by_key.count(k) && std::find(seen_new.begin(), seen_new.end(), k) == seen_new.end()) {
      seen_new.push_back(k);
      report.only_new.push_back(new_by_key.at(k));
    }
  }
  return report;
}

double parse_threshold(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  try {
    std::size_t used = 0;
    const double pct = std::stod(t, &used);
    if (used == t.size() && pct >= 0 && pct < 1000) return pct / 100.0;
  } catch (const std::logic_error&) {
  }
  throw UsageError(fmt::format("--threshold '{}' is not a percentage; give e.g. --threshold 5%", text));
}

namespace {

std::string input_text(const ResultRow& r) {
  if (r.source.value("kind", "generator") == "array")
    return fmt::format("array n={} {} {}", r.spec.n, to_string(r.spec.key),
                       r.source.value("fingerprint", "(no fingerprint)").substr(0, 15));
  if (r.source.value("kind", "generator") == "file")
    return fmt::format("{} n={} {} range {}", r.source.value("path", ""), r.spec.n, to_string(r.spec.key),
                       to_string(r.range));
  std::string s = fmt::format("n={} delta={:.4g} sigma={:.4g} {} {}", r.spec.n, r.spec.delta(), r.spec.sigma(),
                              to_string(r.spec.key), to_string(r.spec.dist));
  if (r.spec.payload != Payload::none) s += fmt::format(" +{}", to_string(r.spec.payload));
  for (const auto& [k, v] : r.params) s += fmt::format(" {}={}", k, v);
  return s;
}

std::string time_text(const ResultRow& r) {
  if (r.status == RowStatus::ok && r.timed()) return fmt::format("{:.4f}", r.median_ms());
  return std::string(to_string(r.status));
}

// "12.0 -> 16.0 (1.333)": bytes per key of the measured peak, base to new.
std::string memory_text(const Comparison& c) {
  const auto b = c.base->summaries.get(summary_tag::bytes_per_key);
  const auto n = c.next->summaries.get(summary_tag::bytes_per_key);
  if (!b && !n) return "-";
  auto one = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : std::string("-"); };
  return fmt::format("{} -> {}{}", one(b), one(n), c.memory_ratio > 0 ? fmt::format(" ({:.3f})", c.memory_ratio) : "");
}

// "0 -> 3": samples discarded for throttling, base to new.
std::string throttle_text(const Comparison& c) {
  const auto b = c.base->summaries.get(summary_tag::throttled_samples);
  const auto n = c.next->summaries.get(summary_tag::throttled_samples);
  if (!b && !n) return "-";
  auto one = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v) : std::string("-"); };
  return one(b) + " -> " + one(n);
}

}  // namespace

std::string format_comparison(const CompareReport& report, const std::string& base_name, const std::string& new_name,
                              double threshold) {
  std::size_t aw = 9, iw = 5;
  for (const auto& c : report.matched) aw = std::max(aw, c.base->algorithm.size()), iw = std::max(iw, input_text(*c.base).size());
  std::string out = fmt::format("base: {}\nnew:  {}\nthreshold {:.1f}%; a difference within the smaller measured "
                                "noise of the pair is \"same\"\n\n",
                                base_name, new_name, threshold * 100);
  std::size_t mw = 5, tw = 9;
  for (const auto& c : report.matched) mw = std::max(mw, memory_text(c).size()), tw = std::max(tw, throttle_text(c).size());
  out += fmt::format("{:<{}}  {:<{}}  {:>12}  {:>12}  {:>7}  {:>7}  {:<{}}  {:<{}}  {}\n", "algorithm", aw, "input",
                     iw, "base ms", "new ms", "ratio", "noise", "B/key", mw, "throttled", tw, "verdict");
  std::map<Verdict, std::size_t> counts;
  for (const auto& c : report.matched) {
    ++counts[c.verdict];
    out += fmt::format("{:<{}}  {:<{}}  {:>12}  {:>12}  {:>7}  {:>7}  {:<{}}  {:<{}}  {}\n", c.base->algorithm, aw,
                       input_text(*c.base), iw, time_text(*c.base), time_text(*c.next),
                       c.ratio > 0 ? fmt::format("{:.3f}", c.ratio) : "-",
                       c.ratio > 0 ? fmt::format("{:.2f}%", c.noise * 100) : "-", memory_text(c), mw,
                       throttle_text(c), tw, to_string(c.verdict));
  }
  auto list_only = [&](const std::vector<const ResultRow*>& rows, const std::string& name) {
    if (rows.empty()) return;
    out += fmt::format("\nonly in {} ({} rows, not compared):\n", name, rows.size());
    for (const ResultRow* r : rows) out += fmt::format("  {}  {}\n", r->algorithm, input_text(*r));
  };
  list_only(report.only_base, base_name);
  list_only(report.only_new, new_name);
  out += fmt::format("\n{} matched: {} same, {} faster, {} slower, {} failed, {} fixed, {} throttled, {} without "
                     "times; {} only in base, {} only in new\n",
                     report.matched.size(), counts[Verdict::same], counts[Verdict::faster], counts[Verdict::slower],
                     counts[Verdict::failed], counts[Verdict::fixed], counts[Verdict::throttled],
                     counts[Verdict::no_time], report.only_base.size(), report.only_new.size());
  return out;
}

}  // namespace sb
