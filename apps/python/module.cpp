// sortbench's Python face, its native part (issue 39 item 1; docs/architecture.md, "The house"
// and "Python": apps/python converts arrays, calls lib, returns arrays and rows). Like
// apps/sortbench, it parses and converts only: a sort is sort_once (suite/sort_once.hpp) of the
// caller's arrays (input/caller_array.hpp) drained into an array sink, as `sortbench sort` is
// sort_once of a file drained into a file sink; a benchmark is run_benchmark, as `sortbench run
// --input`.
// The Python package (sortbench/__init__.py) makes arrays contiguous, allocates the outputs in
// the caller's framework and hands their pointers here.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "sortbench/algo/registry.hpp"
#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/caller_array.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/session/session.hpp"
#include "sortbench/timing/summary.hpp"
#include "sortbench/report/build_info.hpp"
#include "sortbench/report/report.hpp"
#include "sortbench/suite/sort_once.hpp"

namespace nb = nanobind;

namespace sb::python {
namespace {

// Inputs may be read-only (a frozen NumPy array, an Arrow buffer); outputs are written.
using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

template <typename Array>
ArrayKind kind_of(const Array& a) {
  switch (static_cast<nb::dlpack::dtype_code>(a.dtype().code)) {
    case nb::dlpack::dtype_code::Int: return ArrayKind::signed_int;
    case nb::dlpack::dtype_code::UInt: return ArrayKind::unsigned_int;
    case nb::dlpack::dtype_code::Float: return ArrayKind::floating;
    default: return ArrayKind::other;
  }
}

// The CUDA ordinal holding the array, or -1 for host memory.
template <typename Array>
int device_of(const Array& a) {
  if (a.device_type() == nb::device::cuda::value) return a.device_id();
  if (a.device_type() == nb::device::cpu::value) return -1;
  throw UsageError("the array lives neither in host memory nor on a CUDA device; copy it to one of them");
}

template <typename Array>
void require_column(const Array& a, const char* role) {
  if (a.ndim() != 1)
    throw UsageError(fmt::format("{} must be a 1-D array, not {}-D; pass a column (e.g. x.ravel() or x[:, k])", role,
                                 a.ndim()));
  if (a.shape(0) > 1 && a.stride(0) != 1)
    throw UsageError(fmt::format("{} is not contiguous; pass a contiguous array", role));
}

// The caller's columns as a source's description; the NaN check of host keys (device keys
// are checked by the Python side, in the caller's framework, before they come here).
template <typename Array>
CallerArrays columns_of(const Array& keys, const std::string& keys_dtype, const std::optional<Array>& values,
                        const std::string& values_dtype, bool argsort, std::uintptr_t producer) {
  require_column(keys, "x");
  CallerArrays a;
  a.shape.n = keys.shape(0);
  a.shape.key = key_type_of_array(kind_of(keys), keys.dtype().bits, keys_dtype);
  a.keys = keys.data();
  a.device = device_of(keys);
  a.producer = reinterpret_cast<cudaStream_t>(producer);
  if (argsort && values)
    throw UsageError("argsort returns positions, so values have nothing to ride along with; drop one");
  if (values) {
    require_column(*values, "values");
    if (values->shape(0) != a.shape.n)
      throw UsageError(fmt::format("values has {} elements but x has {}; give one value per key", values->shape(0),
                                   a.shape.n));
    if (device_of(*values) != a.device)
      throw UsageError("values and x live on different devices; move them to the same one");
    a.shape.payload = payload_of_values(values->dtype().bits, values_dtype);
    a.vals = values->data();
  }
  if (argsort) {
    a.shape.payload = positions_payload(a.shape.n);
    a.positions = true;
  }
  if (a.device < 0) refuse_nan_keys_in(a.shape.key, a.keys, a.shape.n, "x");
  return a;
}

Backend backend_of(const std::string& name, int device) {
  const auto backend = parse_backend(name);
  if (!backend) throw UsageError(fmt::format("backend '{}' is neither 'gpu' nor 'cpu'; give one of them", name));
  if (*backend == Backend::cpu && device >= 0)
    throw UsageError("x lives on a GPU but backend='cpu' was given; drop backend or pass a host array");
  if (*backend == Backend::gpu) {
    if (auto why = cuda_unavailable_reason())
      throw Error(ExitCode::no_device, *why + "; use backend='cpu' to sort with the CPU");
    use_device(device < 0 ? 0 : device);  // an array on another GPU is sorted there
  }
  return *backend;
}

// How many results came back through host memory (Session::drain): a device array's sort
// never adds one, and the GPU tests check that through host_drains().
std::atomic<long> host_drain_count{0};

// The sorted columns into the caller's outputs (host memory; device memory only where a
// device array is sorted by a CPU path, which sort() no longer takes); argsort's positions
// decoded into int64 indices as numpy.argsort returns them.
class ArraySink final : public OutputSink {
 public:
  ArraySink(void* keys, void* vals, int device, std::optional<Payload> positions)
      : keys_(static_cast<unsigned char*>(keys)), vals_(static_cast<unsigned char*>(vals)), device_(device),
        positions_(positions) {
    ++host_drain_count;
  }
  bool wants(Column c) const override { return (c == Column::keys ? keys_ : vals_) != nullptr; }
  void write(Column c, std::uint64_t first_byte, const unsigned char* data, std::uint64_t bytes) override {
    if (c == Column::keys) return copy(keys_ + first_byte, data, bytes);
    if (!positions_) return copy(vals_ + first_byte, data, bytes);
    const std::size_t width = payload_bytes(*positions_);
    decoded_.resize(bytes / width);
    decode_positions(*positions_, data, decoded_.size(), decoded_.data());
    copy(vals_ + first_byte / width * sizeof(std::int64_t), decoded_.data(), decoded_.size() * sizeof(std::int64_t));
  }

