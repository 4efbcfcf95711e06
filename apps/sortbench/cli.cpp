#include "cli.hpp"

#include <cstdlib>
#include <filesystem>

#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/place/launch_env.hpp"
#include "sortbench/place/mpi_address.hpp"

namespace sb::cli {
namespace {
std::string g_command_line;

template <typename E, typename Parse>
E parse_enum(const std::string& text, const char* option, Parse parse, const std::string& choices) {
  if (auto v = parse(text)) return *v;
  throw UsageError(fmt::format("{} '{}' is not one of {}", option, text, choices));
}
}  // namespace

void add_input_options(CLI::App& cmd, InputOptions& o) {
  cmd.add_option("-n", o.n, "number of keys: 16777216, 16M (K/M/G = 2^10/2^20/2^30) or 2^24 [default 2^24]");
  cmd.add_option("--delta", o.delta, "density delta = n / range [default 1]");
  cmd.add_option("--sigma", o.sigma, "sparsity sigma = range / len [default: from len]");
  cmd.add_option("--len", o.len, "distinct values that occur [default min(n, range)]");
  cmd.add_option("--min-val", o.min_val, "smallest key value, may be negative [default 0]");
  cmd.add_option("--max-val", o.max_val, "keys lie below this value, up to 2^64 for u64 [default minVal + range]");
  cmd.add_option("--dist", o.dist, distribution_choices())->capture_default_str();
  cmd.add_option("--entropy", o.entropy, "with --dist entropy: 1, 0.811, 0.544, 0.337, 0.201 or 0 (CUB's levels)");
  cmd.add_option("--key", o.key, "key type: " + key_type_choices())->capture_default_str();
  cmd.add_option("--payload", o.payload,
                 "none; index (the input position); u32 or u64 (a value column of that width)")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "random seed; the same seed gives the same input")->capture_default_str();
}

InputRequest to_request(const CLI::App& cmd, const InputOptions& o) {
  InputRequest r;
  if (cmd.count("-n")) r.n = parse_count(o.n, "-n");
  if (cmd.count("--len")) r.len = parse_count(o.len, "--len");
  if (cmd.count("--delta")) r.delta = o.delta;
  if (cmd.count("--sigma")) r.sigma = o.sigma;
  if (cmd.count("--min-val")) r.min_val = parse_value(o.min_val, "--min-val");
  if (cmd.count("--max-val")) r.max_val = parse_value(o.max_val, "--max-val");
  if (cmd.count("--entropy")) r.entropy = o.entropy;
  r.dist = parse_enum<Distribution>(o.dist, "--dist", parse_distribution, distribution_choices());
  r.key = parse_enum<KeyType>(o.key, "--key", parse_key_type, key_type_choices());
  r.payload = parse_enum<Payload>(o.payload, "--payload", parse_payload, payload_choices());
  r.seed = o.seed;
  return r;
}

void add_file_options(CLI::App& cmd, FileOptions& o) {
  cmd.add_option("--format", o.format, "file format: npy, raw or text (csv) [default: from the extension]");
  cmd.add_option("--column", o.column,
                 "a 2-D .npy: the 0-based column; a CSV: the column's 0-based index, or its name in the header line");
  auto* header = cmd.add_flag("--header", o.header,
                              "CSV: line 1 names the columns [default: a header when no cell of line 1 is a number, "
                              "data when every cell is]");
  cmd.add_flag("--no-header", o.no_header, "CSV: line 1 is data, not a header")->excludes(header);
  cmd.add_option("--offset", o.offset, "raw binary: bytes to skip before the keys (a header)");
  cmd.add_option("--values", o.values, "a value column carried along with the keys (a file of the same length)");
}

FileRequest to_file_request(const CLI::App& cmd, const FileOptions& o, const std::string& path,
                            const std::string& key_text, const std::string& role) {
  FileRequest r;
  r.path = path;
  r.role = role;
  if (!o.format.empty())
    r.format = parse_enum<FileFormat>(o.format, "--format", parse_file_format, "npy, raw, text");
  if (cmd.count("--key")) r.key = parse_enum<KeyType>(key_text, "--key", parse_key_type, key_type_choices());
  r.column = o.column;
  if (o.header || o.no_header) r.header = o.header;
  if (!o.offset.empty()) r.offset = parse_count(o.offset, "--offset");
  return r;
}

