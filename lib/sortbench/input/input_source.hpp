// Where a run's input comes from (docs/architecture.md, "One pipeline"): the generator is one
// source, a user's file another. A source knows its element type and length, fills host or
// device buffers, gives a slice of itself (a rank's shard, a streamed chunk), and describes its
// own provenance for the JSON, so placements, the verifier and the writers need not know which
// kind they were given.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/input/input_params.hpp"

namespace sb {

class InputSource {
 public:
  virtual ~InputSource() = default;
  // n, key type and payload; for the generator, every parameter it was asked for.
  virtual const InputSpec& spec() const = 0;
  // Which range mode a run uses unless told: given for the generator (as the papers run),
  // measured for a file (nobody hands a user's sort its range).
  virtual RangeMode default_range() const = 0;
  // The value column holds data (a --values file) rather than names of input positions:
  // the verifier then checks (key, value) pairs (verify.hpp).
  virtual bool values_are_data() const { return false; }
  // keys: n * key_bytes, vals: n * payload_bytes (null without a payload).
  virtual void fill_host(void* keys, void* vals) const = 0;
  virtual void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const = 0;
  // {"kind": "generator", ...} or {"kind": "file", "path", "bytes", "hash", "format", "dtype"}.
  virtual nlohmann::json provenance() const = 0;
  // Facts the source measured itself (files: the fraction of ascending neighbours).
  virtual std::optional<double> sortedness() const { return std::nullopt; }
  // Its parameters (bounds, distinct count) are what is measured on it (a file), not what
  // was asked for (the generator).
  virtual bool parameters_measured() const { return false; }

  // Elements [begin, begin + count) as a source of their own, filled without the rest: the
  // generator makes just those keys (and the values of those positions); a file reads just
  // that part. Throws UsageError where it cannot (why_no_shards says why beforehand).
  virtual std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const = 0;
  // Why this input cannot be split over ranks, or nullopt.
  virtual std::optional<std::string> why_no_shards() const { return std::nullopt; }
  // Rank `rank` of `world`'s part (core/slices.hpp's even split).
  std::shared_ptr<const InputSource> shard(int rank, int world) const;
  // Elements [first, first + count) into host memory (keys; vals with a payload, else null):
  // how a streamed placement reads an input chunk by chunk, as often as an algorithm's passes need.
  void read_range(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const;

 protected:
  // A slice's bounds inside n elements (std::logic_error otherwise: the caller's arithmetic).
  static void check_slice(std::uint64_t begin, std::uint64_t count, std::uint64_t n);
};

// The generator as a source; its provenance is its whole description: what was asked for
// (request) and what it derived (spec), as "parameters".
std::shared_ptr<const InputSource> make_generated_source(const InputSpec& spec, const InputRequest& request = {});

// Columns the caller holds in host memory (a test's vectors, a NumPy array): n keys of the
// shape's type and, with a payload, its value column (data: the verifier checks the pairs).
// The memory must outlive the source; nothing is copied until a placement fills from it.
std::shared_ptr<const InputSource> make_array_source(const InputShape& shape, const void* keys, const void* vals);

// Key values and bounds span [-2^63, 2^64]: a JSON integer where one fits, else (only the
// u64 domain's exclusive bound 2^64) the number as a double, which holds it exactly.
nlohmann::json wide_json(wide_t v);
wide_t wide_from_json(const nlohmann::json& j);

// What run --input / sort read: the key file, an optional value file of the same length,
// and the payload (none, index, or generated u32/u64 when there is no value file).
struct FileInputRequest {
  FileRequest keys;
  std::optional<FileRequest> values;
  std::optional<Payload> payload;  // absent: none, or the value file's width
  // The payload names input positions (argsort): index up to 2^32 keys, u64 past them.
  bool positions = false;
};

// How a file source reads its file.
enum class FileReading {
  // Once, into host memory (pinned from alloc when a GPU will copy it), measured as it is read
  // (content hash, sortedness): a benchmark places the same columns again and again.
  into_memory,
  // Only the headers up front (probe_column); every fill reads the file again, chunk by chunk,
  // straight into its destination (through a small pinned ring into the GPU), never a host
  // buffer of the file's size: a one-off sort.
  streamed,
};

// A source read from files, which can say what its columns are.
class FileInputSource : public InputSource {
 public:
  virtual const ColumnInfo& keys_column() const = 0;
  virtual const ColumnInfo* values_column() const = 0;  // null without a value file
};

// Throws UsageError for every problem with the files: NaN keys (count and first position; a
// streamed source finds them when it is filled), lengths that differ, a payload that does not
// fit the value file.
std::shared_ptr<const FileInputSource> make_file_source(const FileInputRequest& request, HostAllocator alloc = {},
                                                        FileReading reading = FileReading::into_memory);

// cudaMallocHost / cudaFreeHost (core/host_memory.hpp: a failure is Error(device_memory) with the
// bytes needed and available): only call when a GPU is present.
HostAllocator pinned_host_allocator();

// The fraction of adjacent pairs in ascending (non-decreasing) order; 1 for n < 2.
double sortedness_of(KeyType key, const void* keys, std::uint64_t n);

}  // namespace sb
