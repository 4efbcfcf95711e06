// The algorithm interface, CUB's two-phase shape: the harness asks for the workspace size,
// allocates it once outside timing, then calls run on a stream. run neither allocates nor
// synchronizes; the harness owns allocation, timing and verification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "sortbench/core/device_context.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/key_facts.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

// Algorithm parameters from the command line (--param name=value, --radix-bits N).
using Params = std::map<std::string, std::string>;
// Facts about one run to record with its result, e.g. the variant hp-auto chose.
using Details = std::vector<std::pair<std::string, std::string>>;

// A sort over several GPUs, one rank each (algo/ranks.hpp; built only where NCCL is).
struct RankAlgorithm;
// What a streamed (out-of-core) run gets (algo/streamed.hpp).
struct StreamedBuffers;
// What a streamed run did: where its result is (resident: 0 the input's columns, 1 the
// output's; not resident: already written to the output writer), the bytes that crossed the
// link, and what else the row should record.
struct StreamedOutcome {
  int result = 1;
  std::uint64_t bytes_over_link = 0;
  std::vector<std::pair<std::string, std::string>> details;
};

// What an algorithm knows about its input before it runs.
// Where the input came from (generator, file, a caller's array) is the source's business: an
// algorithm sees the shape of its columns and the facts about its keys.
struct SortProblem {
  InputShape shape;  // n, key type, payload
  KeyFacts facts;    // min, max, distinct count: given with the input, or discovered (range)
  Params params;     // only those the algorithm declares
  RangeMode range = RangeMode::given;  // measured: the harness discovers min/max in the timed region
  // The device it will run on, when known: launch shapes, workspace sizes and support checks
  // that depend on the GPU read it here (null: an algorithm queries the current device).
  const DeviceContext* device = nullptr;

  std::uint64_t n() const { return shape.n; }
  bool has_payload() const { return shape.payload != Payload::none; }
  bool keys_distinct() const { return facts.len == shape.n; }
  // An integer parameter, or fallback when absent. Throws UsageError when not an integer.
  long param_int(const std::string& name, long fallback) const;
};

// Device buffers of one run. keys[0] (and vals[0]) hold the input; keys[1] (vals[1]) are
// scratch of the same size; both may be overwritten. vals[] are null without a payload.
// device is the run's device (never null when run_device is called); stream is its stream.
struct DeviceBuffers {
  void* keys[2] = {nullptr, nullptr};
  void* vals[2] = {nullptr, nullptr};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
  const DeviceContext* device = nullptr;
};

// The same buffers typed for one element type; vals are null when V is NoValue.
template <typename K, typename V>
struct Buffers {
  using key_type = K;
  using value_type = V;
  static constexpr bool has_values = !std::is_same_v<V, NoValue>;
  K* keys[2] = {nullptr, nullptr};
  V* vals[2] = {nullptr, nullptr};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
  const DeviceContext* device = nullptr;
};

template <typename K, typename V>
Buffers<K, V> typed_buffers(const DeviceBuffers& b) {
  Buffers<K, V> t;
  for (int i = 0; i < 2; ++i) {
    t.keys[i] = static_cast<K*>(b.keys[i]);
    if constexpr (Buffers<K, V>::has_values) t.vals[i] = static_cast<V*>(b.vals[i]);
  }
  t.workspace = b.workspace;
  t.workspace_bytes = b.workspace_bytes;
  t.stream = b.stream;
  t.device = b.device;
  return t;
}

// Host buffers of one CPU run: sorted in place.
struct HostBuffers {
  void* keys = nullptr;
  void* vals = nullptr;
};

// What an algorithm is for, as `list` groups them: a reproduction of an algorithm of the source
// papers, a fast variant of one, a library or CPU baseline, or a sort over several GPUs.
// chooser: a row that runs another algorithm chosen for its input (`auto`), never part of `all`.
enum class AlgorithmRole { reproduction, fast_variant, baseline, distributed, chooser };

struct Algorithm {
  std::string name;         // registry key, e.g. "cub-radix"
  std::string family;       // the kernels/ folder, e.g. "baselines"
  AlgorithmRole role = AlgorithmRole::fast_variant;
  std::string pick_when;    // one line for `list`: when to choose it over its neighbours
  Backend backend = Backend::gpu;
  std::vector<KeyType> key_types;
  std::vector<Payload> payloads{Payload::none};  // the value columns it carries along
  bool stable = false;      // equal keys keep their input order (checked when a payload is present)
  std::string constraints;  // e.g. "distinct keys only"; empty when none
  std::string source;       // the seed, paper section or library it implements
  std::vector<std::string> params;  // names of the --param values it reads
  // Its run reads the key facts (realized min/max): with --range measured the harness
  // discovers them inside the timed region before calling run (key_facts.hpp).
  bool reads_key_facts = false;

