// Sweeps (issue 7; docs/sweep.md): an experiment declared as data, after the way
// hpides/multi-gpu-sorting keeps its experiments in scripts/settings.py. A spec
// (datasets/*.json) names the algorithms, the fixed input parameters, the swept axes and the
// measurement settings; the cross product of the axes is the list of rows, one input each.
// Every row goes through run_benchmark (one generated input, every algorithm on it) and each
// result is appended to a JSONL file as one complete line, so a killed sweep loses at most
// the result in flight and --resume continues where it stopped.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sortbench/session/session.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/report/report.hpp"

namespace sb {

// One row of a sweep: one input (and algorithm parameters), run by every algorithm.
struct SweepRow {
  std::size_t index = 0;  // position in the spec's full row list (before sharding)
  std::string key;        // identity, e.g. "n=1048576 delta=1 dist=uniform key=u32 payload=none seed=1"
  InputRequest request;
  Params params;
};

struct SweepSpec {
  std::string path;         // for messages
  std::string name;         // the spec's "name"
  std::string regenerates;  // which figure or table of which paper
  Backend backend = Backend::gpu;
  std::vector<const Algorithm*> algorithms;  // registered matches, in spec order
  // Patterns ending in '*' that match nothing registered in this build: every row records
  // them as status "unsupported", reason "not registered in this build".
  std::vector<std::string> unregistered;
  MeasureSettings settings;
  std::vector<SweepRow> rows;

  std::size_t results_per_row() const { return algorithms.size() + unregistered.size(); }
};

// Throws UsageError naming the spec file and the field: unknown or misspelled fields,
// unknown algorithms, empty axes, bad values, repeated rows, inconsistent input parameters
// (derive_input_spec's message, with the fields that set them).
SweepSpec parse_sweep_spec(const nlohmann::json& spec, const std::string& path, const Registry& registry);
SweepSpec load_sweep_spec(const std::string& path, const Registry& registry);

// "i/N": this process runs the rows whose index % N == i.
struct Shard {
  std::size_t index = 0, count = 1;
};
Shard parse_shard(std::string_view text);  // throws UsageError
std::vector<const SweepRow*> shard_rows(const SweepSpec& spec, Shard shard);

// The identity of one result line: its row's key and the algorithm (or unregistered pattern).
std::string result_key(std::string_view row_key, std::string_view algorithm);

// What an existing sweep output holds.
struct SweepFile {
  bool has_context = false;
  std::string sweep_name;            // the context line's sweep.name, when it has one
  std::set<std::string> done;        // result_key of every complete result line
  std::size_t results = 0;
  std::size_t dropped_bytes = 0;     // a trailing partial line, cut off by read_sweep_file
};
// Reads a JSONL sweep output. A last line without its newline is the result that was in
// flight when the writer died: with truncate_partial, it is cut off the file. Throws
// UsageError for a complete line that is not JSON or lacks row_key/algorithm.
SweepFile read_sweep_file(const std::string& path, bool truncate_partial);

// Appends complete lines with one write(2) each, so a kill never leaves half a line behind
// a complete one (the partial line read_sweep_file drops can only come from a full disk).
class JsonlAppender {
 public:
  explicit JsonlAppender(const std::string& path);  // throws Error(output)
  ~JsonlAppender();
  JsonlAppender(const JsonlAppender&) = delete;
  JsonlAppender& operator=(const JsonlAppender&) = delete;
  void append(const nlohmann::json& line);  // throws Error(output)

 private:
  std::string path_;
  int fd_ = -1;
};

// The context line written once at the top of a sweep file.
nlohmann::json sweep_context_line(const RunContext& context, const SweepSpec& spec, Shard shard);
// A result line: the schema's result object plus row_key and row_index.
nlohmann::json sweep_result_line(const SweepRow& row, const ResultRow& result);

class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  // total: results of this shard; done: those already in the file.
  virtual void sweep_started(std::size_t /*total*/, std::size_t /*done*/) {}
  virtual void result_started(const SweepRow&, std::string_view /*algorithm*/) {}
  virtual void result_done(const SweepRow&, const ResultRow&) {}
};

struct SweepRunOptions {
  Shard shard;
  double copy_bandwidth_gbs = 0;
  // Start no new row after this many seconds (the row in progress finishes); nullopt: none.
  std::optional<double> stop_after_s;
};

struct SweepOutcome {
  std::size_t written = 0;    // result lines appended by this run
  std::size_t remaining = 0;  // results of this shard still missing from the file
  bool stopped_on_time = false;
};

// Runs the rows of one shard whose results are not yet in `done`, appending each result to
// `out`. Failing algorithms become rows (run_benchmark's rule); an input that does not fit
// in GPU memory becomes an "unsupported" row per algorithm. Rethrows Error(cuda) when the
// CUDA context is no longer usable (the result that broke it is written first) and
// Error(no_device).
SweepOutcome run_sweep(const SweepSpec& spec, const SweepRunOptions& options, const std::set<std::string>& done,
                       JsonlAppender& out, SweepObserver* observer = nullptr);

// A rough time estimate for --dry-run: every missing result takes warmup + min_reps sorts at
// an assumed rate (GPU 1 Gkeys/s, CPU 20 Mkeys/s per sort), plus input generation and
// verification; the upper bound adds the noise budget (budget_s) of every result.
struct SweepEstimate {
  double low_s = 0, high_s = 0;
};
SweepEstimate estimate_sweep(const SweepSpec& spec, const std::vector<const SweepRow*>& rows,
                             const std::set<std::string>& done);
std::string format_duration(double seconds);

}  // namespace sb
