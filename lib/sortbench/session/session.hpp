// The one pipeline every path shares (docs/architecture.md, "One pipeline"):
//   source -> placement -> key facts -> [timed: run] -> verify -> sink
// A Session places its source once (placement.hpp: host or one device; the ranks placement per
// distributed row), learns the input's key facts, and runs algorithms on it one at a time, each
// through the one measurement loop (measure.hpp) and the one verifier. Its rows go to a report
// sink (RowSink: `run`, `sweep`); the last run's sorted columns can go to an output sink
// (placement.hpp's OutputSink: `sort`'s file, a test's arrays). `run` is run_benchmark below;
// `sort` is a Session with a single run and a file sink (suite/sort_file.hpp); the GPU tests run
// algorithms through a Session too (tests/support).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/timing/measure.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/place/placement.hpp"
#include "sortbench/timing/result_row.hpp"
#include "sortbench/place/streamed_placement.hpp"

namespace sb {

// Where the rows go, as they are made.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void input_ready(const InputSpec&, const KeyFacts&) {}
  virtual void row_started(const Algorithm&) {}
  virtual void row_done(const ResultRow&) {}
  // The input stays in host memory and streams through the GPU: why (one line, empty when the
  // user asked for it) and the link's measured rates.
  virtual void streamed(const std::string& /*why*/, const LinkRates&) {}
};

// Where the input lives while single-GPU and CPU algorithms run on it: host memory for CPU
// algorithms alone; one GPU; host memory streamed through the GPU (streamed_placement.hpp);
// or the GPU where the input fits there, else streamed (automatic).
enum class PlacementKind { host, device, streamed, automatic };

struct SessionOptions {
  PlacementKind placement = PlacementKind::device;
  // Samples restore the input from a pristine copy (a benchmark); off: one run on the placed
  // input itself (sort; DevicePlacementOptions::repeated).
  bool repeated = true;
  bool count_distinct = true;          // the key facts include the distinct count
  std::optional<KeyFacts> given_facts; // stated by the caller instead of measured (device placement)
  std::optional<RangeMode> range;      // absent: the source's default
  InputRequest request;                // what the user asked the generator for (rows record it)
  std::shared_ptr<const NvmlDevice> nvml;
  double copy_bandwidth_gbs = 0;
  PhaseLog* phases = nullptr;          // the untimed steps' wall times (sort's phases)
  // A single device run on the caller's own buffers, the result left in them (the Python face's
  // device arrays; DevicePlacementOptions::adopt); drain is then not needed.
  std::optional<AdoptedColumns> adopt;
  bool verify = true;                  // off: a single run keeps no copy for the verifier
  // The GPU memory every algorithm may use, in bytes; 0: what is free. Below the input's needs,
  // an automatic placement streams.
  std::uint64_t gpu_memory_limit = 0;
  // Streamed, single run: the result goes to this sink as it is made (a file larger than host
  // memory), instead of pinned host columns that drain() hands on.
  OutputSink* stream_to = nullptr;
  // Streamed (issue 52): the host memory the process may hold (0: what is available) and the
  // folder for sorted runs past it (StreamedPlacementOptions); a run whose input and output
  // columns do not fit under it streams from its source, each row reading it in chunks.
  std::uint64_t host_memory_limit = 0;
  std::string tmp_dir = ".";
  // Streamed to a sink: whether the sort needs the facts before its run
  // (StreamedPlacementOptions::facts_first; null: it does).
  std::function<bool(double least_range, std::uint64_t allowance)> facts_first;
  // An automatic placement fits the GPU only with this much workspace beside the input's copies
  // (DeviceFit::workspace; a single sort's: what the sort that takes every input needs).
  std::uint64_t fit_workspace_bytes = 0;
  // A device placement that does not fit leaves the session without one (only distributed rows
  // can run; the others say why) instead of failing it.
  bool allow_unplaced = false;
  // Every row is distributed: a generated input is never placed on one GPU (each rank makes its
  // slice, and the ranks agree on min and max over NCCL), so the session's facts are the spec's
  // until the first distributed row reports the measured ones.
  bool distributed_only = false;
  // Distributed rows: one rank per listed GPU (none: one rank on the session's GPU), or one
  // process per GPU meeting in a rendezvous directory or at rank 0's tcp:// address.
  std::vector<int> devices;
  int process_rank = -1;
  int process_world = 0;
  std::string rendezvous;
  std::string launcher;  // DistributedRequest::launcher
};

