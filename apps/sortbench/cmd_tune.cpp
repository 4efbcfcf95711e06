// sortbench tune: measures this GPU's crossovers for the automatic choices and writes its profile
// (suite/tune.hpp; docs/usage.md "tune"); --check re-measures the points beside each crossover
// and exits 1 when the profile no longer predicts the winner.
#include <chrono>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/report/build_info.hpp"
#include "sortbench/report/report.hpp"
#include "sortbench/suite/tune.hpp"

namespace sb::cli {
namespace {

struct TuneOptions {
  DeviceOptions where;
  std::string output;  // -o FILE; empty: this GPU's cached profile
  bool check = false;
  double budget_s = 0.1;
  int reps = 3;
};

std::string point_line(const TunePoint& p) {
  return fmt::format("  {}sigma {:>4g}  delta {:>5g}  hp-tiled {:>9}  cub-radix-bits {:>8.3f} ms  {}",
                     p.payload == Payload::none ? "" : "pairs  ", p.sigma, p.delta,
                     p.tiled_ms > 0 ? fmt::format("{:.3f} ms", p.tiled_ms) : std::string("unsupported"), p.cub_ms,
                     p.tiled_wins() ? "hp-tiled" : "CUB");
}

std::string radix_line(const RadixPoint& p) {
  return fmt::format("  {:<3}  {} digit{}  cub-radix {:>8.3f} ms  cub-radix-bits {:>8.3f} ms  {}", to_string(p.key),
                     p.digits, p.digits == 1 ? " " : "s", p.whole_ms, p.bits_ms,
                     p.whole_wins() ? "whole keys" : "offsets");
}

std::string dist_line(const DistPoint& p) {
  return fmt::format("  {} GPUs  n = {:<10}  {:<5}  {:<16}  {:>8.3f} ms  predicted {:>8.3f} ms  x{:.2f}", p.world, p.n,
                     p.payload == Payload::none ? "keys" : "pairs", p.way, p.measured_ms, p.predicted_ms,
                     p.predicted_ms > 0 ? p.measured_ms / p.predicted_ms : 0.0);
}

std::string stream_line(const StreamPoint& p) {
  return fmt::format("  ooc-hp  {:>4} MiB chunks  {:>8.3f} ms at {} MiB of keys, {:>8.3f} ms at {} MiB",
                     p.chunk_bytes >> 20, p.small_ms, p.small_bytes >> 20, p.large_ms, p.large_bytes >> 20);
}

int run_tune(const TuneOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const DeviceInfo gpu = query_device(o.where.device, false, "tune measures a GPU, so run it on a machine with one");
  use_device_option(o.where);
  TuneRequest request;
  request.settings.min_reps = o.reps;
  request.settings.budget_s = o.budget_s;
  request.settings.max_noise = 0.02;
  auto progress = [](const TunePoint& p) { std::cerr << point_line(p) << "\n"; };
  auto radix_progress = [](const RadixPoint& p) { std::cerr << radix_line(p) << "\n"; };
  auto dist_progress = [](const DistPoint& p) { std::cerr << dist_line(p) << "\n"; };
  auto stream_progress = [](const StreamPoint& p) { std::cerr << stream_line(p) << "\n"; };
  if (!o.where.devices.empty() || o.where.gpus > 1) request.devices = rank_devices(o.where);

  if (o.check) {
    // The profile the automatic choices read here: pinned (--profile), -o FILE, or the cached one.
    ProfilePolicy policy = profile_policy();
    if (!o.output.empty()) policy.kind = ProfilePolicy::Kind::file, policy.path = o.output;
    const ProfileBinding binding = resolve_profile(policy, gpu.name, nullptr);
    if (!binding.profile)
      throw UsageError(fmt::format("tune --check: no profile to check for {} ({}); run sortbench tune first, or give "
                                   "-o FILE or --profile FILE",
                                   gpu.name, cached_profile_path(gpu.name)));
    std::cout << fmt::format("tune --check: {} on {}\n", binding.rule, gpu.name);
    const auto checked = check_crossovers(*binding.profile, request, 0.03, progress);
    const auto radix_checked = check_radix_crossovers(*binding.profile, request, 0.03, radix_progress);
    int wrong = 0;
    for (const TuneCheckPoint& c : checked) {
      wrong += !c.agrees;
      std::cout << fmt::format("{}  predicted {}{}\n", point_line(c.point), c.predicted_tiled ? "hp-tiled" : "CUB",
                               c.agrees ? "" : "  WRONG");
    }
    for (const RadixCheckPoint& c : radix_checked) {
      wrong += !c.agrees;
      std::cout << fmt::format("{}  predicted {}{}\n", radix_line(c.point),
                               c.predicted_whole ? "whole keys" : "offsets", c.agrees ? "" : "  WRONG");
    }
    const auto dist_checked = check_dist_points(*binding.profile, request, 0.03, dist_progress);
    for (const DistCheck& c : dist_checked) {
      wrong += !c.agrees;
      std::cout << fmt::format("  {} GPUs  n = {:<10}  {:<5}  fastest {:<16}  predicted {}{}\n", c.world, c.n,
                               c.payload == Payload::none ? "keys" : "pairs", c.fastest, c.predicted,
                               c.agrees ? "" : "  WRONG");
    }
    const std::size_t points = checked.size() + radix_checked.size() + dist_checked.size();
    std::cout << fmt::format("tune --check: {} of {} points as the profile predicts{}\n", points - wrong, points,
                             wrong ? "; run sortbench tune again" : "");
    return wrong ? 1 : 0;
  }

  const std::string path = o.output.empty() ? cached_profile_path(gpu.name) : o.output;
  if (o.output.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  }
  check_writable(path);
  std::cout << fmt::format("tune: {} ({} SMs): hp-tiled against cub-radix-bits, n = {}, u32 keys alone, and n = {} "
                           "with u32 values; then cub-radix against cub-radix-bits on offsets, {} MiB of keys a "
                           "point\n",
                           gpu.name, gpu.sm_count, request.n, request.pair_n, request.radix_bytes >> 20);
  std::cout << fmt::format("tune: then ooc-hp with chunks of {} to {} MiB, n = {} and {} u32 keys, delta = 64\n",
                           request.stream_chunk_mib.front(), request.stream_chunk_mib.back(), request.stream_small_n,
                           request.stream_large_n);
  if (request.devices.size() > 1) {
    std::string sizes;
    for (const std::uint64_t n : request.dist_ns) sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", n);
    std::cout << fmt::format("tune: then dist-auto's ways on {} GPUs against their predictions, n = {}, delta = "
                             "sigma = 50, keys alone and with u32 values\n",
                             request.devices.size(), sizes);
  }
  TuneOutcome out = tune_crossovers(request, progress, radix_progress, dist_progress, stream_progress);
  ChoiceProfile& p = out.profile;
  p.gpu_name = gpu.name;
  p.sm_count = gpu.sm_count;
  p.memory_bytes = gpu.memory_bytes;
  p.driver = format_cuda_version(gpu.driver_version);
  p.version = build_version();
  p.commit = build_git_commit();
  for (const auto& [crossovers, what] : {std::pair{&p.hp_tiled_min_delta, ""}, {&p.hp_pairs_min_delta, " (pairs)"}})
    for (const TiledCrossover& c : *crossovers)
      std::cout << fmt::format("  sigma {:>4g}: hp-tiled{} from delta {}\n", c.sigma, what,
                               c.min_delta >= kNeverTiled ? std::string("(never: CUB)")
                                                          : fmt::format("{:g}", c.min_delta));
  for (const RadixCrossover& c : p.radix_whole_from_digits)
    std::cout << fmt::format("  {}: whole keys from {} of {} digits{}\n", to_string(c.key), c.whole_from_digits,
                             key_bytes(c.key),
                             c.whole_from_digits >= int(key_bytes(c.key)) ? " (only all of them: the built-in rule)"
                                                                          : "");
  for (const StreamChunkCost& c : p.stream_chunks)
    std::cout << fmt::format("  {}: {} MiB chunks fill {:.2f} ms, then {:.2f} ms a GiB of keys\n", c.algorithm,
                             c.chunk_bytes >> 20, c.fill_ms, c.ms_per_gib);
  for (const DistScale& c : p.dist_scales)
    std::cout << fmt::format("  {} GPUs, {}: {} at {:.2f}x its prediction\n", c.world,
                             c.values ? "with values" : "keys alone", c.way, c.scale);
  p.tune_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_file_atomically(path, choice_profile_text(p));
  std::cout << fmt::format("tune: wrote {} in {:.1f} s\n", path, p.tune_wall_s);
  return 0;
}

}  // namespace

Command add_tune(CLI::App& app) {
  auto* cmd = app.add_subcommand("tune", "measure this GPU's crossovers for the automatic choices and write its profile");
  auto o = std::make_shared<TuneOptions>();
  add_device_option(*cmd, o->where);
  add_rank_options(*cmd, o->where);
  cmd->add_option("-o,--output", o->output,
                  "write the profile here (default: this GPU's cached profile, $XDG_CACHE_HOME/sortbench/); with "
                  "--check, the profile to check");
  cmd->add_flag("--check", o->check, "re-measure the points beside each crossover; exit 1 when the profile mispredicts");
  cmd->add_option("--budget", o->budget_s, "seconds per row after --reps")->check(CLI::Range(0.0, 60.0))->capture_default_str();
  cmd->add_option("--reps", o->reps, "minimum timed repetitions a row")->check(CLI::Range(1, 1000))->capture_default_str();
  return {cmd, [o] { return run_tune(*o); }};
}

}  // namespace sb::cli
