// sortbench run: generate, sort with each algorithm, verify, time, print, write JSON/CSV.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/timing/clock_collector.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/progress.hpp"
#include "sortbench/algo/run_store.hpp"
#include "sortbench/place/placement_plan.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::cli {
namespace {

struct RunOptions {
  InputOptions input;
  std::string input_file;  // --input: a user's file instead of the generator
  FileOptions file;
  std::string range;
  std::string algo = "all";
  DeviceOptions where;           // --backend, --device, --gpus, --devices
  MemoryOptions memory;          // --placement, --gpu-memory-limit
  int reps = 10, warmup = 1, radix_bits = 0;
  ProcessRankOptions process;    // --rank r --world N --rendezvous DIR: this process is one rank (on --device)
  double max_noise_pct = 1.0, budget_s = 2.0, throttle_threshold = kDefaultThrottleThreshold;
  bool no_flush_l2 = false, quiet = false, energy = false;
  std::string json, csv;
  std::vector<std::string> params;
};

Params parse_params(const RunOptions& o, const std::vector<const Algorithm*>& algos) {
  Params params;
  for (const auto& p : o.params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(fmt::format("--param '{}' is not name=value; give e.g. --param radix-bits=4", p));
    params[p.substr(0, eq)] = p.substr(eq + 1);
  }
  if (o.radix_bits) params["radix-bits"] = std::to_string(o.radix_bits);
  for (const auto& [name, value] : params) {
    bool read = false;
    std::string known;
    for (const Algorithm* a : algos)
      for (const auto& accepted : a->params) {
        read = read || accepted == name;
        if (known.find(accepted) == std::string::npos) known += (known.empty() ? "" : ", ") + accepted;
      }
    if (!read)
      throw UsageError(fmt::format("parameter '{}' is read by none of the selected algorithms ({}); drop it", name,
                                   known.empty() ? "they read no parameters" : "they read: " + known));
  }
  return params;
}

class ProgressPrinter : public RowSink {
 public:
  ProgressPrinter(bool quiet, std::optional<RangeMode> file_range) : quiet_(quiet), file_range_(file_range) {}
  void input_ready(const InputSpec& spec, const KeyFacts& stats) override {
    if (quiet_) return;
    std::cout << (file_range_ ? format_measured_summary(spec, stats, *file_range_) : format_input_summary(spec, stats))
              << std::flush;
  }
  void row_started(const Algorithm& a) override {
    if (!quiet_) std::cerr << "  running " << a.name << "...\n";
  }
  void streamed(const std::string& why, const LinkRates& rates) override {
    link = rates;
    if (!why.empty() && !quiet_)
      std::cerr << "sortbench: " << why << " (--placement host: every GPU row's time includes the link)\n";
  }
  std::optional<LinkRates> link;

