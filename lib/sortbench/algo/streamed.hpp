// The streamed placement's contract (docs/architecture.md, "Out of core"; issue 37): an input larger
// than the GPU stays where it is, in pinned host memory or in a file larger than host memory, and
// a streamed algorithm reads it in chunks over as many passes as it needs and writes its sorted
// output in chunks. The placement (place/streamed_placement) fills the host columns or builds
// the reader from the session's source, the writer from its output sink, and allocates the GPU
// memory the session's limit allows; the algorithm owns the chunk plan, its copies and streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include <cuda_runtime_api.h>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/algo/run_store.hpp"
#include "sortbench/core/device_context.hpp"

namespace sb {

// The input read in chunks, in any order and as often as needed (a file that is not in host
// memory). Destinations are host memory; pinned ones let the caller copy them on.
class ChunkReader {
 public:
  virtual ~ChunkReader() = default;
  // Elements [first, first + count): keys, and the value column where the input has a payload
  // (vals null otherwise). Throws Error(usage) when the file changed or ended early.
  virtual void read(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const = 0;
};

// The sorted output, written in order of chunks, each element once.
class ChunkWriter {
 public:
  virtual ~ChunkWriter() = default;
  virtual void write(std::uint64_t first, std::uint64_t count, const void* keys, const void* vals) = 0;
};

// What one streamed run gets. Resident: the input columns are in pinned host memory
// (keys[0]/vals[0]; an algorithm may overwrite them) beside an output of the same size
// (keys[1]/vals[1]), and run_streamed returns which of the two holds the result. Not resident
// (a file, read once, whatever its size): keys[] are null, the input comes from `input` and the
// result goes to `output`, through the algorithm's pinned host_scratch; a sort that needs its
// runs between two passes keeps them in a RunStore under `runs` (issue 52).
struct StreamedBuffers {
  std::uint64_t n = 0;
  void* keys[2] = {nullptr, nullptr};
  void* vals[2] = {nullptr, nullptr};
  const ChunkReader* input = nullptr;
  ChunkWriter* output = nullptr;
  // All the GPU memory the run may use (the session's limit, allocated once, outside timing).
  void* device_memory = nullptr;
  std::size_t device_bytes = 0;
  // Pinned host memory for staging chunks when not resident (host_scratch_bytes asked for it).
  void* host_scratch = nullptr;
  std::size_t host_scratch_bytes = 0;
  // Not resident: what a sort that keeps runs between its passes may take for them (RunStore).
  RunSpace runs;
  cudaStream_t stream = nullptr;  // the run's stream: every copy and kernel is joined into it at the end
  const DeviceContext* device = nullptr;
  // Called with the bytes that crossed the link since the last call and all the pass (or the run)
  // will move (a progress meter).
  std::function<void(std::uint64_t bytes, std::uint64_t total)> progress;
  // Optional: a run of several passes names each as it starts ("runs", "select", "buckets"), so
  // that the report times each and the progress meter shows each. Null: one phase.
  std::function<void(const char* pass)> begin_pass;
  // Not resident, the file read once (issue 52): the facts were not learned before the run, so
  // KeyFacts holds the key type's whole domain. The run hands every input chunk, once it is on
  // the device, to input_seen in its stream's order (the placement's fingerprint and bounds), and
  // learned_facts(), after the last, gives the input's own facts. Null: the facts are the input's.
  std::function<void(const void* keys, const void* vals, std::uint64_t count)> input_seen;
  std::function<KeyFacts()> learned_facts;
  // Not resident, optional: the run hands each piece of its result, in output order, to
  // output_seen while it is still on the device (in its stream's order), before it goes to
  // `output`; the placement verifies it there instead of copying it back up from the writer's.
  std::function<void(const void* keys, const void* vals, std::uint64_t count)> output_seen;
  bool resident() const { return keys[0] != nullptr; }
};

}  // namespace sb
