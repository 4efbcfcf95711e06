// The sweep's JSONL output, resume bookkeeping and the sweep loop (sweep.hpp).
#include "sortbench/experiment/sweep.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {

using nlohmann::json;

std::string result_key(std::string_view row_key, std::string_view algorithm) {
  return fmt::format("{} | {}", row_key, algorithm);
}

SweepFile read_sweep_file(const std::string& path, bool truncate_partial) {
  SweepFile f;
  std::ifstream in(path, std::ios::binary);
  if (!in) return f;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  in.close();
  std::size_t start = 0, line_no = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      // The line in flight when the writer died: not a result.
      f.dropped_bytes = text.size() - start;
      if (truncate_partial && ::truncate(path.c_str(), static_cast<off_t>(start)) != 0)
        throw Error(ExitCode::output, fmt::format("{}: cannot cut off the partial last line ({})", path,
                                                  std::strerror(errno)));
      break;
    }
    ++line_no;
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      throw UsageError(fmt::format("{}:{}: not a JSON line ({}); is this a sweep output?", path, line_no, e.what()));
    }
    if (j.contains("context")) {
      f.has_context = true;
      if (j.contains("sweep") && j.at("sweep").is_object() && j.at("sweep").contains("name") &&
          j.at("sweep").at("name").is_string())
        f.sweep_name = j.at("sweep").at("name").get<std::string>();
      continue;
    }
    if (!j.contains("row_key") || !j.contains("algorithm") || !j.at("row_key").is_string())
      throw UsageError(fmt::format("{}:{}: a line without row_key and algorithm; is this a sweep output?", path,
                                   line_no));
    f.done.insert(result_key(j.at("row_key").get<std::string>(), j.at("algorithm").get<std::string>()));
    ++f.results;
  }
  return f;
}

JsonlAppender::JsonlAppender(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(ExitCode::output, fmt::format("cannot open {} for appending ({}); check the directory exists and is "
                                              "writable",
                                              path, std::strerror(errno)));
}

JsonlAppender::~JsonlAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonlAppender::append(const json& line) {
  const std::string text = line.dump() + "\n";
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ExitCode::output, fmt::format("cannot write {} ({})", path_, std::strerror(errno)));
    off += static_cast<std::size_t>(n);
  }
}

json sweep_context_line(const RunContext& context, const SweepSpec& spec, Shard shard) {
  return {{"schema_version", kSchemaVersion},
          {"context", to_json(context)},
          {"sweep",
           {{"spec", spec.path},
            {"name", spec.name},
            {"regenerates", spec.regenerates},
            {"shard", fmt::format("{}/{}", shard.index, shard.count)},
            {"rows", spec.rows.size()}}}};
}

json sweep_result_line(const SweepRow& row, const ResultRow& result) {
  json j = to_json(result);
  j["row_key"] = row.key;
  j["row_index"] = row.index;
  return j;
}

namespace {

// What run_benchmark would have recorded, for rows it never sees: patterns not registered
// in this build, and inputs that do not fit in GPU memory.
ResultRow unsupported_row(const SweepRow& row, const std::string& algorithm, const Algorithm* a, Backend backend,
                          const std::string& reason) {
  ResultRow r;
  r.algorithm = algorithm;
  r.family = a ? a->family : "";
  r.backend = a ? a->backend : backend;
  r.stable = a && a->stable;
  r.requested = row.request;
  r.spec = derive_input_spec(row.request);
  if (a)
    for (const auto& name : a->params)
      if (auto it = row.params.find(name); it != row.params.end()) r.params.insert(*it);
  r.status = RowStatus::unsupported;
  r.reason = reason;
  r.verification = "not run";
  return r;
}

class RowWriter : public RowSink {
 public:
  RowWriter(const SweepRow& row, JsonlAppender& out, SweepObserver* observer, std::size_t& written)
      : row_(row), out_(out), observer_(observer), written_(written) {}
  void row_started(const Algorithm& a) override {
    if (observer_) observer_->result_started(row_, a.name);
  }
  void row_done(const ResultRow& r) override {
    out_.append(sweep_result_line(row_, r));
    ++written_;
    finished.insert(r.algorithm);
    if (observer_) observer_->result_done(row_, r);
  }
  std::set<std::string> finished;

