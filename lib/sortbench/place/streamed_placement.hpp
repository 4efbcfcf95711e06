// The streamed placement (placement.hpp; docs/architecture.md, "Out of core"; issue 37): the input
// stays in host memory, or in a file larger than host memory, and passes through the GPU in
// chunks. Resident: the input's columns are filled into pinned host memory once (untimed) beside
// an output of the same size, and every algorithm is timed from host memory to host memory, so
// the table compares like with like:
//   streamed GPU algorithms (kernels/outofcore) run in chunks under the GPU memory limit;
//   in-core GPU algorithms copy the input in, sort, and copy the result out, inside the timing,
//     where their buffers fit under the limit;
//   CPU algorithms sort a copy in host memory.
// Not resident (sort of a file, a single run): the source is read in chunks and the result
// written to the output sink as it is made; only streamed algorithms run, ooc-sort as the
// external sort with its runs in host memory under the limit, else in files (issue 52). Verification streams too (ChunkVerifier): the input's fingerprint when it is
// placed, the output's after each run. Every row records the bytes that crossed the link and,
// resident, the link's floor for them (link_limit_ms; not resident, sort probes no link).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/device/link_bandwidth.hpp"
#include "sortbench/timing/measure.hpp"
#include "sortbench/place/placement.hpp"
#include "sortbench/timing/result_row.hpp"

namespace sb {

struct StreamedPlacementOptions {
  // The GPU memory every algorithm may use, in bytes (--gpu-memory-limit); 0: the free memory.
  std::uint64_t gpu_memory_limit = 0;
  // Off: the input is read from the source in chunks and the result goes to `output` as it is
  // made (a single run a row; sort of a file, or a run whose input and output do not fit in host
  // memory, whose sink keeps nothing).
  bool resident = true;
  OutputSink* output = nullptr;  // not resident: where the result goes
  // The link's rates for the rows' floors (link_limit_ms): a run measures them; a sort, whose wall
  // time a second of probing would be part of, does not (issue 52).
  bool measure_link = true;
  // Not resident (issue 52): the host memory the process may hold (--host-memory-limit; 0: what is
  // available), and where sorted runs that do not fit under it go (--tmp-dir).
  std::uint64_t host_memory_limit = 0;
  std::string tmp_dir = ".";
  std::optional<KeyFacts> given_facts;
  // Not resident (issue 52: the file read once): given a lower bound on the keys' range (that of
  // the file's first keys) and the GPU memory the sort may use, whether the sort the caller will
  // run needs the exact facts before it starts (ooc-hp's histogram does; ooc-sort learns them in
  // its first pass). Null, or true: one pass learns them first, and the sort reads the file again.
  std::function<bool(double least_range, std::uint64_t allowance)> facts_first;
  PhaseLog* phases = nullptr;
  bool verify = true;
  bool progress = true;  // long passes print their progress (core/progress.hpp)
};

class StreamedPlacement {
 public:
  // Fills the host columns (resident), learns the key facts and the input's fingerprint, and
  // measures the link (resident). Throws Error(device_memory) naming host memory when the pinned columns
  // cannot be had.
  StreamedPlacement(const InputSource& source, StreamedPlacementOptions options);
  ~StreamedPlacement();
  StreamedPlacement(const StreamedPlacement&) = delete;
  StreamedPlacement& operator=(const StreamedPlacement&) = delete;

  // Not resident and read once: the key type's whole domain until the run has learned them.
  const KeyFacts& facts() const;
  // The facts come from the run (facts_first said no): facts() changes when it is done.
  bool facts_from_run() const;
  const DeviceContext& context() const;
  const LinkRates& link() const;
  // The GPU memory the algorithms may use.
  std::uint64_t device_allowance() const;
  void run(const Algorithm& algo, const SortProblem& problem, const MeasureSettings& settings, ResultRow& row);
  // The last run's output (resident), in chunks; not resident, the sink already has it.
  void drain(OutputSink& sink) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sb