void add_backend_option(CLI::App& cmd, DeviceOptions& o) {
  cmd.add_option("--backend", o.backend, "who does the work: gpu, or cpu (no GPU used at all)")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
}

CLI::Option* add_device_option(CLI::App& cmd, DeviceOptions& o) {
  return cmd.add_option("--device", o.device, "the GPU (CUDA ordinal) of single-GPU work")->capture_default_str();
}

std::pair<CLI::Option*, CLI::Option*> add_rank_options(CLI::App& cmd, DeviceOptions& o) {
  auto* gpus = cmd.add_option("--gpus", o.gpus, "distributed algorithms (dist-*): one rank on each of GPUs 0..N-1")
                   ->check(CLI::Range(1, 1024));
  auto* devices =
      cmd.add_option("--devices", o.devices, "distributed algorithms (dist-*): one rank on each listed GPU, e.g. 0,2")
          ->delimiter(',')
          ->check(CLI::NonNegativeNumber)
          ->excludes(gpus);
  return {gpus, devices};
}

Backend checked_backend(const CLI::App& cmd, const DeviceOptions& o) {
  const Backend backend = *parse_backend(o.backend);
  if (backend == Backend::cpu)
    for (const char* gpu_option : {"--device", "--gpus", "--devices", "--rank", "--world", "--rendezvous"})
      if (cmd.get_option_no_throw(gpu_option) && cmd.count(gpu_option))
        throw UsageError(fmt::format("{} places work on a GPU but --backend cpu uses none; drop {}", gpu_option,
                                     gpu_option));
  return backend;
}

void use_device_option(const DeviceOptions& o) {
  query_device(o.device, false);  // a wrong ordinal is a usage error that lists the GPUs
  use_device(o.device);
}

std::vector<int> rank_devices(const DeviceOptions& o) {
  std::vector<int> devices = o.devices;
  for (int g = 0; g < o.gpus; ++g) devices.push_back(g);
  if (devices.empty()) devices.push_back(o.device);  // a distributed sort on one GPU
  return devices;
}

void add_process_rank_options(CLI::App& cmd, ProcessRankOptions& o,
                              std::pair<CLI::Option*, CLI::Option*> rank_options) {
  cmd.add_option("--rank", o.rank, "one process per GPU: this process's rank (with --world, --rendezvous; on --device)")
      ->check(CLI::NonNegativeNumber)
      ->excludes(rank_options.first)
      ->excludes(rank_options.second);
  cmd.add_option("--world", o.world, "one process per GPU: the number of ranks")->check(CLI::Range(1, 65536));
  cmd.add_option("--rendezvous", o.rendezvous,
                 "one process per GPU: an empty directory every rank can read, where they exchange the NCCL id, or "
                 "rank 0's address as tcp://HOST:PORT");
}

bool checked_process_rank(const CLI::App& cmd, ProcessRankOptions& o) {
  if (!cmd.count("--rank") && !cmd.count("--world")) {
    // Started by mpirun, srun or torchrun: the launcher's environment says which rank this is.
    const auto launched = launched_rank([](const char* name) { return std::getenv(name); });
    if (!launched) {
      if (cmd.count("--rendezvous"))
        throw UsageError("--rank, --world and --rendezvous go together: give all three (one process per GPU)");
      return false;
    }
    o.rank = launched->rank;
    o.world = launched->world;
    o.launcher = launched->launcher;
    o.local_rank = launched->local_rank;
    o.local_world = launched->local_world;
    std::string no_mpi;
    if (!cmd.count("--rendezvous")) o.rendezvous = launched_rendezvous(*launched, no_mpi);
    if (o.rendezvous.empty())
      throw UsageError(fmt::format("rank {} of {} was started by {} but the ranks have nowhere to meet{}; export "
                                   "MASTER_ADDR and MASTER_PORT (rank 0's host and a free port) or give --rendezvous DIR",
                                   o.rank, o.world, o.launcher, no_mpi.empty() ? "" : " (" + no_mpi + ")"));
  } else if (!cmd.count("--rank") || !cmd.count("--world") || !cmd.count("--rendezvous")) {
    throw UsageError("--rank, --world and --rendezvous go together: give all three (one process per GPU)");
  }
  if (o.rank >= o.world)
    throw UsageError(fmt::format("--rank {} is not below --world {}; ranks are 0..{}", o.rank, o.world, o.world - 1));
  if (!is_tcp_rendezvous(o.rendezvous) && !std::filesystem::is_directory(o.rendezvous))
    throw UsageError(fmt::format("--rendezvous {} is not a directory; make an empty one that every rank can read, or "
                                 "give rank 0's address as tcp://HOST:PORT",
                                 o.rendezvous));
  return true;
}

