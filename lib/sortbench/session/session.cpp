#include "sortbench/session/session.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/place/placement_plan.hpp"
#if SORTBENCH_HAVE_NCCL
#include "sortbench/place/rank_placement.hpp"
#endif

namespace sb {

std::string_view to_string(RowStatus s) {
  switch (s) {
    case RowStatus::ok: return "ok";
    case RowStatus::unsupported: return "unsupported";
    case RowStatus::error: return "error";
    case RowStatus::verify_failed: return "verify_failed";
    case RowStatus::throttled: return "throttled";
  }
  return "?";
}

std::optional<RowStatus> parse_row_status(std::string_view s) {
  for (RowStatus v : {RowStatus::ok, RowStatus::unsupported, RowStatus::error, RowStatus::verify_failed,
                      RowStatus::throttled})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

std::string energy_unavailable_message(const std::string& why) {
  return fmt::format("--energy reads NVML's total-energy counter, but {} here; drop --energy", why);
}

bool any_failed_verification(const std::vector<ResultRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ResultRow& r) { return r.status == RowStatus::verify_failed; });
}

namespace {

// Beside a run's pinned input and output columns: the process, the placement's staging, the
// allocator's slack. A run whose columns leave less streams from its source (place_streamed).
constexpr std::uint64_t kHostSlackBytes = std::uint64_t{1} << 30;

Params params_for(const Algorithm& a, const Params& all) {
  Params mine;
  for (const auto& name : a.params)
    if (auto it = all.find(name); it != all.end()) mine.insert(*it);
  return mine;
}

// What the algorithm says it did goes first; the harness's own notes (discovery_ms) stay.
void add_algorithm_details(const Algorithm& a, const SortProblem& p, ResultRow& row) {
  if (!a.details) return;
  const Details d = a.details(p);
  row.details.insert(row.details.begin(), d.begin(), d.end());
}

// Sticky CUDA errors leave the context unusable: stop the run rather than fail every row.
void require_usable_context() {
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    throw Error(ExitCode::cuda, fmt::format("the CUDA context is no longer usable ({}: {}); rerun the remaining "
                                            "algorithms in a new process",
                                            cudaGetErrorName(err), cudaGetErrorString(err)));
}

// A distributed row's speed-up over each single-GPU row of the same run (the references
// that ran on one GPU with the whole input): reference median / distributed median.
void add_distributed_speedups(std::vector<ResultRow>& rows) {
  for (ResultRow& d : rows) {
    if (d.family != "distributed" || !d.timed()) continue;
    for (const ResultRow& ref : rows)
      if (ref.family != "distributed" && ref.backend == Backend::gpu && ref.status == RowStatus::ok && ref.timed())
        d.details.emplace_back("speedup_vs_" + ref.algorithm, fmt::format("{:.3f}", ref.median_ms() / d.median_ms()));
    // The fastest single-GPU row over this one (absent where no single GPU held the input).
    double best = 0;
    for (const ResultRow& ref : rows)
      if (ref.family != "distributed" && ref.backend == Backend::gpu && ref.status == RowStatus::ok && ref.timed() &&
          (best == 0 || ref.median_ms() < best))
        best = ref.median_ms();
    if (best > 0) d.details.emplace_back("speedup_vs_best_single", fmt::format("{:.3f}", best / d.median_ms()));
  }
}

}  // namespace

struct Session::State {
  std::shared_ptr<const InputSource> source;
  SessionOptions options;
  InputSpec spec;
  KeyFacts facts;
  RangeMode range = RangeMode::given;
  std::optional<DevicePlacement> device;
  std::optional<HostPlacement> host;
  std::optional<StreamedPlacement> streamed;
  std::string unplaced;  // why the whole input is not on one GPU
  std::string streamed_because;  // why an automatic placement streams
  // A run past host memory: its streamed rows' results, verified on the GPU, go nowhere.
  struct DiscardSink final : OutputSink {
    bool wants(Column) const override { return false; }
    void write(Column, std::uint64_t, const unsigned char*, std::uint64_t) override {}
  } discard;
  enum class Last { none, host, device, streamed } last = Last::none;

  void place_on_device();
  void place_streamed();
  // The placement's facts as the session's, and a file's parameters as measured on it.
  void adopt_facts(const KeyFacts& measured);
  // What a placement that does not fit on the GPU says to do.
  std::string fit_hint() const {
    return options.placement == PlacementKind::automatic ? "it stays in pinned host memory and streams through the GPU"
           : source->parameters_measured() ? "benchmark a smaller file, or sort this one with --backend cpu"
                                           : "lower -n";
  }

  HostPlacement& host_placement() {
    // CPU algorithms on a GPU session sort a host copy of the placed input.
    if (!host) host.emplace(*source, device->to_host());
    return *host;
  }
  void run_ranks_row(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings, ResultRow& row);
  void run_placed(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings, ResultRow& row);
};

