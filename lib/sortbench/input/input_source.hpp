// Where a run's input comes from (design.md item 2): the generator is one source, a user's
// file another. A source knows its element type, fills host or device buffers, and
// describes its own provenance for the JSON, so the harness, verifier and writers need not
// know which kind they were given.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

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
};

// The generator as a source; its provenance is its whole description: what was asked for
// (request) and what it derived (spec), as "parameters".
std::shared_ptr<const InputSource> make_generated_source(const InputSpec& spec, const InputRequest& request = {});

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
};

// Reads the files (into memory from alloc: pinned when a GPU will copy it). Throws
// UsageError for every problem with them: NaN keys (count and first position), lengths
// that differ, a payload that does not fit the value file.
std::shared_ptr<const InputSource> make_file_source(const FileInputRequest& request, HostAllocator alloc = {});

// cudaMallocHost / cudaFreeHost: only call when a GPU is present.
HostAllocator pinned_host_allocator();

// The fraction of adjacent pairs in ascending (non-decreasing) order; 1 for n < 2.
double sortedness_of(KeyType key, const void* keys, std::uint64_t n);

}  // namespace sb