class Session {
 public:
  // Places the source and learns its key facts. Throws Error(no_device) for a device placement
  // where no GPU answers, Error(device_memory) when it does not fit (unless allow_unplaced).
  Session(std::shared_ptr<const InputSource> source, SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The input's description (a file's: with its measured bounds and distinct count) and facts.
  const InputSpec& spec() const;
  const KeyFacts& facts() const;
  const InputSource& source() const;
  // One algorithm: its support checks, then timed samples under the settings' stop rule on its
  // placement, then verification. A failing algorithm becomes a row, not a throw; the row goes
  // to rows (when given) before run returns or throws. Throws UsageError for bad parameters and
  // Error(cuda) when the CUDA context becomes unusable.
  ResultRow run(const Algorithm& algo, const MeasureSettings& settings, const Params& params,
                RowSink* rows = nullptr);
  // The sorted columns of the last run (untimed), which must have passed verification.
  void drain(OutputSink& sink) const;
  // The last run was verified on the GPU (not on a host copy, nor by a CPU algorithm).
  bool verified_on_device() const;
  // The input streams through the GPU (streamed_placement.hpp), and why when it was not asked for.
  bool streamed() const;
  const std::string& streamed_because() const;
  const LinkRates& link() const;  // measured by the streamed placement
  // The GPU memory an algorithm may use: streamed, all of it; placed on the device, its
  // workspace beside the input's copies.
  std::uint64_t device_allowance() const;
  // The context of the GPU the input is on (placed or streamed), its profile with it; null on
  // the host.
  const DeviceContext* device_context() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct RunPlan {
  InputRequest request;  // the generator's parameters, when source is null
  std::shared_ptr<const InputSource> source;  // null: generated from request
  std::optional<RangeMode> range;             // absent: the source's default
  std::vector<const Algorithm*> algorithms;
  MeasureSettings settings;
  Params params;
  double copy_bandwidth_gbs = 0;  // for bandwidth_pct; 0 leaves it unset
  // The GPU's NVML device (clocks, throttling, energy); null: run_benchmark opens its own, and
  // runs without those where NVML is absent.
  std::shared_ptr<const NvmlDevice> nvml;
  std::optional<PlacementKind> placement;  // absent: automatic where a GPU algorithm runs
  std::uint64_t gpu_memory_limit = 0;     // SessionOptions::gpu_memory_limit
  // The host memory a streamed run may hold (0: what is available), and where ooc-sort's runs go
  // past it: past it the input is read from its source in chunks by each streamed row (issue 52).
  std::uint64_t host_memory_limit = 0;
  std::string tmp_dir = ".";
  std::vector<int> devices;       // distributed algorithms: one rank per listed GPU
  int process_rank = -1;          // one process per GPU: this process's rank (devices[0]) ...
  int process_world = 0;          // ... of this many
  std::string rendezvous;         // ... meeting in this directory (or at this tcp:// address)
  std::string launcher;           // ... started by this launcher (empty: by hand)
};

// `run`: one Session, every algorithm of the plan on its input, each row to the sink. Throws
// UsageError for bad parameters, Error(no_device) when GPU algorithms are selected and no device
// answers, Error(device_memory) when the input does not fit, Error(cuda) when the CUDA context
// becomes unusable. A failing algorithm becomes a row, not a throw.
std::vector<ResultRow> run_benchmark(const RunPlan& plan, RowSink* sink = nullptr);

// "--energy reads NVML's total-energy counter, but NVML is absent here; drop --energy"
std::string energy_unavailable_message(const std::string& why);

}  // namespace sb