 private:
  bool quiet_;
  std::optional<RangeMode> file_range_;
};

// With --input the generator's options have nothing to describe.
void refuse_generator_options(const CLI::App& cmd) {
  for (const char* name : {"-n", "--delta", "--sigma", "--len", "--min-val", "--max-val", "--dist", "--entropy",
                           "--seed"})
    if (cmd.count(name))
      throw UsageError(fmt::format("{} describes a generated input but --input reads a file; drop {}", name, name));
  if (cmd.count("--payload") && cmd.count("--values"))
    throw UsageError("--values gives the value column, so --payload has nothing to add; drop --payload");
}

// o by value: a launched rank fills in its rank options and device.
int run_run(const CLI::App& cmd, RunOptions o) {
  RunPlan plan;
  const bool from_file = !o.input_file.empty();
  if (from_file) {
    refuse_generator_options(cmd);
  } else {
    for (const char* name : {"--format", "--column", "--header", "--no-header", "--offset", "--values"})
      if (cmd.count(name)) throw UsageError(fmt::format("{} describes a file: give --input FILE or drop {}", name, name));
    plan.request = to_request(cmd, o.input);
    derive_input_spec(plan.request);  // bad parameters fail before anything else happens
  }
  if (!o.range.empty()) plan.range = parse_range_mode(o.range);
  const Backend backend = checked_backend(cmd, o.where);
  plan.algorithms = registry().select(o.algo, backend);
  if (backend == Backend::cpu)
    for (const Algorithm* a : plan.algorithms)
      if (a->backend == Backend::gpu)
        throw UsageError(fmt::format("{} runs on the GPU but --backend cpu was given; drop it or use --backend gpu",
                                     a->name));
  plan.params = parse_params(o, plan.algorithms);
  plan.placement = parsed_placement(o.memory);
  plan.gpu_memory_limit = parsed_memory_limit(o.memory);
  if (backend == Backend::cpu && (cmd.count("--gpu-memory-limit") || plan.placement))
    throw UsageError("--placement and --gpu-memory-limit place work on the GPU but --backend cpu uses none; drop them");
  plan.host_memory_limit = parsed_host_memory_limit(o.memory);
  if (!o.memory.tmp_dir.empty()) {
    check_tmp_dir(o.memory.tmp_dir);
    plan.tmp_dir = o.memory.tmp_dir;
  }
  if (backend == Backend::cpu && (plan.host_memory_limit || !o.memory.tmp_dir.empty()))
    throw UsageError("--host-memory-limit and --tmp-dir bound the GPU rows' streamed placement but --backend cpu "
                     "streams nothing; drop them");
  const bool one_rank_of_several = backend == Backend::gpu && checked_process_rank(cmd, o.process);
  // A launched rank takes its node-local GPU unless --device names one.
  if (!o.process.launcher.empty() && !cmd.count("--device")) o.where.device = launched_device(o.process);
  plan.devices = rank_devices(o.where);
  if (one_rank_of_several) {
    plan.process_rank = o.process.rank;
    plan.process_world = o.process.world;
    plan.rendezvous = o.process.rendezvous;
    plan.launcher = o.process.launcher;
  }
  plan.settings.warmup = o.warmup;
  plan.settings.min_reps = o.reps;
  plan.settings.max_noise = o.max_noise_pct / 100.0;
  plan.settings.budget_s = o.budget_s;
  plan.settings.flush_l2 = !o.no_flush_l2;
  plan.settings.throttle_threshold = o.throttle_threshold;
  plan.settings.energy = o.energy;
  if (o.energy && backend == Backend::cpu)
    throw UsageError("--energy reads the GPU's energy counter, so it measures GPU algorithms only; drop --energy "
                     "or use --backend gpu");
  if (!o.json.empty()) check_writable(o.json);
  if (!o.csv.empty()) check_writable(o.csv);

  RunContext context = make_context();
  context.command_line = command_line();
  context.settings = plan.settings;
  const bool needs_gpu = std::any_of(plan.algorithms.begin(), plan.algorithms.end(),
                                     [](const Algorithm* a) { return a->backend == Backend::gpu; });
  if (needs_gpu) {
    context.gpu = query_device(o.where.device, true);
    use_device(o.where.device);  // query_device leaves the current device as it was
    plan.copy_bandwidth_gbs = context.gpu->copy_bandwidth_gbs;
    std::string why_absent;
    std::shared_ptr<const NvmlDevice> nvml = NvmlDevice::open(o.where.device, &why_absent);
    if (nvml) {
      context.conditions = nvml->conditions();
      context.busy = busy_processes(nvml->processes(), nvml->memory_total_bytes(), static_cast<unsigned>(getpid()));
      std::cerr << format_busy_warning(o.where.device, context.busy);
    } else {
      context.conditions = GpuConditions{};
      context.conditions->nvml_absent = why_absent;
      std::cerr << nvml_absent_line(why_absent) << "\n";
    }
    if (o.energy && !(context.conditions->nvml && context.conditions->energy_counter))
      throw UsageError(energy_unavailable_message(nvml ? "the GPU has no energy counter" : "NVML is absent"));
    plan.nvml = std::move(nvml);
  }
  if (from_file) {
    FileInputRequest fr;
    fr.keys = to_file_request(cmd, o.file, o.input_file, o.input.key, "--input");
    if (!o.file.values.empty()) {
      fr.values = to_file_request(cmd, o.file, o.file.values, o.input.key, "--values");
      // --key, --format, --column and --offset describe the key file; the value file says
      // what it is by its extension and its own header (.npy or text).
      fr.values->key.reset();
      fr.values->format.reset();
      fr.values->column.clear();
      fr.values->offset = 0;
    }
    if (cmd.count("--payload")) fr.payload = to_request(cmd, o.input).payload;
    // Read into pinned memory when the GPU will copy it; a file whose three copies do not fit on
    // the GPU (or under the limit) will stream from host memory, and the streamed placement
    // fills its own pinned columns from the file: reading it whole first would hold it twice.
    auto size_of = [](const std::string& path) {  // 0 where unreadable: the source says why
      std::error_code ec;
      const auto bytes = std::filesystem::file_size(path, ec);
      return ec ? std::uint64_t{0} : static_cast<std::uint64_t>(bytes);
    };
    const std::uint64_t file_bytes = size_of(fr.keys.path) + (fr.values ? size_of(fr.values->path) : 0);
    // The session's own fit rule (place/placement_plan.hpp), with the file's bytes for its columns.
    const DeviceFit fit = device_fit(file_bytes, /*repeated=*/true, context.gpu ? context.gpu->memory_free_bytes : 0,
                                     plan.gpu_memory_limit);
    const bool streams =
        needs_gpu && (plan.placement == PlacementKind::streamed || (!plan.placement && !fit.fits()));
    plan.source = streams ? make_file_source(fr, {}, FileReading::streamed)
                          : make_file_source(fr, needs_gpu ? pinned_host_allocator() : HostAllocator{});
  }
  if (!o.quiet) std::cout << format_context_line(context);
  if (o.quiet) set_progress_enabled(false);  // long streamed passes print progress otherwise

  ProgressPrinter progress(o.quiet, from_file ? std::optional<RangeMode>(plan.range.value_or(RangeMode::measured))
                                              : std::nullopt);
  const std::vector<ResultRow> rows = run_benchmark(plan, &progress);
  std::cout << format_table(rows);
  if (from_file) std::cout << format_fastest(rows);
  context.link = progress.link;
  if (!rows.empty() && std::all_of(rows.begin(), rows.end(),
                                   [](const ResultRow& r) { return r.status == RowStatus::unsupported; })) {
    // Nothing ran: a usage error naming why each requested algorithm could not (issue 52 item 3),
    // with no report written.
    std::string reasons;
    for (const ResultRow& r : rows) reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", r.algorithm, r.reason);
    throw UsageError(fmt::format("no requested algorithm can run on this input ({}); choose others with --algo "
                                 "(sortbench list) or change the input or the limits",
                                 reasons));
  }
  if (!o.json.empty()) write_file_atomically(o.json, make_document(context, rows).dump(2) + "\n");
  if (!o.csv.empty()) write_file_atomically(o.csv, to_csv(rows));
  if (any_failed_verification(rows)) {
    std::cerr << "sortbench: error: verification failed for at least one algorithm (see the table)\n";
    return static_cast<int>(ExitCode::verification_failed);
  }
  return 0;
}

}  // namespace