void Session::State::place_on_device() {
  DevicePlacementOptions d;
  d.repeated = options.repeated;
  d.count_distinct = options.count_distinct;
  d.given_facts = options.given_facts;
  d.nvml = options.nvml;
  d.copy_bandwidth_gbs = options.copy_bandwidth_gbs;
  d.phases = options.phases;
  d.adopt = options.adopt;
  d.verify = options.verify;
  d.memory_limit = options.gpu_memory_limit;
  d.fit_hint = fit_hint();
  device.emplace(*source, std::move(d));
  facts = device->facts();
}

void Session::State::place_streamed() {
  StreamedPlacementOptions o;
  o.gpu_memory_limit = options.gpu_memory_limit;
  // A run streams from host memory, where its input and output columns fit under the host limit
  // (else what is available) beside a reserve; past that, each streamed row reads the source in
  // chunks and its verified result is dropped (issue 52).
  const std::uint64_t columns = 2 * spec.n * spec.shape().element_bytes();
  const std::uint64_t budget = options.host_memory_limit ? options.host_memory_limit : host_available_bytes();
  const bool past_host = !options.stream_to && columns + kHostSlackBytes > budget;
  if (past_host) {
    const std::string why = fmt::format(
        "the input and its output need {} of pinned host memory but {} {}: each ooc-* row reads the input in chunks, "
        "once",
        bytes_text(columns), bytes_text(budget), options.host_memory_limit ? "is the --host-memory-limit" : "is available");
    streamed_because = streamed_because.empty() ? why : streamed_because + "; " + why;
  }
  o.resident = !options.stream_to && !past_host;
  o.output = options.stream_to ? options.stream_to : past_host ? &discard : nullptr;
  o.measure_link = !options.stream_to;
  o.host_memory_limit = options.host_memory_limit;
  o.tmp_dir = options.tmp_dir;
  o.given_facts = options.given_facts;
  o.facts_first = options.facts_first;
  o.phases = options.phases;
  o.verify = options.verify;
  streamed.emplace(*source, std::move(o));
  facts = streamed->facts();
}

Session::Session(std::shared_ptr<const InputSource> source, SessionOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.source = std::move(source);
  s.options = std::move(options);
  s.spec = s.source->spec();
  s.range = s.options.range.value_or(s.source->default_range());
  const PlacementKind kind = s.options.placement;
  if (kind == PlacementKind::device || kind == PlacementKind::automatic) {
    // Decided before anything is placed (placement_plan.hpp): an automatic placement past the
    // GPU's memory (or the limit) streams; a run of distributed rows only leaves it unplaced.
    const bool decides = (kind == PlacementKind::automatic || s.options.allow_unplaced) && !s.options.adopt;
    const InputShape shape = s.spec.shape();
    const std::optional<DeviceFit> fit =
        decides ? std::optional<DeviceFit>(device_fit_here(shape.n * shape.element_bytes(), s.options.repeated,
                                                           s.options.gpu_memory_limit, s.options.fit_workspace_bytes))
                : std::nullopt;
    // Only distributed rows on generated keys: no row would use a copy on one GPU. (A file's
    // facts are measured where it is placed: the rows' support checks need its range.)
    const bool ranks_only = s.options.distributed_only && !s.source->parameters_measured();
    if (!ranks_only && (!fit || fit->fits())) {
      s.place_on_device();
    } else if (ranks_only || s.options.allow_unplaced) {
      // Beyond one GPU's memory, or no row that runs on one: the distributed algorithms run
      // (each rank holds a slice); single-GPU rows say why they cannot, and the facts are the
      // spec's until the ranks measure them.
      if (!ranks_only) s.unplaced = fit->shortfall(s.fit_hint());
      s.facts = promised_key_facts(s.spec.key, s.spec.n, s.spec.min_val, s.spec.max_val - 1, s.spec.len);
    } else {
      // The input stays in host memory and streams through the GPU.
      s.streamed_because = fit->shortfall(s.fit_hint());
      s.place_streamed();
    }
  } else if (kind == PlacementKind::streamed) {
    s.place_streamed();
  } else {
    s.host.emplace(*s.source, s.options.phases);
    s.facts = s.host->measure_facts(s.options.count_distinct);
  }
  s.adopt_facts(s.facts);
}

void Session::State::adopt_facts(const KeyFacts& measured) {
  facts = measured;
  if (auto sortedness = source->sortedness()) facts.sortedness = *sortedness;
  if (source->parameters_measured()) {
    // A file's parameters are what was measured on it: [min, max + 1), its distinct count.
    spec.min_val = facts.min;
    spec.max_val = facts.max + 1;
    spec.range = spec.n ? spec.max_val - spec.min_val : 1;
    spec.len = facts.len;
  }
}

