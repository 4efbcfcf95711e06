// Writing a key column too large to hold whole (issue 37 item 5: `gen -o` of inputs past host or
// GPU memory): the column is made a chunk at a time by the caller (a generated slice on the CPU or
// the GPU, a range of a device column) and appended to the file while the next chunk is made, so
// memory holds two chunks, never the column. The file is written under a temporary name and
// renamed when complete (core/temp_files.hpp), with a progress line for long writes. The bytes are
// those write_column writes for the same column: chunking changes how it is written, not what.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sortbench/core/key_facts.hpp"
#include "sortbench/core/types.hpp"
#include "sortbench/sink/column_writer.hpp"
#include "sortbench/input/input_source.hpp"

namespace sb {

// 64 MiB: large enough that a chunk's write streams at the disk's rate, small enough that the two
// in flight are nothing beside the inputs this is for.
inline constexpr std::uint64_t kWriteChunkBytes = std::uint64_t{64} << 20;

struct ChunkedWriteOptions {
  FileFormat format = FileFormat::raw;
  // Rounded down to whole keys, at least one key a chunk (tests force tiny chunks).
  std::uint64_t chunk_bytes = kWriteChunkBytes;
  // The progress line's label ("gen"); empty: no progress line.
  std::string progress_label;
};

// Elements [first, first + count) of the column into host memory `keys` (count * key_bytes).
using FillKeys = std::function<void(std::uint64_t first, std::uint64_t count, void* keys)>;

struct ChunkedWriteResult {
  std::uint64_t file_bytes = 0;
  // n, min and max (also ordered), integral: what one pass over the chunks tells. len stays 0:
  // counting distinct keys needs the whole column at once, which is what this avoids.
  KeyFacts bounds;
};

// Writes n keys of type key to `path` chunk by chunk: fill is called for each chunk in order on
// the caller's thread (its current GPU stays the one it fills on), while a second thread writes
// the chunk before. Throws Error(output) naming `path` on a write failure, leaving no file
// behind; an exception from fill likewise leaves none.
ChunkedWriteResult write_keys_chunked(const std::string& path, KeyType key, std::uint64_t n, const FillKeys& fill,
                                      const ChunkedWriteOptions& options = {});

// A source's key column, read slice by slice (InputSource::read_range): the generator makes each
// slice on the CPU. Sources that cannot be sliced (a sorted distribution) throw UsageError.
ChunkedWriteResult write_source_keys(const InputSource& source, const std::string& path,
                                     const ChunkedWriteOptions& options = {});

}  // namespace sb