 private:
  void copy(unsigned char* to, const void* from, std::uint64_t bytes) {
    if (device_ < 0) std::memcpy(to, from, bytes);
    else SB_CUDA_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice));
  }
  unsigned char* keys_;
  unsigned char* vals_;
  int device_;
  std::optional<Payload> positions_;
  std::vector<std::int64_t> decoded_;
};

// algo: "auto" (sort_once chooses as `sortbench sort --algo auto` does) or an algorithm of the
// sort's backend.
void check_algo(const std::string& algo, Backend backend) {
  if (algo == "auto") return;
  const Algorithm* chosen = registry().find(algo);
  if (!chosen)
    throw UsageError(
        fmt::format("algo '{}' is not an algorithm; see sortbench.algorithms() or give algo='auto'", algo));
  if (chosen->backend != backend)
    throw UsageError(fmt::format("{} runs on the {} but the sort runs on the {}; choose a {} algorithm or 'auto'",
                                 chosen->name, to_string(chosen->backend), to_string(backend), to_string(backend)));
}

// gpu_memory_limit as the CLI's --gpu-memory-limit reads it (bytes, or text such as "8G"); None: 0.
std::uint64_t memory_limit_of(const std::optional<std::string>& text) {
  if (!text) return 0;
  const std::uint64_t bytes = parse_count(*text, "gpu_memory_limit");
  if (bytes == 0) throw UsageError("gpu_memory_limit=0 leaves no GPU memory; give a size such as '8G', or drop it");
  return bytes;
}