 private:
  const SweepRow& row_;
  JsonlAppender& out_;
  SweepObserver* observer_;
  std::size_t& written_;
};

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepRunOptions& options, const std::set<std::string>& done,
                       JsonlAppender& out, SweepObserver* observer) {
  const auto rows = shard_rows(spec, options.shard);
  std::size_t total = 0, already = 0;
  for (const SweepRow* row : rows) {
    for (const Algorithm* a : spec.algorithms) ++total, already += done.count(result_key(row->key, a->name));
    for (const auto& p : spec.unregistered) ++total, already += done.count(result_key(row->key, p));
  }
  if (observer) observer->sweep_started(total, already);
  SweepOutcome outcome;
  outcome.remaining = total - already;
  const auto start = std::chrono::steady_clock::now();
  for (const SweepRow* row : rows) {
    std::vector<const Algorithm*> pending;
    for (const Algorithm* a : spec.algorithms)
      if (!done.count(result_key(row->key, a->name))) pending.push_back(a);
    std::vector<std::string> pending_patterns;
    for (const auto& p : spec.unregistered)
      if (!done.count(result_key(row->key, p))) pending_patterns.push_back(p);
    if (pending.empty() && pending_patterns.empty()) continue;
    if (options.stop_after_s) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed >= *options.stop_after_s) {
        outcome.stopped_on_time = true;
        return outcome;
      }
    }
    const std::size_t before = outcome.written;
    for (const auto& p : pending_patterns) {
      if (observer) observer->result_started(*row, p);
      const ResultRow r = unsupported_row(*row, p, nullptr, spec.backend,
                                          fmt::format("not registered in this build (no algorithm matches '{}')", p));
      out.append(sweep_result_line(*row, r));
      ++outcome.written;
      if (observer) observer->result_done(*row, r);
    }
    if (!pending.empty()) {
      RunPlan plan;
      plan.request = row->request;
      plan.algorithms = pending;
      plan.settings = spec.settings;
      plan.params = row->params;
      plan.copy_bandwidth_gbs = options.copy_bandwidth_gbs;
      RowWriter writer(*row, out, observer, outcome.written);
      try {
        run_benchmark(plan, &writer);
      } catch (const Error& e) {
        if (e.code() != ExitCode::device_memory) {
          outcome.remaining -= outcome.written - before;
          throw;
        }
        // The input itself does not fit: every algorithm of this row is unsupported here.
        for (const Algorithm* a : pending) {
          if (writer.finished.count(a->name)) continue;
          writer.row_done(unsupported_row(*row, a->name, a, spec.backend, e.what()));
        }
      }
    }
    outcome.remaining -= outcome.written - before;
  }
  return outcome;
}

SweepEstimate estimate_sweep(const SweepSpec& spec, const std::vector<const SweepRow*>& rows,
                             const std::set<std::string>& done) {
  constexpr double kGpuKeysPerS = 1e9, kCpuKeysPerS = 2e7;
  constexpr double kInputKeysPerS = 5e8;  // generation plus verification per row and algorithm
  SweepEstimate e;
  const MeasureSettings& s = spec.settings;
  for (const SweepRow* row : rows) {
    const double n = static_cast<double>(derive_input_spec(row->request).n);
    bool any = false;
    for (const Algorithm* a : spec.algorithms) {
      if (done.count(result_key(row->key, a->name))) continue;
      any = true;
      const double sort_s = n / (a->backend == Backend::gpu ? kGpuKeysPerS : kCpuKeysPerS);
      const double base = (s.warmup + s.min_reps) * sort_s + n / kInputKeysPerS;
      e.low_s += base;
      e.high_s += base + s.budget_s;
    }
    if (any) e.low_s += n / kInputKeysPerS, e.high_s += n / kInputKeysPerS;
  }
  return e;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e8) return "?";
  const auto t = static_cast<long long>(std::llround(seconds));
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

}  // namespace sb
