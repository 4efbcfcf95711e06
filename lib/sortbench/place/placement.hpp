// Placements (docs/architecture.md, "One pipeline"): where an input's bytes live while algorithms
// run on it, and how one algorithm is run, timed and verified there. A Session (session.hpp)
// places its source once, learns its key facts, and hands each algorithm to the placement:
//   HostPlacement    the input in host memory; CPU algorithms (steady-clock samples)
//   DevicePlacement  the input on one GPU; GPU algorithms (CUDA-event samples, L2 flushed)
//   ranks            rank_placement.hpp: the input's shards on one GPU each (NCCL)
//   streamed         streamed_placement.hpp: the input stays in host memory or a file larger
//                    than the GPU, and an algorithm reads it in chunks over several passes
//                    (algo/streamed.hpp is its contract)
// Each fills the row it is given (timing summaries, verification, details) and can hand the
// last run's sorted columns to an OutputSink, untimed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/timing/measure.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/timing/result_row.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {

// Where a placement hands a sorted result (untimed, after the last sample): the report needs
// none; `sort` writes files aside; a test or a Python caller keeps the arrays. Each wanted
// column arrives in order, in chunks of host memory valid only during the call.
class OutputSink {
 public:
  enum class Column { keys, values };
  virtual ~OutputSink() = default;
  virtual bool wants(Column column) const = 0;
  virtual void write(Column column, std::uint64_t first_byte, const unsigned char* data, std::uint64_t bytes) = 0;
};

// Wall times of a session's untimed steps, in order (`sort --json` reports them as its phases).
using PhaseLog = std::vector<std::pair<std::string, double>>;
// Appends the phase that began at t0_s (steady_now_s()) and ends now, where there is a log.
void log_phase(PhaseLog* phases, const char* phase, double t0_s);

// The input's columns in host memory.
struct HostColumns {
  std::vector<unsigned char> keys;
  std::vector<unsigned char> vals;
};

// Hands columns held in host memory to a sink, in order, in chunks of a pinned ring's slot.
void drain_columns(OutputSink& sink, const HostColumns& columns, bool with_values);

// Row helpers every placement shares: timing statistics into summaries, the discovery share of
// the samples, the verifier's verdict.
void finish_timing(ResultRow& row, const std::vector<double>& samples_ms, double copy_bandwidth_gbs);
void note_discovery(ResultRow& row, const std::vector<double>& discovery_ms);
void apply_verification(ResultRow& row, const VerifyReport& report);

class HostPlacement {
 public:
  // The source's columns read into host memory. phases: read, analyze, and a run's sort and verify.
  explicit HostPlacement(const InputSource& source, PhaseLog* phases = nullptr);
  // Columns already in host memory (a copy of a device placement's input).
  HostPlacement(const InputSource& source, HostColumns columns);
  const HostColumns& columns() const { return input_; }
  // Min, max and (count_distinct) the distinct count, measured on the columns.
  KeyFacts measure_facts(bool count_distinct) const;
  void run(const Algorithm& algo, const SortProblem& problem, const MeasureSettings& settings, ResultRow& row);
  // The last run's output.
  void drain(OutputSink& sink) const;

 private:
  InputShape shape_;
  bool values_are_data_ = false;
  PhaseLog* phases_ = nullptr;
  HostColumns input_, output_;
};

// Caller-owned device columns a single run sorts in place (the Python face's device arrays).
// keys becomes keys[0]; vals, when given, vals[0]. Argsort's positions (a payload that is not
// data) are made on the device in a buffer of the placement's, and decoded into positions as
// int64 after the sort. A result the algorithm leaves in keys[1]/vals[1] is copied back, device
// to device, so these always hold it. The placement's stream waits for producer's queued work
// with an event before it reads them, and producer waits for the run's end the same way.
struct AdoptedColumns {
  void* keys = nullptr;
  void* vals = nullptr;
  std::int64_t* positions = nullptr;
  cudaStream_t producer = nullptr;
};

struct DevicePlacementOptions {
  // Each sample restores the input from a pristine copy (a benchmark: three copies of the input
  // on the GPU). Off: one run sorts the placed input itself (sort: two copies), and the
  // verifier's copy of the input stays on the GPU where it fits, else in host memory.
  bool repeated = true;
  bool count_distinct = true;  // the key facts include the distinct count (a sort); off: min and max only
  std::optional<KeyFacts> given_facts;  // the caller states them (a test's hand-made keys): nothing is measured
  std::shared_ptr<const NvmlDevice> nvml;  // clocks, throttling, energy; null: none
  double copy_bandwidth_gbs = 0;           // for bandwidth_pct; 0 leaves it unset
  PhaseLog* phases = nullptr;              // read, host-to-device, analyze, and a run's verify
  // How to get out of a "does not fit" error, for its message.
  std::string fit_hint = "lower -n";
  // A single run on the caller's own device buffers (issue 39, zero copy; repeated off): they
  // are the input and the result's home, and the source is never read.
  std::optional<AdoptedColumns> adopt;
  // Off: no verification, so no copy of the input is kept for it (the caller asked).
  bool verify = true;
  // The GPU memory the placement and each algorithm may use together, in bytes; 0: what is free.
  std::uint64_t memory_limit = 0;
};

class DevicePlacement {
 public:
  // Places the source on the current device and learns its key facts. Throws
  // Error(device_memory) when the copies the options need do not fit.
  DevicePlacement(const InputSource& source, DevicePlacementOptions options);
  ~DevicePlacement();
  DevicePlacement(const DevicePlacement&) = delete;
  DevicePlacement& operator=(const DevicePlacement&) = delete;

  const KeyFacts& facts() const;
  // The GPU memory a sort's workspace may take beside the input's copies: what is free, or what
  // the --gpu-memory-limit leaves.
  std::uint64_t workspace_room() const;
  const DeviceContext& context() const;
  // Checks the workspace fits, prepares, samples under the settings' stop rule, verifies.
  void run(const Algorithm& algo, const SortProblem& problem, const MeasureSettings& settings, ResultRow& row);
  // The last run's output, downloaded through a small pinned ring while the sink writes.
  void drain(OutputSink& sink) const;
  // A single run's output is checked against a host copy of the input (no device copy fit).
  bool verifies_on_host() const;
  // The pristine input in host memory (for CPU algorithms on a GPU run), and what moving it to
  // the host and back costs with pageable memory: median of three round trips.
  HostColumns to_host() const;
  double transfer_ms(const HostColumns& host) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sb