  // Why this input cannot be taken (a one-line reason), or nullopt. Key type and payload
  // support are checked by the harness first; this covers the rest (e.g. duplicates).
  std::function<std::optional<std::string>(const SortProblem&)> unsupported;
  std::function<std::size_t(const SortProblem&)> workspace_bytes;
  // GPU, optional: untimed set-up on the run's device before the first run_device there
  // (e.g. raising a kernel's shared-memory limit, a per-device attribute).
  std::function<void(const SortProblem&, const DeviceContext&)> prepare;
  // GPU, optional: undoes on the device what prepare changed for every later user of it (a
  // raised runtime limit), after the algorithm's last run there, however its row ended: it
  // must not throw.
  std::function<void(const SortProblem&, const DeviceContext&)> release;
  // GPU: sorts, returns which of keys[]/vals[] (0 or 1) holds the result.
  std::function<int(const SortProblem&, const DeviceBuffers&)> run_device;
  // Distributed: what each rank runs (algo/ranks.hpp); set instead of run_device. The ranks
  // placement fills, times and verifies the ranks' slices.
  std::shared_ptr<const RankAlgorithm> ranks;
  // Streamed (issue 37: the input stays in host memory or a file, algo/streamed.hpp), set
  // instead of run_device: the least GPU memory it can work in (a smaller limit is a usage
  // error naming it), the pinned host scratch it asks for given the GPU memory it may use, and
  // the run that reads, sorts and writes in chunks.
  std::function<std::size_t(const SortProblem&)> min_device_bytes;
  std::function<std::size_t(const SortProblem&, std::size_t device_bytes)> host_scratch_bytes;
  std::function<StreamedOutcome(const SortProblem&, const StreamedBuffers&)> run_streamed;
  // CPU: sorts HostBuffers in place.
  std::function<void(const SortProblem&, const HostBuffers&)> run_host;
  std::function<Details(const SortProblem&)> details;
  // GPU, optional: what the last run did where only the device knew it (levels, launches),
  // read from its buffers after the timed runs and verification, outside any timing.
  std::function<Details(const SortProblem&, const DeviceBuffers&)> observed;

  // Calls prepare when there is one.
  void prepare_on(const SortProblem& p, const DeviceContext& device) const {
    if (prepare) prepare(p, device);
  }
  // Calls release when there is one.
  void release_on(const SortProblem& p, const DeviceContext& device) const {
    if (release) release(p, device);
  }
  bool distributed() const { return ranks != nullptr; }
  bool streamed() const { return static_cast<bool>(run_streamed); }
  bool supports_key(KeyType k) const;
  bool supports_payload(Payload p) const;
  // The harness's own checks (key type, payload) followed by unsupported().
  std::optional<std::string> why_unsupported(const SortProblem& p) const;
};

}  // namespace sb

namespace sb {

// Declares the element types an algorithm takes from its type lists: `list` and the
// harness's checks read what the dispatch below can reach, so they cannot disagree.
template <typename Keys, typename Values>
void declare_types(Algorithm& a) {
  a.key_types = key_types_of(Keys{});
  a.payloads = payloads_of(Values{});
}

// Sets a GPU run written once over (K, V): run(Buffers<K, V>, const SortProblem&) -> int.
template <typename Keys, typename Values, typename Run>
void set_device_run(Algorithm& a, Run run) {
  declare_types<Keys, Values>(a);
  a.run_device = [run](const SortProblem& p, const DeviceBuffers& b) -> int {
    return dispatch_element<Keys, Values>(p.shape.key, p.shape.payload, [&](auto k, auto v) -> int {
      return run(typed_buffers<decltype(k), decltype(v)>(b), p);
    });
  };
}

// Sets a CPU run written once over (K, V): run(K* keys, V* vals, const SortProblem&); vals
// is null when V is NoValue.
template <typename Keys, typename Values, typename Run>
void set_host_run(Algorithm& a, Run run) {
  declare_types<Keys, Values>(a);
  a.run_host = [run](const SortProblem& p, const HostBuffers& b) {
    dispatch_element<Keys, Values>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      using K = decltype(k);
      using V = decltype(v);
      run(static_cast<K*>(b.keys), static_cast<V*>(b.vals), p);
    });
  };
}

}  // namespace sb
