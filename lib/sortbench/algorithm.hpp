// The algorithm interface, CUB's two-phase shape: the harness asks for the workspace size,
// allocates it once outside timing, then calls run on a stream. run neither allocates nor
// synchronizes; the harness owns allocation, timing and verification.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "sortbench/generator.hpp"
#include "sortbench/input_spec.hpp"
#include "sortbench/types.hpp"

namespace sb {

// Algorithm parameters from the command line (--param name=value, --radix-bits N).
using Params = std::map<std::string, std::string>;
// Facts about one run to record with its result, e.g. the variant hp-auto chose.
using Details = std::vector<std::pair<std::string, std::string>>;

// What an algorithm knows about its input before it runs.
struct SortProblem {
  InputSpec spec;       // n, [min_val, max_val), range, len, distribution, key type, payload
  InputStats realized;  // measured on the generated keys: min, max, distinct count
  Params params;        // only those the algorithm declares

  std::uint64_t n() const { return spec.n; }
  bool has_payload() const { return spec.payload == Payload::index; }
  bool keys_distinct() const { return realized.len == spec.n; }
  // An integer parameter, or fallback when absent. Throws UsageError when not an integer.
  long param_int(const std::string& name, long fallback) const;
};

// Device buffers of one run. keys[0] (and vals[0]) hold the input; keys[1] (vals[1]) are
// scratch of the same size; both may be overwritten. vals[] are null without a payload.
struct DeviceBuffers {
  void* keys[2] = {nullptr, nullptr};
  index_t* vals[2] = {nullptr, nullptr};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

// Host buffers of one CPU run: sorted in place.
struct HostBuffers {
  void* keys = nullptr;
  index_t* vals = nullptr;
};

struct Algorithm {
  std::string name;         // registry key, e.g. "cub-radix"
  std::string family;       // the kernels/ folder, e.g. "baselines"
  Backend backend = Backend::gpu;
  std::vector<KeyType> key_types;
  bool payload = false;     // sorts an index payload along with the keys
  bool stable = false;      // equal keys keep their input order (checked when a payload is present)
  std::string constraints;  // e.g. "distinct keys only"; empty when none
  std::string source;       // the seed, paper section or library it implements
  std::vector<std::string> params;  // names of the --param values it reads

  // Why this input cannot be taken (a one-line reason), or nullopt. Key type and payload
  // support are checked by the harness first; this covers the rest (e.g. duplicates).
  std::function<std::optional<std::string>(const SortProblem&)> unsupported;
  std::function<std::size_t(const SortProblem&)> workspace_bytes;
  // GPU: sorts, returns which of keys[]/vals[] (0 or 1) holds the result.
  std::function<int(const SortProblem&, const DeviceBuffers&)> run_device;
  // CPU: sorts HostBuffers in place.
  std::function<void(const SortProblem&, const HostBuffers&)> run_host;
  std::function<Details(const SortProblem&)> details;

  bool supports_key(KeyType k) const;
  // The harness's own checks (key type, payload) followed by unsupported().
  std::optional<std::string> why_unsupported(const SortProblem& p) const;
};

}  // namespace sb
