// The input on one GPU (placement.hpp): the source fills device buffers once, untimed; each
// sample restores them from a pristine copy (or, for a single run, sorts them in place), times
// the sort with CUDA events (harness.hpp) and the verifier checks the output on the GPU.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/pinned_ring.hpp"
#include "sortbench/place/placement_plan.hpp"
#include "sortbench/core/stream_order.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/timing/clock_collector.hpp"
#include "sortbench/timing/energy.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/timing/memory_collector.hpp"
#include "sortbench/place/placement.hpp"
#include "sortbench/verify/positions_device.hpp"

namespace sb {
namespace {

std::uint64_t device_memory_used() {
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return total - free_bytes;
}

// The clock summaries, and the slowdown reasons seen by name in the details.
void note_clocks(const ClockCollector& clocks, ResultRow& row) {
  clocks.summarize(row.summaries);
  if (const std::uint64_t slow = slowdown_reasons(clocks.reasons_seen()))
    row.details.emplace_back("clock_events", clock_event_reason_names(slow));
}

std::string throttled_reason(const ClockCollector& clocks, const MeasureSettings& settings) {
  return fmt::format(
      "all {} samples were taken below {:.0f} % of the starting SM clock ({} MHz){}; let the GPU "
      "cool down or lower --throttle-threshold",
      clocks.filter().discarded(), 100 * settings.throttle_threshold, clocks.filter().reference_mhz(),
      clocks.reasons_seen() ? " (" + clock_event_reason_names(clocks.reasons_seen()) + ")" : "");
}

}  // namespace

struct DevicePlacement::State {
  DevicePlacementOptions options;
  InputSpec spec;
  bool values_are_data = false;
  std::uint64_t baseline_used = 0;
  OwnedStream stream;
  DeviceContext context = current_device_context(stream.handle);
  // Repeated: the pristine input, restored into keys[0]/vals[0] before each sample. Single run:
  // the verifier's copy of the input where it fits beside the sort (else host_copy).
  DeviceBuffer pristine_keys, pristine_vals;
  HostColumns host_copy;
  bool verify_on_host = false;
  DeviceBuffer keys[2], vals[2];
  KeyFacts facts;
  // Adopted: what the caller's buffers hold after the run (details.result_copy).
  std::string result_copy;
  // The last run's output: which work buffer, or the host columns it was verified in.
  int result = 0;
  std::optional<HostColumns> host_output;
  std::optional<EnergyBatch> idle, restores;

  std::uint64_t key_column() const { return spec.n * key_bytes(spec.key); }
  std::uint64_t value_column() const { return spec.n * payload_bytes(spec.payload); }
  // The work buffers, keys[0]/vals[0] being the caller's where adopted.
  void* key_buffer(int i) const { return i == 0 && options.adopt ? options.adopt->keys : keys[i].get(); }
  void* value_buffer(int i) const {
    return i == 0 && options.adopt && options.adopt->vals ? options.adopt->vals : vals[i].get();
  }
  // Device memory this placement allocated (the caller's adopted buffers are not its own).
  std::uint64_t owned_bytes() const {
    return keys[0].bytes() + keys[1].bytes() + vals[0].bytes() + vals[1].bytes() + pristine_keys.bytes() +
           pristine_vals.bytes();
  }

  void adopt();
  void hand_back(const SortProblem& problem, ResultRow& row);

