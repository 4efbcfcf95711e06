// Command-line plumbing shared by the subcommands: option structs, their CLI11 wiring and
// their translation into lib/ types. Parsing only; the work happens in lib/.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sortbench/session/session.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/report/report.hpp"

namespace sb::cli {

struct InputOptions {
  std::string n, min_val, max_val, len;
  double delta = 0, sigma = 0, entropy = 1;
  std::string dist = "uniform", key = "u32", payload = "none";
  std::uint64_t seed = 1;
};
void add_input_options(CLI::App& cmd, InputOptions& o);
InputRequest to_request(const CLI::App& cmd, const InputOptions& o);

// A user's file (run --input, sort): how to read it.
struct FileOptions {
  std::string format, column, values;
  std::string offset;
  bool header = false, no_header = false;  // text: line 1 names the columns, or is data
};
void add_file_options(CLI::App& cmd, FileOptions& o);
// The request for path, with --key when given on cmd; role names the option in messages.
FileRequest to_file_request(const CLI::App& cmd, const FileOptions& o, const std::string& path,
                            const std::string& key_text, const std::string& role);

// Who does the work and where the data lives (docs/usage.md "One spelling per idea"): each has one
// definition here, so every subcommand that takes it spells, explains and checks it alike.
struct DeviceOptions {
  std::string backend = "gpu";  // --backend: who sorts (gen: who generates), gpu or cpu
  int device = 0;               // --device: the GPU of single-GPU work
  int gpus = 0;                 // --gpus N: one rank on each of GPUs 0..N-1 (distributed algorithms)
  std::vector<int> devices;     // --devices 0,2: one rank on each listed GPU
};
void add_backend_option(CLI::App& cmd, DeviceOptions& o);
CLI::Option* add_device_option(CLI::App& cmd, DeviceOptions& o);
// --gpus and --devices, each excluding the other; returns both (for further excludes).
std::pair<CLI::Option*, CLI::Option*> add_rank_options(CLI::App& cmd, DeviceOptions& o);
// The backend, after the checks every subcommand shares: with --backend cpu, no GPU option may
// be given (it would be ignored). Throws UsageError.
Backend checked_backend(const CLI::App& cmd, const DeviceOptions& o);
// Makes --device the current GPU after checking it names one (UsageError listing the GPUs
// there are; Error(no_device) without any).
void use_device_option(const DeviceOptions& o);
// The ranks of a distributed algorithm: --devices, else GPUs 0..--gpus-1, else one on --device.
std::vector<int> rank_devices(const DeviceOptions& o);

// One process per GPU (docs/distributed.md): --rank, --world and --rendezvous, which exclude
// --gpus and --devices (run; sort since issue 38).
struct ProcessRankOptions {
  int rank = -1, world = 0;
  std::string rendezvous;  // where the processes' ranks meet: a directory, or tcp://HOST:PORT
  // Filled by checked_process_rank where a launcher (mpirun, srun, torchrun) started this process
  // and none of the three options was given (place/launch_env.hpp).
  std::string launcher;
  int local_rank = -1;
  int local_world = 0;  // the launcher's ranks on this node (0: it does not say)
};
void add_process_rank_options(CLI::App& cmd, ProcessRankOptions& o, std::pair<CLI::Option*, CLI::Option*> rank_options);
// Whether this process is one rank of several, after checking that the three options go together
// and name a rank below the world and an existing directory or a tcp:// address (UsageError);
// without them, whether a launcher's environment makes it one (o's rank, world, rendezvous,
// launcher and local_rank filled from it).
bool checked_process_rank(const CLI::App& cmd, ProcessRankOptions& o);
// The GPU a launched rank takes: its rank on the node, among the GPUs this process sees
// (UsageError where the node has more ranks than GPUs; place/launch_env.hpp).
int launched_device(const ProcessRankOptions& o);

// Where the input lives (issue 37): --placement auto|gpu|host and --gpu-memory-limit SIZE.
struct MemoryOptions {
  std::string placement = "auto";
  std::string gpu_memory_limit;  // bytes with -n's suffixes (8G, 2^33); empty: no limit
  std::string host_memory_limit;  // the same for host memory (issue 52)
  std::string tmp_dir;            // where the external sort's runs go past it
};
void add_memory_options(CLI::App& cmd, MemoryOptions& o);
// --host-memory-limit and --tmp-dir; `holds` says what the limit bounds, `tmp_default` the folder
// the runs take without --tmp-dir.
void add_host_memory_options(CLI::App& cmd, MemoryOptions& o, const std::string& holds, const std::string& tmp_default);
// The placement asked for (absent: automatic) and the limits in bytes (0: none). UsageError for bad text.
std::optional<PlacementKind> parsed_placement(const MemoryOptions& o);
std::uint64_t parsed_memory_limit(const MemoryOptions& o);
std::uint64_t parsed_host_memory_limit(const MemoryOptions& o);

// An option's old spelling, kept hidden: given, it fails the parse (exit 2) with one line
// naming the new one.
void add_renamed_option(CLI::App& cmd, const std::string& old_name, const std::string& new_name);

// Each subcommand: wire its options, and a function that runs it (returns the exit code).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
Command add_list(CLI::App& app);
Command add_info(CLI::App& app);
Command add_gen(CLI::App& app);
Command add_run(CLI::App& app);
Command add_sweep(CLI::App& app);
Command add_tune(CLI::App& app);
Command add_compare(CLI::App& app);
Command add_sort(CLI::App& app);

// The command line as typed, for the context block.
std::string joined_command_line(int argc, char** argv);
void set_command_line(std::string line);
const std::string& command_line();

}  // namespace sb::cli