// A host array sorted as `sortbench sort` sorts a file (sort_once): on one GPU where it fits
// (under gpu_memory_limit), else streamed through it from pinned host columns.
nb::dict sort_arrays(const InArray& keys, const std::string& keys_dtype, const std::optional<InArray>& values,
                     const std::string& values_dtype, bool argsort, const std::string& algo, const std::string& backend,
                     const std::optional<OutArray>& out_keys, const std::optional<OutArray>& out_values,
                     std::uintptr_t producer, const std::optional<std::string>& gpu_memory_limit) {
  const CallerArrays a = columns_of(keys, keys_dtype, values, values_dtype, argsort, producer);
  const Backend where = backend_of(backend, a.device);
  for (const auto* out : {&out_keys, &out_values})
    if (*out && ((*out)->shape(0) != a.shape.n || device_of(**out) != a.device))
      throw UsageError("an output array has another length or device than x; give one like x");
  check_algo(algo, where);
  SortOnceRequest once;
  once.algo = algo;
  once.backend = where;
  once.argsort = argsort;
  once.gpu_memory_limit = memory_limit_of(gpu_memory_limit);
  once.words = python_sort_words();
  nb::dict report;
  {
    nb::gil_scoped_release released;  // the sort does not touch Python objects
    const SortOnce done = sort_once(make_caller_array_source(a), once);
    ArraySink sink(out_keys ? out_keys->data() : nullptr, out_values ? out_values->data() : nullptr, a.device,
                   argsort ? std::optional<Payload>(a.shape.payload) : std::nullopt);
    done.session->drain(sink);
    nb::gil_scoped_acquire held;
    report["algorithm"] = done.algorithm->name;
    report["why"] = done.why;
    report["verified_on"] = done.verified_on;
    report["placement"] = done.placement;
  }
  report["path"] = "host";
  return report;
}

std::string detail_of(const ResultRow& row, const std::string& name) {
  for (const auto& [k, v] : row.details)
    if (k == name) return v;
  return "";
}

// A device array sorted where it lies (issue 39, zero copy): keys (and values) are the
// caller's writable arrays, already holding the input (x itself for out=x, else the copy the
// Python side made in x's framework); they are adopted as the placement's input and receive
// the result on the device. positions: argsort's int64 output on the same device.
nb::dict sort_device_arrays(const OutArray& keys, const std::string& keys_dtype, const std::optional<OutArray>& values,
                            const std::string& values_dtype, const std::optional<OutArray>& positions,
                            const std::string& algo, bool verify, std::uintptr_t producer) {
  const CallerArrays a = columns_of(keys, keys_dtype, values, values_dtype, positions.has_value(), producer);
  if (a.device < 0) throw std::logic_error("sort_device_arrays: the keys are in host memory");
  if (positions && (positions->ndim() != 1 || positions->shape(0) != a.shape.n || device_of(*positions) != a.device ||
                    positions->dtype() != nb::dtype<std::int64_t>()))
    throw std::logic_error("sort_device_arrays: the positions are not int64 of x's length on x's device");
  backend_of("gpu", a.device);
  check_algo(algo, Backend::gpu);
  SortOnceRequest once;
  once.algo = algo;
  once.argsort = positions.has_value();
  once.verify = verify;
  once.adopt = AdoptedColumns{keys.data(), values ? values->data() : nullptr,
                              positions ? static_cast<std::int64_t*>(positions->data()) : nullptr, a.producer};
  once.words = python_sort_words();
  ResultRow row;
  std::string algorithm, why, verified_on;
  {
    nb::gil_scoped_release released;
    const SortOnce done = sort_once(make_caller_array_source(a), once);
    row = done.row;
    algorithm = done.algorithm->name;
    why = done.why;
    verified_on = done.verified_on;
  }
  nb::dict memory;
  memory["workspace_bytes"] = static_cast<std::uint64_t>(row.summaries.value_or(summary_tag::workspace_bytes, 0));
  memory["buffer_bytes"] = static_cast<std::uint64_t>(row.summaries.value_or(summary_tag::buffer_bytes, 0));
  memory["peak_bytes"] = static_cast<std::uint64_t>(row.summaries.value_or(summary_tag::peak_bytes, 0));
  nb::dict report;
  report["algorithm"] = algorithm;
  report["why"] = why;
  report["verified_on"] = verified_on;
  report["path"] = "device";
  report["adopted"] = detail_of(row, "adopted");
  report["result_copy"] = detail_of(row, "result_copy");
  report["memory"] = memory;
  return report;
}

