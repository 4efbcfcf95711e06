// The streamed placement's contract (design.md round 3, "out-of-core"): an input larger than the
// GPU stays where it is, in host memory or a file larger than host memory, and a streamed
// algorithm reads it in chunks over as many passes as it needs, may ask for host scratch, and
// writes its sorted output in chunks. The placement side (measure/) builds the reader from the
// session's source (InputSource::read_range), the writer from its output sink, and enforces the
// GPU memory limit; the algorithm owns the chunk plan, its copies and its streams.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "sortbench/core/device_context.hpp"

namespace sb {

// The input, read in any order and as often as needed.
class ChunkReader {
 public:
  virtual ~ChunkReader() = default;
  virtual std::uint64_t size() const = 0;  // elements
  // Elements [first, first + count) into host memory: keys, and the value column where the input
  // has a payload (vals null otherwise). Pinned destinations let the caller copy them on.
  virtual void read(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const = 0;
};

// The sorted output, written in any order of chunks, each element once.
class ChunkWriter {
 public:
  virtual ~ChunkWriter() = default;
  // Sorted elements [first, first + count) from host memory.
  virtual void write(std::uint64_t first, std::uint64_t count, const void* keys, const void* vals) = 0;
};

// What one streamed run gets: all the device memory it may use (the session's GPU memory
// limit, allocated once, outside timing) and the host scratch it asked for (pinned).
struct StreamedBuffers {
  const ChunkReader* input = nullptr;
  ChunkWriter* output = nullptr;
  void* device_memory = nullptr;
  std::size_t device_bytes = 0;
  void* host_scratch = nullptr;
  std::size_t host_scratch_bytes = 0;
  cudaStream_t stream = nullptr;  // the run's main stream; an algorithm makes its copy streams in prepare
  const DeviceContext* device = nullptr;
};

}  // namespace sb