int launched_device(const ProcessRankOptions& o) {
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible <= 0) {
    (void)cudaGetLastError();
    return 0;  // the run's own device check names the missing GPU
  }
  return launched_rank_device(o.launcher, o.local_rank, o.local_world, visible,
                              std::getenv("CUDA_VISIBLE_DEVICES") == nullptr);
}

void add_memory_options(CLI::App& cmd, MemoryOptions& o) {
  cmd.add_option("--placement", o.placement,
                 "where the input lives while GPU algorithms sort it: gpu, host (pinned host memory, streamed "
                 "through the GPU in chunks; the timing includes the link), or auto (gpu where it fits, else host)")
      ->check(CLI::IsMember({"auto", "gpu", "host"}))
      ->capture_default_str();
  cmd.add_option("--gpu-memory-limit", o.gpu_memory_limit,
                 "the GPU memory every algorithm may use, e.g. 8G (suffixes as -n); an input that needs more "
                 "streams from host memory");
}

std::optional<PlacementKind> parsed_placement(const MemoryOptions& o) {
  if (o.placement == "gpu") return PlacementKind::device;
  if (o.placement == "host") return PlacementKind::streamed;
  return std::nullopt;
}

std::uint64_t parsed_memory_limit(const MemoryOptions& o) {
  if (o.gpu_memory_limit.empty()) return 0;
  const std::uint64_t bytes = parse_count(o.gpu_memory_limit, "--gpu-memory-limit");
  if (bytes == 0) throw UsageError("--gpu-memory-limit 0 leaves no GPU memory; give a size such as 8G, or drop it");
  return bytes;
}

void add_host_memory_options(CLI::App& cmd, MemoryOptions& o, const std::string& holds, const std::string& tmp_default) {
  cmd.add_option("--host-memory-limit", o.host_memory_limit,
                 fmt::format("the host memory {} may hold, e.g. 4G: the external sort's runs go to --tmp-dir past it "
                             "(default: the memory available)",
                             holds));
  cmd.add_option("--tmp-dir", o.tmp_dir,
                 fmt::format("the folder for sorted runs past --host-memory-limit (default: {})", tmp_default));
}

std::uint64_t parsed_host_memory_limit(const MemoryOptions& o) {
  if (o.host_memory_limit.empty()) return 0;
  const std::uint64_t bytes = parse_count(o.host_memory_limit, "--host-memory-limit");
  if (bytes == 0) throw UsageError("--host-memory-limit 0 leaves no host memory; give a size such as 4G, or drop it");
  return bytes;
}

void add_renamed_option(CLI::App& cmd, const std::string& old_name, const std::string& new_name) {
  // A ParseError rather than a failed check: a check's message is prefixed with the option's
  // name, which a hidden option does not have.
  cmd.add_option(old_name)
      ->group("")  // hidden from --help
      ->each([old_name, new_name](const std::string&) {
        throw CLI::ParseError(old_name + " was renamed; give " + new_name + " instead",
                              CLI::ExitCodes::ValidationError);
      });
}

std::string joined_command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.find_first_of(" \t'\"") != std::string::npos) arg = "'" + arg + "'";
    out += (i ? " " : "") + arg;
  }
  return out;
}
void set_command_line(std::string line) { g_command_line = std::move(line); }
const std::string& command_line() { return g_command_line; }

}  // namespace sb::cli