// A caller's Python sort as an algorithm of the run: the runner (sortbench/_others.py) wraps the
// run's buffers as arrays of the callable's framework, calls it on the run's stream and copies
// its result into the scratch buffer when it did not sort in place. That copy is timed with it:
// what a caller pays to have the result where the input was.
Algorithm other_algorithm(const std::string& name, nb::object fn, nb::object runner, Backend backend) {
  Algorithm a;
  a.name = name;
  a.family = "python-callable";
  a.role = AlgorithmRole::baseline;
  a.pick_when = "the caller's own sort, timed beside sortbench's";
  a.backend = backend;
  a.key_types = {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64, KeyType::i64, KeyType::f64};
  a.source = "a Python callable passed as others=";
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  // Shared, not copied: copies of the algorithm's functions are made without the GIL, which a
  // Python reference count needs.
  const auto held = std::make_shared<std::pair<nb::object, nb::object>>(std::move(fn), std::move(runner));
  auto call = [held](const SortProblem& p, void* in, void* scratch, cudaStream_t stream, int device) {
    nb::gil_scoped_acquire gil;
    return nb::cast<int>(held->second(held->first, reinterpret_cast<std::uintptr_t>(in),
                                      reinterpret_cast<std::uintptr_t>(scratch), p.shape.n,
                                      std::string(to_string(p.shape.key)), reinterpret_cast<std::uintptr_t>(stream),
                                      device));
  };
  if (backend == Backend::gpu) {
    a.run_device = [call](const SortProblem& p, const DeviceBuffers& b) {
      return call(p, b.keys[0], b.keys[1], b.stream, b.device ? b.device->ordinal : 0);
    };
  } else {
    a.run_host = [call](const SortProblem& p, const HostBuffers& b) { call(p, b.keys, nullptr, nullptr, -1); };
  }
  return a;
}

