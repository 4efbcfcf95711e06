// sortbench sort IN -o OUT: sort a user's file (GPU or CPU), verify, write in the input's format;
// --json writes the phase report beside it (issue 35 item 8; docs/schema.md "sort --json").
// Issue 38: --gpus N / --devices / --rank sort the file on ranks, one output file.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/progress.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/suite/sort_file.hpp"

namespace sb::cli {
namespace {

struct SortOptions {
  std::string input, output, values_out, key, algo = "auto", json;
  DeviceOptions where;
  ProcessRankOptions process;
  MemoryOptions memory;
  FileOptions file;
  bool argsort = false, quiet = false;
};

// The phase report as JSON, with the context block of run's JSON (host, GPU, command line,
// commit); the context's measurement settings and copy bandwidth belong to run and are left out.
nlohmann::json sort_document(const SortOptions& o, const SortFileReport& r, Backend backend) {
  RunContext context = make_context();
  context.command_line = command_line();
  if (backend == Backend::gpu) context.gpu = query_device(o.where.device, false);
  nlohmann::json ctx = to_json(context);
  ctx.erase("measurement");
  if (ctx["gpu"].is_object()) ctx["gpu"].erase("copy_bandwidth_gbs");
  nlohmann::json phases = nlohmann::json::array();
  double total = 0;
  for (const auto& [phase, ms] : r.phases_ms) {
    phases.push_back({{"phase", phase}, {"ms", ms}});
    total += ms;
  }
  nlohmann::json sort = {{"input", o.input},
                         {"output", o.output},
                         {"algorithm", r.algorithm},
                         {"auto_choice", r.why},
                         {"rule", r.rule},
                         {"backend", to_string(backend)},
                         {"n", r.n},
                         {"key", to_string(r.key)},
                         {"argsort", o.argsort},
                         {"phases", phases},
                         {"total_ms", total},
                         {"bytes_read", r.bytes_read},
                         {"bytes_written", r.bytes_written},
                         {"verified_on", r.verified_on},
                         {"placement", r.placement},
                         {"memory", {{"host_peak_bytes", r.host_peak_bytes}, {"tmp_bytes", r.tmp_bytes}}}};
  if (o.memory.gpu_memory_limit.size()) sort["gpu_memory_limit_bytes"] = parsed_memory_limit(o.memory);
  if (o.memory.host_memory_limit.size()) sort["host_memory_limit_bytes"] = parsed_host_memory_limit(o.memory);
  if (!r.runs_in.empty()) sort["memory"]["runs_in"] = r.runs_in;
  if (!r.details.empty()) sort["details"] = details_json(r.details);
  if (r.input_disk.read_gbs || r.output_disk.write_gbs) {
    sort["disk"] = {{"input_read_gbs", r.input_disk.read_gbs},
                    {"output_write_gbs", r.output_disk.write_gbs},
                    {"tmp_write_gbs", r.tmp_disk.write_gbs},
                    {"tmp_read_gbs", r.tmp_disk.read_gbs}};
    sort["disk_floor_ms"] = r.disk_floor_ms > 0 ? nlohmann::json(r.disk_floor_ms) : nlohmann::json(nullptr);
    if (r.tmp_bytes) sort["runs_disk_ms"] = r.runs_disk_ms > 0 ? nlohmann::json(r.runs_disk_ms) : nlohmann::json(nullptr);
  }
  if (!o.file.values.empty()) sort["values"] = o.file.values;
  if (!o.values_out.empty()) sort["values_output"] = o.values_out;
  if (r.placement == "ranks") {
    sort["ranks"] = {{"world", r.world}, {"devices", r.devices}, {"details", details_json(r.rank_details)}};
    if (r.process_rank >= 0) sort["ranks"]["process_rank"] = r.process_rank;
  }
  return {{"schema_version", kSchemaVersion}, {"context", ctx}, {"sort", sort}};
}

// o by value: a launched rank fills in its rank options and device.
int run_sort(const CLI::App& cmd, SortOptions o) {
  const Backend backend = checked_backend(cmd, o.where);
  if (!o.json.empty()) {
    for (const std::string* file : {&o.input, &o.output, &o.values_out})
      if (o.json == *file)
        throw UsageError(
            fmt::format("--json {} is also a file of the sort; give the report a path of its own", o.json));
    check_writable(o.json);
  }
  if (backend == Backend::gpu && cmd.count("--device")) use_device_option(o.where);
  SortFileRequest q;
  q.input = to_file_request(cmd, o.file, o.input, o.key, "input");
  q.output = o.output;
  if (!o.file.values.empty()) {
    q.values = to_file_request(cmd, o.file, o.file.values, o.key, "--values");
    // --key, --format, --column and --offset describe the key file; the value file says
    // what it is by its extension and its own header (.npy or text).
    q.values->key.reset();
    q.values->format.reset();
    q.values->column.clear();
    q.values->offset = 0;
  }
  q.values_output = o.values_out;
  q.argsort = o.argsort;
  q.algo = o.algo;
  q.backend = backend;
  q.gpu_memory_limit = parsed_memory_limit(o.memory);
  q.host_memory_limit = parsed_host_memory_limit(o.memory);
  q.tmp_dir = o.memory.tmp_dir;
  if (backend == Backend::gpu && checked_process_rank(cmd, o.process)) {
    // A launched rank takes its node-local GPU unless --device names one.
    if (!o.process.launcher.empty() && !cmd.count("--device")) o.where.device = launched_device(o.process);
    q.devices = {o.where.device};
    q.process_rank = o.process.rank;
    q.process_world = o.process.world;
    q.rendezvous = o.process.rendezvous;
    q.launcher = o.process.launcher;
  } else if (cmd.count("--gpus") || cmd.count("--devices")) {
    q.devices = rank_devices(o.where);
  }
  if (q.on_ranks() && q.gpu_memory_limit)
    throw UsageError("--gpu-memory-limit streams one GPU's sort but ranks hold their shards whole; drop one of them");
  if (o.quiet) set_progress_enabled(false);  // a file larger than the GPU prints progress otherwise
  if (backend == Backend::cpu && q.gpu_memory_limit)
    throw UsageError("--gpu-memory-limit caps the GPU's memory but --backend cpu uses none; drop it");
  if ((backend == Backend::cpu || q.on_ranks()) && (q.host_memory_limit || !q.tmp_dir.empty()))
    throw UsageError("--host-memory-limit and --tmp-dir bound one GPU's streamed sort, but this sort holds the file "
                     "in memory (--backend cpu or ranks); drop them");
  const SortFileReport r = sort_file(q);
  if (!o.json.empty()) write_file_atomically(o.json, sort_document(o, r, backend).dump(2) + "\n");
  if (!o.quiet) {
    std::cout << fmt::format("sorted {} {} keys with {}{}{}\n", r.n, to_string(r.key), r.algorithm,
                             r.world ? fmt::format(" on {} ranks", r.world) : "",
                             r.why.empty() ? "" : " (auto: " + r.why + ")");
    double total = 0;
    for (const auto& [phase, ms] : r.phases_ms) {
      std::string rate;
      if (phase == "read" && ms > 0) rate = fmt::format("  {:.2f} GB/s", r.bytes_read / ms / 1e6);
      if (phase == "write" && ms > 0) rate = fmt::format("  {:.2f} GB/s", r.bytes_written / ms / 1e6);
      std::cout << fmt::format("  {:<15} {:>10.3f} ms{}\n", phase, ms, rate);
      total += ms;
    }
    std::cout << fmt::format("  {:<15} {:>10.3f} ms\n", "total", total);
    if (r.disk_floor_ms > 0)
      std::cout << fmt::format("  {:<15} {:>10.3f} ms (the input read and the output written at the disks' probed "
                               "rates)\n",
                               "disk floor", r.disk_floor_ms);
    std::cout << fmt::format("verified on the {} (sorted, same multiset); wrote {}{}{}\n",
                             r.verified_on, o.output,
                             o.values_out.empty() ? "" : " and " + o.values_out,
                             o.json.empty() ? "" : "; report in " + o.json);
  }
  return 0;
}

}  // namespace

Command add_sort(CLI::App& app) {
  auto* cmd = app.add_subcommand("sort", "sort a file's keys (.npy, raw, text/CSV), verify, and write them");
  auto o = std::make_shared<SortOptions>();
  cmd->add_option("input", o->input, "the file to sort")->required();
  cmd->add_option("-o,--output", o->output, "where to write the sorted keys (the input's format)")->required();
  add_file_options(*cmd, o->file);
  cmd->add_option("--values-out", o->values_out, "with --values: where to write the values in the keys' new order");
  cmd->add_option("--key", o->key, "key type: " + key_type_choices() + " (raw: required; .npy: must agree)");
  cmd->add_option("--algo", o->algo,
                  "an algorithm name, or auto (chosen from the measured input; on ranks: dist-sample-sort)")
      ->capture_default_str();
  add_backend_option(*cmd, o->where);
  add_device_option(*cmd, o->where);
  add_process_rank_options(*cmd, o->process, add_rank_options(*cmd, o->where));
  cmd->add_option("--gpu-memory-limit", o->memory.gpu_memory_limit,
                  "the GPU memory the sort may use, e.g. 4G (suffixes as -n); a file that needs more streams "
                  "through the GPU in chunks");
  add_host_memory_options(*cmd, o->memory, "a file streamed through the GPU", "the output's folder");
  cmd->add_option("--json", o->json, "also write the phase report as JSON (docs/schema.md)");
  cmd->add_flag("--argsort", o->argsort, "write the sorting permutation (u32, or u64 past 2^32 keys) instead of keys");
  cmd->add_flag("--quiet", o->quiet, "print nothing on success");
  return {cmd, [cmd, o] { return run_sort(*cmd, *o); }};
}

}  // namespace sb::cli