Session::~Session() = default;

const InputSpec& Session::spec() const { return state_->spec; }
const KeyFacts& Session::facts() const { return state_->facts; }
const InputSource& Session::source() const { return *state_->source; }

void Session::State::run_ranks_row(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings,
                                  ResultRow& row) {
  if (auto why = source->why_no_shards()) {
    row.status = RowStatus::unsupported;
    row.reason = *why;
    return;
  }
#if SORTBENCH_HAVE_NCCL
  DistributedRequest request{source.get(), options.devices, settings, options.process_rank, options.process_world,
                             options.rendezvous, options.launcher};
  // No devices named (a sweep): one rank on the session's GPU.
  if (request.devices.empty()) request.devices.push_back(device ? device->context().ordinal : 0);
  request.check_stable = a.stable && !source->values_are_data();
  const DistributedOutcome out = run_on_ranks(*a.ranks, problem, request);
  finish_timing(row, out.samples_ms, 0);
  row.details = out.details;
  if (!device && !streamed && !host) {
    // Nothing placed: the ranks' all-reduced min and max are the input's measured facts.
    facts.min = out.facts.min;
    facts.max = out.facts.max;
    facts.min_ordered = out.facts.min_ordered;
    facts.max_ordered = out.facts.max_ordered;
    row.realized = facts;
  }
  apply_verification(row, out.verification);
#else
  (void)a, (void)problem, (void)settings;
  throw std::logic_error("a distributed algorithm is registered but the ranks placement was built without NCCL");
#endif
}

void Session::State::run_placed(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings,
                                ResultRow& row) {
  if (streamed) {
    last = Last::streamed;
    streamed->run(a, problem, settings, row);
    // A file read once: its facts are what the run learned (the whole domain until then).
    if (streamed->facts_from_run()) adopt_facts(streamed->facts());
    add_algorithm_details(a, problem, row);
    return;
  }
  if (a.streamed()) {
    row.status = RowStatus::unsupported;
    row.reason = "it streams an input held in host memory; the input is on the GPU (--placement host streams it)";
    return;
  }
  if (a.backend == Backend::gpu) {
    last = Last::device;
    device->run(a, problem, settings, row);
    add_algorithm_details(a, problem, row);
    return;
  }
  HostPlacement& on_host = host_placement();
  last = Last::host;
  on_host.run(a, problem, settings, row);
  add_algorithm_details(a, problem, row);
  if (device && row.timed()) {
    // The input lives on the GPU: a CPU sort of it also pays for the round trip.
    const double transfer = device->transfer_ms(on_host.columns());
    row.details.emplace_back("transfer_ms", fmt::format("{:.4f}", transfer));
    row.details.emplace_back("median_with_transfer_ms", fmt::format("{:.4f}", row.median_ms() + transfer));
  }
}

ResultRow Session::run(const Algorithm& a, const MeasureSettings& settings, const Params& params, RowSink* rows) {
  State& s = *state_;
  if (rows) rows->row_started(a);
  ResultRow row;
  row.algorithm = a.name;
  row.family = a.family;
  row.backend = a.backend;
  row.stable = a.stable;
  row.requested = s.options.request;
  row.spec = s.spec;
  row.realized = s.facts;
  row.source = s.source->provenance();
  row.range = s.range;
  row.params = params_for(a, params);
  row.verification = "not run";
  const bool on_gpu = s.options.placement != PlacementKind::host;
  const DeviceContext* context = device_context();
  SortProblem problem{s.spec.shape(), s.facts, row.params, s.range, context};
  // A distributed algorithm's support checks see how many ranks share the input.
  DeviceContext ranks_context;
  if (a.distributed()) {
    // Nothing placed: the facts of the GPU this process starts on, as the ranks' first.
    ranks_context = context ? *context : current_device_context(nullptr);
    ranks_context.world = s.options.process_rank >= 0 ? s.options.process_world
                                                      : std::max<int>(1, static_cast<int>(s.options.devices.size()));
    problem.device = &ranks_context;
  }
  auto finish = [&] {
    if (rows) rows->row_done(row);
  };
  try {
    s.last = State::Last::none;
    if (auto why = a.why_unsupported(problem)) {
      row.status = RowStatus::unsupported;
      row.reason = *why;
    } else if (a.distributed()) {
      s.run_ranks_row(a, problem, settings, row);
    } else if (on_gpu && !s.device && !s.streamed) {
      row.status = RowStatus::unsupported;
      row.reason = s.unplaced;
    } else {
      s.run_placed(a, problem, settings, row);
    }
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    // A rank without memory stops the whole run (exit 4), as an input too large for one GPU
    // does; so does a rendezvous that other processes never joined (exit 2).
    if (a.distributed() && (e.code() == ExitCode::device_memory || e.code() == ExitCode::usage)) throw;
    row.status = RowStatus::error;
    row.reason = e.what();
    if (on_gpu) {
      cudaGetLastError();
      try {
        require_usable_context();
      } catch (...) {
        finish();
        throw;
      }
    }
  } catch (const std::exception& e) {
    row.status = RowStatus::error;
    row.reason = e.what();
  }
  // Which thresholds the automatic choices read (issue 50): the device's profile or the built-in rule.
  row.details.emplace_back("rule", a.distributed() ? ranks_context.rule : context ? context->rule : "default");
  finish();
  return row;
}