  void place(const InputSource& source);
  void keep_for_verification();
  void learn_facts();
  void verify(const Algorithm& algo, const SortProblem& problem, ResultRow& row);
  void measure_energy(const Algorithm& a, const SortProblem& problem, const DeviceInput& input,
                      const DeviceBuffers& work, ResultRow& row);
  DeviceBuffers work_buffers(void* workspace, std::size_t workspace_bytes) const;
};

// The caller's buffers are keys[0] (and vals[0]): nothing is read from the source, and only
// the scratch column (and argsort's positions) is allocated.
void DevicePlacement::State::adopt() {
  const AdoptedColumns& a = *options.adopt;
  const std::uint64_t kb = key_column(), vb = value_column();
  const std::size_t free_bytes = free_device_bytes();
  baseline_used = device_memory_used();
  const bool own_positions = vb && !a.vals;
  const std::uint64_t needed = kb + vb + (own_positions ? vb : 0);
  if (needed > free_bytes)
    throw Error(ExitCode::device_memory,
                fmt::format("the sort needs {} on the GPU beside your array (a scratch column{}) but {} are free; "
                            "free GPU memory (e.g. your framework's memory pool) or sort a smaller array",
                            bytes_text(needed), own_positions ? " and the positions" : "", bytes_text(free_bytes)));
  if (a.producer) stream_waits_for(stream.handle, a.producer);
  keys[1] = DeviceBuffer(kb);
  if (vb) vals[1] = DeviceBuffer(vb);
  if (own_positions) {
    vals[0] = DeviceBuffer(vb);
    generate_values_device(spec.payload, spec.n, vals[0].get(), stream.handle);
  }
}

void DevicePlacement::State::place(const InputSource& source) {
  if (options.adopt) return adopt();
  const std::uint64_t kb = key_column(), vb = value_column();
  baseline_used = device_memory_used();
  const DeviceFit fit = device_fit(kb + vb, options.repeated, free_device_bytes(), options.memory_limit);
  if (!fit.fits()) throw Error(ExitCode::device_memory, fit.shortfall(options.fit_hint));
  DeviceBuffer& target_keys = options.repeated ? pristine_keys : keys[0];
  DeviceBuffer& target_vals = options.repeated ? pristine_vals : vals[0];
  target_keys = DeviceBuffer(kb);
  if (vb) target_vals = DeviceBuffer(vb);
  double t0 = steady_now_s();
  source.fill_device(target_keys.get(), target_vals.get(), stream.handle);
  log_phase(options.phases, "read", t0);
  t0 = steady_now_s();
  SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
  log_phase(options.phases, "host-to-device", t0);
  for (int i = options.repeated ? 0 : 1; i < 2; ++i) {
    keys[i] = DeviceBuffer(kb);
    if (vb) vals[i] = DeviceBuffer(vb);
  }
}

// A single run overwrites the placed input: the verifier reads a copy made before it, on the
// GPU where it fits beside the sort's buffers (with headroom for the verifier's counters and
// allocator granularity), else in host memory. Positions need no copy (they are decoded); a
// value column does (its pairs are fingerprinted).
void DevicePlacement::State::keep_for_verification() {
  const std::uint64_t kb = key_column();
  const std::uint64_t vb = values_are_data ? value_column() : 0;
  const std::uint64_t bitmap_bytes = values_are_data || !value_column() ? 0 : (spec.n + 31) / 32 * 4;
  verify_on_host = kb + vb + bitmap_bytes + (std::uint64_t{64} << 20) > free_device_bytes();
  if (!verify_on_host) {
    pristine_keys = DeviceBuffer(kb);
    pristine_vals = DeviceBuffer(vb);
    if (kb)
      SB_CUDA_CHECK(cudaMemcpyAsync(pristine_keys.get(), key_buffer(0), kb, cudaMemcpyDeviceToDevice, stream.handle));
    if (vb)
      SB_CUDA_CHECK(cudaMemcpyAsync(pristine_vals.get(), value_buffer(0), vb, cudaMemcpyDeviceToDevice, stream.handle));
  } else {
    host_copy.keys.resize(kb);
    host_copy.vals.resize(vb);
    if (kb)
      SB_CUDA_CHECK(cudaMemcpyAsync(host_copy.keys.data(), key_buffer(0), kb, cudaMemcpyDeviceToHost, stream.handle));
    if (vb)
      SB_CUDA_CHECK(cudaMemcpyAsync(host_copy.vals.data(), value_buffer(0), vb, cudaMemcpyDeviceToHost, stream.handle));
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
}

void DevicePlacement::State::learn_facts() {
  if (options.given_facts) {
    facts = *options.given_facts;
    return;
  }
  const double t0 = steady_now_s();
  const void* d_keys = options.repeated ? pristine_keys.get() : key_buffer(0);
  if (options.count_distinct) {
    // A run's work buffers are free until its first sample: the count sorts its copy there.
    facts = options.repeated ? input_stats_device(spec, d_keys, stream.handle, keys[0].get(), keys[1].get())
                             : input_stats_device(spec, d_keys, stream.handle);
  } else {
    // Min and max in one pass; the distinct count would need a sort of its own, so it stays
    // unknown (0) and an algorithm that needs distinct keys declines.
    facts = KeyFacts{};
    facts.n = spec.n;
    DeviceBuffer d_bounds(2 * sizeof(std::uint64_t));
    std::uint64_t words[2] = {};
    discover_key_facts_device(spec.key, d_keys, spec.n, d_bounds.as<std::uint64_t>(), words, stream.handle);
    apply_key_facts(facts, spec.key, OrderedBounds{words[0], words[1]});
  }
  log_phase(options.phases, "analyze", t0);
}

DeviceBuffers DevicePlacement::State::work_buffers(void* workspace, std::size_t workspace_bytes) const {
  DeviceBuffers work;
  for (int i = 0; i < 2; ++i) {
    work.keys[i] = key_buffer(i);
    work.vals[i] = value_buffer(i);
  }
  work.workspace = workspace;
  work.workspace_bytes = workspace_bytes;
  work.stream = stream.handle;
  work.device = &context;
  return work;
}

void DevicePlacement::State::verify(const Algorithm& algo, const SortProblem& problem, ResultRow& row) {
  const double t0 = steady_now_s();
  VerifyInput v;
  v.key = spec.key;
  v.payload = spec.payload;
  v.n = spec.n;
  v.check_stable = algo.stable;
  const void* out_keys = key_buffer(result);
  const void* out_vals = problem.has_payload() ? value_buffer(result) : nullptr;
  if (!verify_on_host) {
    v.keys_in = pristine_keys.get();
    if (values_are_data) v.vals_in = pristine_vals.get();
    v.keys_out = out_keys;
    v.vals_out = out_vals;
    apply_verification(row, verify_device(v, stream.handle));
    log_phase(options.phases, "verify", t0);
    return;
  }
  HostColumns out;
  out.keys.resize(key_column());
  out.vals.resize(out_vals ? value_column() : 0);
  if (!out.keys.empty())
    SB_CUDA_CHECK(cudaMemcpyAsync(out.keys.data(), out_keys, out.keys.size(), cudaMemcpyDeviceToHost, stream.handle));
  if (!out.vals.empty())
    SB_CUDA_CHECK(cudaMemcpyAsync(out.vals.data(), out_vals, out.vals.size(), cudaMemcpyDeviceToHost, stream.handle));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
  log_phase(options.phases, "device-to-host", t0);
  const double t1 = steady_now_s();
  v.keys_in = host_copy.keys.data();
  if (values_are_data) v.vals_in = host_copy.vals.data();
  v.keys_out = out.keys.data();
  v.vals_out = out_vals ? out.vals.data() : nullptr;
  apply_verification(row, verify_host(v));
  log_phase(options.phases, "verify", t1);
  host_output = std::move(out);
}

// The result into the caller's buffers: copied back from the scratch column where the
// algorithm left it there, argsort's positions decoded; then the producer's stream waits for
// all of it, so the caller's next work on the arrays sees the result without a device-wide sync.
void DevicePlacement::State::hand_back(const SortProblem& problem, ResultRow& row) {
  const AdoptedColumns& a = *options.adopt;
  result_copy = "none";
  if (result == 1) {
    if (key_column())
      SB_CUDA_CHECK(cudaMemcpyAsync(a.keys, keys[1].get(), key_column(), cudaMemcpyDeviceToDevice, stream.handle));
    result_copy = "keys";
    if (a.vals && problem.has_payload()) {
      SB_CUDA_CHECK(cudaMemcpyAsync(a.vals, vals[1].get(), value_column(), cudaMemcpyDeviceToDevice, stream.handle));
      result_copy = "keys,values";
    }
  }
  if (a.positions) decode_positions_device(spec.payload, value_buffer(result), spec.n, a.positions, stream.handle);
  result = 0;  // the caller's buffers hold it now
  row.details.emplace_back("adopted", a.vals ? "keys,values" : "keys");
  row.details.emplace_back("result_copy", result_copy);
  if (a.producer) stream_waits_for(a.producer, stream.handle);
  // The scratch is freed when the placement goes; cudaFree must not race the copies.
  SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
}

// The energy of back-to-back sorts, its restore copies and the idle power (energy.hpp); the
// restores and the idle interval once per placement, before its first batch.
void DevicePlacement::State::measure_energy(const Algorithm& a, const SortProblem& problem, const DeviceInput& input,
                                            const DeviceBuffers& work, ResultRow& row) {
  auto energy_j = [nvml = options.nvml.get()] { return nvml->energy_j().value_or(0.0); };
  if (!idle) {
    idle = idle_energy(energy_j, kEnergyBatchS);
    restores = energy_batch_device(a, problem, input, work, true, energy_j, kEnergyBatchS);
  }
  const EnergyBatch sorts = energy_batch_device(a, problem, input, work, false, energy_j, kEnergyBatchS);
  if (auto e = energy_figures(sorts, *restores, *idle, spec.n))
    summarize_energy(*e, sorts, row.summaries);
  else
    row.details.emplace_back(
        "energy", fmt::format("below the counter's resolution ({:.3f} J over {} sorts)", sorts.joules, sorts.runs));
}

DevicePlacement::DevicePlacement(const InputSource& source, DevicePlacementOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options = std::move(options);
  s.spec = source.spec();
  s.values_are_data = source.values_are_data();
  if (s.options.adopt && s.options.repeated)
    throw std::logic_error("DevicePlacement: adopted buffers are sorted once; a benchmark restores its own copy");
  s.place(source);
  s.learn_facts();
  if (!s.options.repeated && s.options.verify) s.keep_for_verification();
}

DevicePlacement::~DevicePlacement() = default;

const KeyFacts& DevicePlacement::facts() const { return state_->facts; }
std::uint64_t DevicePlacement::workspace_room() const {
  const State& s = *state_;
  const std::uint64_t free_bytes = free_device_bytes();
  if (!s.options.memory_limit) return free_bytes;
  const std::uint64_t left = s.options.memory_limit > s.owned_bytes() ? s.options.memory_limit - s.owned_bytes() : 0;
  return std::min(free_bytes, left);
}
bool DevicePlacement::verifies_on_host() const { return state_->verify_on_host; }
const DeviceContext& DevicePlacement::context() const { return state_->context; }

void DevicePlacement::run(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings,
                          ResultRow& row) {
  State& s = *state_;
  const std::size_t ws_bytes = a.workspace_bytes(problem);
  const std::size_t free_bytes = free_device_bytes();
  if (ws_bytes > free_bytes) {
    row.status = RowStatus::unsupported;
    row.reason = fmt::format("workspace needs {} but {} are free", bytes_text(ws_bytes), bytes_text(free_bytes));
    return;
  }
  if (s.options.memory_limit && s.owned_bytes() + ws_bytes > s.options.memory_limit) {
    row.status = RowStatus::unsupported;
    row.reason = fmt::format("its workspace of {} beside the input's copies passes the --gpu-memory-limit of {}",
                             bytes_text(ws_bytes), bytes_text(s.options.memory_limit));
    return;
  }
  DeviceBuffer workspace(ws_bytes);
  a.prepare_on(problem, s.context);
  // What prepare raised is lowered again however the row ends.
  struct Release {
    const Algorithm& a;
    const SortProblem& problem;
    const DeviceContext& context;
    ~Release() { a.release_on(problem, context); }
  } release{a, problem, s.context};
  const DeviceBuffers work = s.work_buffers(workspace.get(), ws_bytes);
  const DeviceInput input = s.options.repeated ? DeviceInput{s.pristine_keys.get(), s.pristine_vals.get()}
                                               : DeviceInput{s.key_buffer(0), s.value_buffer(0)};
  MemoryAccount memory;
  memory.workspace_bytes = ws_bytes;
  // What this placement holds: a benchmark's three copies; a single run's two and the
  // verifier's copy; an adopted run's scratch and that copy (the caller's buffers are theirs).
  memory.buffer_bytes = s.owned_bytes();
  memory.baseline_used = s.baseline_used;
  MemoryCollector memory_watch(device_memory_used, memory);
  std::vector<SampleCollector*> collectors{&memory_watch};
  std::optional<ClockCollector> clocks;
  if (s.options.nvml) {
    clocks.emplace([nvml = s.options.nvml.get()] { return nvml->read_clocks(); }, settings.throttle_threshold);
    collectors.push_back(&*clocks);
  }
  s.host_output.reset();
  const SortTiming timing = time_device(a, problem, input, work, settings, collectors);
  s.result = timing.result;
  if (s.options.phases)
    s.options.phases->emplace_back("sort", timing.samples_ms.empty() ? 0.0 : timing.samples_ms.back());
  finish_timing(row, timing.samples_ms, s.options.copy_bandwidth_gbs);
  note_discovery(row, timing.discovery_ms);
  memory.summarize(row.summaries, s.spec.n);
  if (clocks) note_clocks(*clocks, row);
  if (s.options.verify || s.options.repeated)
    s.verify(a, problem, row);
  else
    row.verification = "not run (verify=False)";
  if (s.options.adopt) s.hand_back(problem, row);
  if (a.observed) {
    const Details seen = a.observed(problem, work);
    row.details.insert(row.details.end(), seen.begin(), seen.end());
  }
  if (timing.samples_ms.empty() && clocks && row.status == RowStatus::ok) {
    row.status = RowStatus::throttled;
    row.reason = throttled_reason(*clocks, settings);
  }
  if (settings.energy && row.status == RowStatus::ok) s.measure_energy(a, problem, input, work, row);
}

void DevicePlacement::drain(OutputSink& sink) const {
  const State& s = *state_;
  using Column = OutputSink::Column;
  const bool with_values = s.spec.payload != Payload::none;
  if (s.host_output) {
    drain_columns(sink, *s.host_output, with_values);
    return;
  }
  PinnedRing ring(std::max(s.key_column(), with_values ? s.value_column() : 0));
  for (Column c : {Column::keys, Column::values}) {
    if (!sink.wants(c) || (c == Column::values && !with_values)) continue;
    const void* column = c == Column::keys ? s.keys[s.result].get() : s.vals[s.result].get();
    const std::uint64_t bytes = c == Column::keys ? s.key_column() : s.value_column();
    download_through(
        ring, column, bytes, s.stream.handle,
        [&](const unsigned char* chunk, std::uint64_t first, std::uint64_t n) { sink.write(c, first, chunk, n); });
  }
}

HostColumns DevicePlacement::to_host() const {
  const State& s = *state_;
  if (!s.options.repeated) throw std::logic_error("DevicePlacement::to_host: a single run keeps no pristine input");
  HostColumns h;
  h.keys.resize(s.pristine_keys.bytes());
  h.vals.resize(s.pristine_vals.bytes());
  if (!h.keys.empty())
    SB_CUDA_CHECK(cudaMemcpy(h.keys.data(), s.pristine_keys.get(), h.keys.size(), cudaMemcpyDeviceToHost));
  if (!h.vals.empty())
    SB_CUDA_CHECK(cudaMemcpy(h.vals.data(), s.pristine_vals.get(), h.vals.size(), cudaMemcpyDeviceToHost));
  return h;
}

double DevicePlacement::transfer_ms(const HostColumns& host) const {
  const State& s = *state_;
  std::vector<double> ms;
  std::vector<unsigned char> staging(host.keys.size() + host.vals.size());
  for (int i = 0; i < 3; ++i) {
    const double t0 = steady_now_s();
    if (!host.keys.empty())
      SB_CUDA_CHECK(cudaMemcpy(staging.data(), s.pristine_keys.get(), host.keys.size(), cudaMemcpyDeviceToHost));
    if (!host.vals.empty())
      SB_CUDA_CHECK(cudaMemcpy(staging.data() + host.keys.size(), s.pristine_vals.get(), s.pristine_vals.bytes(),
                               cudaMemcpyDeviceToHost));
    if (!host.keys.empty())
      SB_CUDA_CHECK(cudaMemcpy(s.keys[0].get(), staging.data(), host.keys.size(), cudaMemcpyHostToDevice));
    if (!host.vals.empty())
      SB_CUDA_CHECK(cudaMemcpy(s.vals[0].get(), staging.data() + host.keys.size(), s.pristine_vals.bytes(),
                               cudaMemcpyHostToDevice));
    ms.push_back((steady_now_s() - t0) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  return ms[1];
}

}  // namespace sb
