// sortbench sweep: run a spec's rows (datasets/*.json) into a JSONL file, resumable and
// shardable (lib/sortbench/experiment/sweep.hpp; docs/sweep.md). This file only wires options and
// prints progress; the rows, the file and the loop live in lib/.
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/experiment/sweep.hpp"

namespace sb::cli {
namespace {

struct SweepOptions {
  std::string spec, output, shard = "0/1";
  DeviceOptions where;  // --device (the spec names the backend)
  bool resume = false, dry_run = false;
  double stop_after_s = -1;
};

std::string resume_command(const SweepOptions& o) {
  std::string cmd = fmt::format("sortbench sweep --spec {} -o {} --resume", o.spec, o.output);
  if (o.shard != "0/1") cmd += fmt::format(" --shard {}", o.shard);
  if (o.where.device != 0) cmd += fmt::format(" --device {}", o.where.device);
  return cmd;
}

// stderr progress: a redrawn bar on a terminal, one line per result otherwise (logs, CI).
class Progress : public SweepObserver {
 public:
  explicit Progress(bool tty) : tty_(tty) {}
  void sweep_started(std::size_t total, std::size_t done) override {
    total_ = total;
    done_ = done;
    start_ = std::chrono::steady_clock::now();
    if (done) std::cerr << fmt::format("sweep: {} of {} results already in the output, skipped\n", done, total);
  }
  void result_started(const SweepRow& row, std::string_view algorithm) override {
    if (tty_) draw(row, algorithm);
  }
  void result_done(const SweepRow& row, const ResultRow& r) override {
    ++done_;
    ++ran_;
    ++by_status_[r.status];
    const std::string outcome = r.status == RowStatus::ok ? fmt::format("{:.4f} ms", r.median_ms())
                                                          : fmt::format("{}: {}", to_string(r.status), r.reason);
    if (tty_) {
      if (r.status != RowStatus::ok) {
        std::cerr << "\r\033[K" << fmt::format("row {} {}: {}\n", row.index, r.algorithm, outcome);
      }
      draw(row, r.algorithm);
    } else {
      std::cerr << fmt::format("[{}/{}] row {} {} {}: {}  (elapsed {}, eta {})\n", done_, total_, row.index, row.key,
                               r.algorithm, outcome, format_duration(elapsed()), format_duration(eta()));
    }
  }
  void finish() {
    if (tty_) std::cerr << "\r\033[K";
  }
  // "24 ok, 2 unsupported, 1 verify_failed" for the results of this run.
  std::string tally() const {
    std::string out;
    for (const auto& [status, count] : by_status_)
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, to_string(status));
    return out.empty() ? "none" : out;
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  double eta() const { return ran_ ? elapsed() / ran_ * (total_ - done_) : -1; }
  void draw(const SweepRow& row, std::string_view algorithm) {
    constexpr int kWidth = 30;
    const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
    std::string line = fmt::format("[{}{}] {}/{} elapsed {} eta {} | row {} {} | {}", std::string(filled, '#'),
                                   std::string(kWidth - filled, '.'), done_, total_, format_duration(elapsed()),
                                   format_duration(eta()), row.index, algorithm, row.key);
    // A line wider than the terminal wraps, and \r would then redraw only its last part.
    winsize ws{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && line.size() >= ws.ws_col)
      line.resize(ws.ws_col - 1);
    std::cerr << "\r\033[K" << line << std::flush;
  }
  bool tty_;
  std::size_t total_ = 0, done_ = 0, ran_ = 0;
  std::map<RowStatus, std::size_t> by_status_;
  std::chrono::steady_clock::time_point start_;
};

int run_dry(const SweepSpec& spec, const SweepOptions& o, Shard shard) {
  std::set<std::string> done;
  if (o.resume && !o.output.empty()) done = read_sweep_file(o.output, false).done;
  const auto rows = shard_rows(spec, shard);
  std::cout << fmt::format("spec {} ({}): {} rows, shard {}/{} runs {}; {} results per row\n", spec.path,
                           spec.regenerates.empty() ? spec.name : spec.regenerates, spec.rows.size(), shard.index,
                           shard.count, rows.size(), spec.results_per_row());
  std::cout << "algorithms:";
  for (const Algorithm* a : spec.algorithms) std::cout << " " << a->name;
  for (const auto& p : spec.unregistered) std::cout << " " << p << "(not registered in this build)";
  std::cout << "\n";
  std::size_t missing = 0;
  for (const SweepRow* row : rows) {
    std::size_t have = 0;
    for (const Algorithm* a : spec.algorithms) have += done.count(result_key(row->key, a->name));
    for (const auto& p : spec.unregistered) have += done.count(result_key(row->key, p));
    missing += spec.results_per_row() - have;
    const InputSpec in = derive_input_spec(row->request);
    std::cout << fmt::format("{:>5}  {}  [range={} len={}]{}\n", row->index, row->key, wide_text(in.range), in.len,
                             have == spec.results_per_row() ? "  done"
                             : have                       ? fmt::format("  {} of {} done", have, spec.results_per_row())
                                                          : "");
  }
  const SweepEstimate e = estimate_sweep(spec, rows, done);
  std::cout << fmt::format(
      "{} results to run; estimated time {} to {} (assumes 1 Gkeys/s per GPU sort and 20 Mkeys/s per CPU sort, "
      "warmup + {} reps each; the upper bound adds the {} s noise budget of every result)\n",
      missing, format_duration(e.low_s), format_duration(e.high_s), spec.settings.min_reps, spec.settings.budget_s);
  return 0;
}

int run_sweep_command(const SweepOptions& o) {
  const SweepSpec spec = load_sweep_spec(o.spec, registry());
  const Shard shard = parse_shard(o.shard);
  if (o.dry_run) return run_dry(spec, o, shard);
  if (o.output.empty()) throw UsageError("-o/--output FILE.jsonl is required (or give --dry-run)");

  SweepFile existing;
  if (access(o.output.c_str(), F_OK) == 0) {
    if (!o.resume)
      throw UsageError(fmt::format("{} already exists; give --resume to continue it, or remove it to start over",
                                   o.output));
    existing = read_sweep_file(o.output, false);
    if (!existing.sweep_name.empty() && existing.sweep_name != spec.name)
      throw UsageError(fmt::format("{} holds the sweep '{}', not '{}' of {}; give another -o/--output", o.output,
                                   existing.sweep_name, spec.name, spec.path));
    existing = read_sweep_file(o.output, true);
    if (existing.dropped_bytes)
      std::cerr << fmt::format("sweep: dropped a partial last line ({} bytes) of {}: the result in flight when it "
                               "stopped; it runs again\n",
                               existing.dropped_bytes, o.output);
  }

  RunContext context = make_context();
  context.command_line = command_line();
  context.settings = spec.settings;
  SweepRunOptions run;
  run.shard = shard;
  if (o.stop_after_s >= 0) run.stop_after_s = o.stop_after_s;
  const bool needs_gpu = std::any_of(spec.algorithms.begin(), spec.algorithms.end(),
                                     [](const Algorithm* a) { return a->backend == Backend::gpu; });
  if (needs_gpu) {
    context.gpu = query_device(o.where.device, true,
                               "this spec runs GPU algorithms: run it on a machine with an NVIDIA GPU, or give "
                               "a spec whose algorithms are the CPU's (\"backend\": \"cpu\", as datasets/smoke.json)");
    use_device(o.where.device);  // query_device leaves the current device as it was
    run.copy_bandwidth_gbs = context.gpu->copy_bandwidth_gbs;
    std::cerr << format_context_line(context);
  }

  JsonlAppender out(o.output);
  if (!existing.has_context) out.append(sweep_context_line(context, spec, shard));
  Progress progress(isatty(STDERR_FILENO) == 1);
  SweepOutcome outcome;
  try {
    outcome = run_sweep(spec, run, existing.done, out, &progress);
  } catch (const Error& e) {
    progress.finish();
    if (e.code() == ExitCode::cuda)
      throw Error(ExitCode::cuda, fmt::format("{}. The sweep stopped; the finished results are in {}. Resume in a new "
                                              "process with: {}",
                                              e.what(), o.output, resume_command(o)));
    throw;
  }
  progress.finish();
  if (outcome.stopped_on_time) {
    std::cerr << fmt::format("sweep: stopped after --stop-after {} s with {} results left ({} written now: {}); "
                             "continue with: {}\n",
                             o.stop_after_s, outcome.remaining, outcome.written, progress.tally(), resume_command(o));
  } else {
    std::cerr << fmt::format("sweep: complete, {} results written now ({}), {} in {}\n", outcome.written,
                             progress.tally(), outcome.written + existing.results, o.output);
  }
  return 0;
}

}  // namespace

Command add_sweep(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "run an experiment spec (datasets/*.json) into a resumable JSONL file");
  auto o = std::make_shared<SweepOptions>();
  cmd->add_option("--spec", o->spec, "the experiment spec, e.g. datasets/smoke.json (docs/sweep.md)")->required();
  cmd->add_option("-o,--output", o->output, "JSONL output: a context line, then one result per line");
  add_renamed_option(*cmd, "--out", "-o/--output");
  cmd->add_flag("--resume", o->resume, "continue an existing -o/--output, skipping the results it already holds");
  cmd->add_flag("--dry-run", o->dry_run, "print the rows and a time estimate; run nothing");
  cmd->add_option("--shard", o->shard, "i/N: run only the rows whose index % N == i")->capture_default_str();
  add_device_option(*cmd, o->where);
  cmd->add_option("--stop-after", o->stop_after_s,
                  "seconds: start no new row after this long (the sweep can be continued with --resume)")
      ->check(CLI::Range(0.0, 1e7));
  return {cmd, [o] { return run_sweep_command(*o); }};
}

}  // namespace sb::cli