void Session::drain(OutputSink& sink) const {
  const State& s = *state_;
  switch (s.last) {
    case State::Last::device: s.device->drain(sink); return;
    case State::Last::host: s.host->drain(sink); return;
    case State::Last::streamed: s.streamed->drain(sink); return;
    case State::Last::none: break;
  }
  throw std::logic_error("Session::drain: no algorithm ran on a placement of this session");
}

bool Session::verified_on_device() const {
  const State& s = *state_;
  return (s.last == State::Last::device && !s.device->verifies_on_host()) || s.last == State::Last::streamed;
}

bool Session::streamed() const { return state_->streamed.has_value(); }
const DeviceContext* Session::device_context() const {
  const State& s = *state_;
  return s.device ? &s.device->context() : s.streamed ? &s.streamed->context() : nullptr;
}
const std::string& Session::streamed_because() const { return state_->streamed_because; }
std::uint64_t Session::device_allowance() const {
  if (state_->device) return state_->device->workspace_room();
  if (!state_->streamed) throw std::logic_error("Session::device_allowance: the input is not on a GPU");
  return state_->streamed->device_allowance();
}
const LinkRates& Session::link() const {
  if (!state_->streamed) throw std::logic_error("Session::link: the input is not streamed");
  return state_->streamed->link();
}

std::vector<ResultRow> run_benchmark(const RunPlan& plan, RowSink* sink) {
  const std::shared_ptr<const InputSource> source =
      plan.source ? plan.source : make_generated_source(derive_input_spec(plan.request), plan.request);
  const bool needs_gpu = std::any_of(plan.algorithms.begin(), plan.algorithms.end(),
                                     [](const Algorithm* a) { return a->backend == Backend::gpu; });
  SessionOptions options;
  options.placement = plan.placement.value_or(needs_gpu ? PlacementKind::automatic : PlacementKind::host);
  options.gpu_memory_limit = plan.gpu_memory_limit;
  options.host_memory_limit = plan.host_memory_limit;
  options.tmp_dir = plan.tmp_dir;
  options.range = plan.range;
  options.request = plan.request;
  options.copy_bandwidth_gbs = plan.copy_bandwidth_gbs;
  // Only distributed rows: an input past one GPU needs no placement of its own (each rank holds
  // a slice). Any other row: an input past the GPU streams from host memory.
  options.allow_unplaced = std::all_of(plan.algorithms.begin(), plan.algorithms.end(),
                                       [](const Algorithm* a) { return a->distributed() || a->backend == Backend::cpu; }) &&
                           std::any_of(plan.algorithms.begin(), plan.algorithms.end(),
                                       [](const Algorithm* a) { return a->distributed(); });
  options.distributed_only = !plan.algorithms.empty() &&
                             std::all_of(plan.algorithms.begin(), plan.algorithms.end(),
                                         [](const Algorithm* a) { return a->distributed(); });
  options.devices = plan.devices;
  options.process_rank = plan.process_rank;
  options.process_world = plan.process_world;
  options.rendezvous = plan.rendezvous;
  options.launcher = plan.launcher;
  options.nvml = plan.nvml;
  if (needs_gpu) {
    if (auto why = cuda_unavailable_reason())
      throw Error(ExitCode::no_device, *why + "; run on a machine with an NVIDIA GPU or use --backend cpu");
    if (!options.nvml) {
      int ordinal = 0;
      SB_CUDA_CHECK(cudaGetDevice(&ordinal));
      std::string why_absent;
      options.nvml = NvmlDevice::open(ordinal, &why_absent);
    }
    if (plan.settings.energy && !(options.nvml && options.nvml->energy_j()))
      throw UsageError(energy_unavailable_message(options.nvml ? "the GPU has no energy counter" : "NVML is absent"));
  }
  Session session(source, std::move(options));
  if (sink && session.streamed()) sink->streamed(session.streamed_because(), session.link());
  if (sink) sink->input_ready(session.spec(), session.facts());
  std::vector<ResultRow> rows;
  for (const Algorithm* a : plan.algorithms) rows.push_back(session.run(*a, plan.settings, plan.params, sink));
  add_distributed_speedups(rows);
  return rows;
}

}  // namespace sb