// Ctrl-C between rows: the signal is noticed when the GIL comes back, and stops the run.
class InterruptCheck final : public RowSink {
 public:
  void row_done(const ResultRow&) override {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
};

struct BenchmarkSettings {
  std::string algos, backend, range;
  int reps = 10, warmup = 1;
  double max_noise_pct = 1.0, budget_s = 2.0;
  bool flush_l2 = true;
  std::optional<std::string> gpu_memory_limit;  // as sort()'s
};

std::string benchmark_arrays(const InArray& keys, const std::string& keys_dtype,
                             const std::optional<InArray>& values,
                             const std::string& values_dtype, const BenchmarkSettings& s,
                             const std::vector<std::pair<std::string, nb::object>>& others, nb::object runner,
                             std::uintptr_t producer) {
  const CallerArrays a = columns_of(keys, keys_dtype, values, values_dtype, false, producer);
  const Backend where = backend_of(s.backend, a.device);
  std::vector<Algorithm> callables;
  for (const auto& [name, fn] : others) callables.push_back(other_algorithm(name, fn, runner, where));
  RunPlan plan;
  plan.source = make_caller_array_source(a);
  if (!s.algos.empty()) plan.algorithms = registry().select(s.algos, where);
  for (const Algorithm* chosen : plan.algorithms)
    if (chosen->backend != where || chosen->distributed())
      throw UsageError(
          fmt::format("{} does not run on one {} here; drop it from algos", chosen->name, to_string(where)));
  for (const Algorithm& c : callables) plan.algorithms.push_back(&c);
  if (plan.algorithms.empty()) throw UsageError("nothing to time: give algos or others");
  const auto range = parse_range_mode(s.range);
  if (!range) throw UsageError(fmt::format("range '{}' is neither 'given' nor 'measured'; give one of them", s.range));
  plan.range = *range;
  plan.settings.warmup = s.warmup;
  plan.settings.min_reps = s.reps;
  plan.settings.max_noise = s.max_noise_pct / 100.0;
  plan.settings.budget_s = s.budget_s;
  plan.settings.flush_l2 = s.flush_l2;
  plan.gpu_memory_limit = memory_limit_of(s.gpu_memory_limit);
  RunContext context = make_context();
  context.command_line = "python: sortbench.benchmark";
  context.settings = plan.settings;
  std::vector<ResultRow> rows;
  {
    nb::gil_scoped_release released;
    if (where == Backend::gpu) {
      int ordinal = 0;
      SB_CUDA_CHECK(cudaGetDevice(&ordinal));
      context.gpu = query_device(ordinal, true);
      use_device(ordinal);
      plan.copy_bandwidth_gbs = context.gpu->copy_bandwidth_gbs;
      // The clocks and conditions the rows were measured under, as run --json records them.
      std::string why_absent;
      plan.nvml = NvmlDevice::open(ordinal, &why_absent);
      context.conditions = plan.nvml ? plan.nvml->conditions() : GpuConditions{};
      if (!plan.nvml) context.conditions->nvml_absent = why_absent;
    }
    InterruptCheck interrupts;
    rows = run_benchmark(plan, &interrupts);
  }
  for (ResultRow& row : rows) row.details.emplace_back("interface", "python");
  return make_document(context, rows).dump();
}

// A generator parameter as the CLI reads it (issue 47 item 6): a Python int of any size as its
// decimal text, or a str in the CLI's spelling ("16M", "2^24"), so the whole documented domain
// (max_val=2**64 for u64 keys) reaches the parser, and every bad value is its ValueError.
std::string parameter_text(nb::handle v, const char* name) {
  if (nb::isinstance<nb::bool_>(v) || !(nb::isinstance<nb::int_>(v) || nb::isinstance<nb::str>(v) ||
                                         PyIndex_Check(v.ptr())))
    throw UsageError(fmt::format("{}={} is a {}; give an int or the CLI's text (e.g. '2^24')", name,
                                 nb::cast<std::string>(nb::repr(v)), nb::cast<std::string>(nb::type_name(v.type()))));
  return nb::cast<std::string>(nb::isinstance<nb::str>(v) ? nb::str(v) : nb::str(nb::int_(v)));
}

double parameter_real(nb::handle v, const char* name) {
  if (!nb::isinstance<nb::bool_>(v) && !nb::isinstance<nb::str>(v)) {
    try {
      return nb::cast<double>(nb::float_(v));
    } catch (const nb::python_error&) {
    }
  }
  throw UsageError(fmt::format("{}={} is a {}; give a number", name, nb::cast<std::string>(nb::repr(v)),
                               nb::cast<std::string>(nb::type_name(v.type()))));
}

InputRequest request_of(const nb::dict& d) {
  InputRequest q;
  auto get = [&](const char* k) -> std::optional<nb::handle> {
    if (!d.contains(k) || d[k].is_none()) return std::nullopt;
    return d[k];
  };
  if (auto v = get("n")) q.n = parse_count(parameter_text(*v, "n"), "n");
  if (auto v = get("delta")) q.delta = parameter_real(*v, "delta");
  if (auto v = get("sigma")) q.sigma = parameter_real(*v, "sigma");
  if (auto v = get("len")) q.len = parse_count(parameter_text(*v, "len"), "len");
  if (auto v = get("min_val")) q.min_val = parse_value(parameter_text(*v, "min_val"), "min_val");
  if (auto v = get("max_val")) q.max_val = parse_value(parameter_text(*v, "max_val"), "max_val");
  if (auto v = get("entropy")) q.entropy = parameter_real(*v, "entropy");
  if (auto v = get("dist")) {
    const auto name = nb::cast<std::string>(*v);
    const auto dist = parse_distribution(name);
    if (!dist) throw UsageError(fmt::format("dist '{}' is not a distribution; see docs/inputs.md", name));
    q.dist = *dist;
  }
  if (auto v = get("key")) {
    const auto name = nb::cast<std::string>(*v);
    const auto key = parse_key_type(name);
    if (!key || *key == KeyType::u32x4)
      throw UsageError(fmt::format("key '{}' is not a key type; give u32, i32, u64, i64, f32 or f64", name));
    q.key = *key;
  }
  if (auto v = get("seed")) q.seed = static_cast<std::uint64_t>(parse_count(parameter_text(*v, "seed"), "seed"));
  return q;
}

// The generated input's length and key type, so the caller can allocate its array.
std::pair<std::uint64_t, std::string> generated_shape(const nb::dict& request) {
  const InputSpec spec = derive_input_spec(request_of(request));
  return {spec.n, std::string(to_string(spec.key))};
}

void generate_into(const nb::dict& request, const OutArray& out) {
  const InputSpec spec = derive_input_spec(request_of(request));
  if (out.ndim() != 1 || out.shape(0) != spec.n) throw std::logic_error("generate_into: the output has another shape");
  const int device = device_of(out);
  nb::gil_scoped_release released;
  if (device < 0) {
    generate_host(spec, out.data(), nullptr);
    return;
  }
  use_device(device);
  generate_device(spec, out.data(), nullptr, nullptr);
  SB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

nb::list algorithm_list() {
  nb::list out;
  for (const Algorithm& a : registry().all()) {
    nb::dict d;
    d["name"] = a.name;
    d["family"] = a.family;
    d["backend"] = std::string(to_string(a.backend));
    d["stable"] = a.stable;
    d["pick_when"] = a.pick_when;
    nb::list keys;
    for (KeyType k : a.key_types) keys.append(std::string(to_string(k)));
    d["key_types"] = keys;
    nb::list payloads;
    for (Payload p : a.payloads) payloads.append(std::string(to_string(p)));
    d["payloads"] = payloads;
    d["constraints"] = a.constraints;
    d["source"] = a.source;
    d["distributed"] = a.distributed();
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace sb::python

NB_MODULE(_sortbench, m) {
  using namespace sb;
  using namespace sb::python;
  m.attr("__version__") = build_version();
  m.attr("git_commit") = build_git_commit();
  // The profiles the automatic choices read (SORTBENCH_PROFILE, else each GPU's cached one):
  // a cached profile of another sortbench version is ignored, as the CLI does.
  ProfilePolicy policy = profile_policy();
  policy.version = build_version();
  set_profile_policy(policy);
  // Errors a caller can make are one line, as the CLI's; where they come from is no business of theirs.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ArrayTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const Error& e) {
      switch (e.code()) {
        case ExitCode::usage: PyErr_SetString(PyExc_ValueError, e.what()); return;
        case ExitCode::device_memory: PyErr_SetString(PyExc_MemoryError, e.what()); return;
        default: PyErr_SetString(PyExc_RuntimeError, e.what()); return;
      }
    }
  });
  m.def("cuda_unavailable_reason", [] { return cuda_unavailable_reason(); });
  m.def("algorithms", &algorithm_list);
  m.def("sort_arrays", &sort_arrays, nb::arg("keys"), nb::arg("keys_dtype"), nb::arg("values").none(),
        nb::arg("values_dtype"), nb::arg("argsort"), nb::arg("algo"), nb::arg("backend"), nb::arg("out_keys").none(),
        nb::arg("out_values").none(), nb::arg("producer"), nb::arg("gpu_memory_limit").none());
  m.def("sort_device_arrays", &sort_device_arrays, nb::arg("keys"), nb::arg("keys_dtype"), nb::arg("values").none(),
        nb::arg("values_dtype"), nb::arg("positions").none(), nb::arg("algo"), nb::arg("verify"),
        nb::arg("producer"));
  m.def("host_drains", [] { return host_drain_count.load(); });
  nb::class_<BenchmarkSettings>(m, "BenchmarkSettings")
      .def(nb::init<>())
      .def_rw("algos", &BenchmarkSettings::algos)
      .def_rw("backend", &BenchmarkSettings::backend)
      .def_rw("range", &BenchmarkSettings::range)
      .def_rw("reps", &BenchmarkSettings::reps)
      .def_rw("warmup", &BenchmarkSettings::warmup)
      .def_rw("max_noise_pct", &BenchmarkSettings::max_noise_pct)
      .def_rw("budget_s", &BenchmarkSettings::budget_s)
      .def_rw("flush_l2", &BenchmarkSettings::flush_l2)
      .def_rw("gpu_memory_limit", &BenchmarkSettings::gpu_memory_limit);
  m.def("benchmark_arrays", &benchmark_arrays, nb::arg("keys"), nb::arg("keys_dtype"), nb::arg("values").none(),
        nb::arg("values_dtype"), nb::arg("settings"), nb::arg("others"), nb::arg("runner"), nb::arg("producer"));
  m.def("generated_shape", &generated_shape);
  m.def("generate_into", &generate_into);
}