Command add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "generate an input (or read --input FILE), run, verify and time sorting algorithms");
  auto o = std::make_shared<RunOptions>();
  add_input_options(*cmd, o->input);
  cmd->add_option("--input", o->input_file, "benchmark on a file's keys instead of a generated input (.npy, raw, "
                                            "text/CSV)");
  add_file_options(*cmd, o->file);
  cmd->add_option("--range", o->range,
                  "how range-aware algorithms get min/max: given (measured outside the timed region and handed "
                  "over; default for generated inputs) or measured (discovered inside the timed region; default "
                  "with --input)")
      ->check(CLI::IsMember({"given", "measured"}));
  cmd->add_option("--algo", o->algo, "comma list of names or prefixes (hp*), or all (of the backend)")
      ->capture_default_str();
  add_backend_option(*cmd, o->where);
  cmd->add_option("--reps", o->reps, "minimum timed repetitions")->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "untimed warm-up runs")->check(CLI::Range(0, 1000))->capture_default_str();
  cmd->add_option("--max-noise", o->max_noise_pct, "stop once the relative stddev is below this percentage")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--budget", o->budget_s, "seconds per algorithm after --reps before giving up on --max-noise")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--no-flush-l2", o->no_flush_l2, "keep L2 warm between repetitions");
  cmd->add_option("--throttle-threshold", o->throttle_threshold,
                  "discard (and retake) a GPU sample taken while the SM clock is below this share of the clock at "
                  "the start of the measurement (NVML; as nvbench)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_flag("--energy", o->energy,
                "also measure joules per sort and keys per joule of each GPU algorithm over a batch of "
                "back-to-back sorts of at least 1 s (NVML's energy counter; takes longer)");
  cmd->add_option("--param", o->params, "algorithm parameter name=value (repeatable), e.g. radix-bits=4");
  cmd->add_option("--radix-bits", o->radix_bits, "digit width for radix sorts (same as --param radix-bits=N)")
      ->check(CLI::Range(1, 16));
  add_device_option(*cmd, o->where);
  add_memory_options(*cmd, o->memory);
  add_host_memory_options(*cmd, o->memory, "a run streamed through the GPU (its input and output columns)",
                          "the current folder");
  add_process_rank_options(*cmd, o->process, add_rank_options(*cmd, o->where));
  cmd->add_option("--json", o->json, "write results as JSON (docs/schema.md)");
  cmd->add_option("--csv", o->csv, "write results as CSV");
  cmd->add_flag("--quiet", o->quiet, "print only the results table");
  return {cmd, [cmd, o] { return run_run(*cmd, *o); }};
}

}  // namespace sb::cli
