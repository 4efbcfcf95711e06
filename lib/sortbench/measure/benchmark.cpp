#include "sortbench/measure/benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "sortbench/measure/clock_collector.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/measure/device_info.hpp"
#include "sortbench/measure/distributed.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/measure/memory_collector.hpp"
#include "sortbench/measure/verify.hpp"

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

std::string bytes_text(std::uint64_t b) {
  return b >= (1ull << 30) ? fmt::format("{:.2f} GiB", b / double(1ull << 30))
                           : fmt::format("{:.1f} MiB", b / double(1ull << 20));
}

Params params_for(const Algorithm& a, const Params& all) {
  Params mine;
  for (const auto& name : a.params)
    if (auto it = all.find(name); it != all.end()) mine.insert(*it);
  return mine;
}

ResultRow start_row(const Algorithm& a, const RunPlan& plan, const InputSpec& spec, const KeyFacts& stats,
                    const InputSource& source, RangeMode range) {
  ResultRow row;
  row.algorithm = a.name;
  row.family = a.family;
  row.backend = a.backend;
  row.stable = a.stable;
  row.requested = plan.request;
  row.spec = spec;
  row.realized = stats;
  row.source = source.provenance();
  row.range = range;
  row.params = params_for(a, plan.params);
  row.verification = "not run";
  return row;
}

void finish_timing(ResultRow& row, const std::vector<double>& samples, double copy_bw) {
  namespace tag = summary_tag;
  if (samples.empty()) return;  // every sample throttled: no time to report
  const TimingStats t = summarize_times(samples);
  Summaries& s = row.summaries;
  s.set(tag::samples, static_cast<double>(t.samples));
  s.set(tag::min_ms, t.min_ms);
  s.set(tag::median_ms, t.median_ms);
  s.set(tag::mean_ms, t.mean_ms);
  s.set(tag::max_ms, t.max_ms);
  s.set(tag::stddev_ms, t.stddev_ms);
  s.set(tag::rel_stddev, t.rel_stddev);
  const double seconds = t.median_ms * 1e-3;
  if (seconds > 0) {
    const double gbs = 2.0 * static_cast<double>(row.spec.n * row.spec.element_bytes()) / seconds / 1e9;
    s.set(tag::keys_per_s, static_cast<double>(row.spec.n) / seconds);
    s.set(tag::bandwidth_gbs, gbs);
    if (row.backend == Backend::gpu && copy_bw > 0) s.set(tag::bandwidth_pct, 100.0 * gbs / copy_bw);
  }
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// What the algorithm says it did goes first; the harness's own notes (discovery_ms) stay.
void add_algorithm_details(const Algorithm& a, const SortProblem& p, ResultRow& row) {
  if (!a.details) return;
  const Details d = a.details(p);
  row.details.insert(row.details.begin(), d.begin(), d.end());
}

void note_discovery(ResultRow& row, const std::vector<double>& discovery_ms) {
  if (!discovery_ms.empty())
    row.details.emplace_back("discovery_ms", fmt::format("{:.4f}", median_of(discovery_ms)));
}

void apply_verification(ResultRow& row, const VerifyReport& v) {
  row.verification = v.message;
  if (!v.ok) {
    row.status = RowStatus::verify_failed;
    row.reason = v.message;
  }
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
  }
}

struct HostInput {
  std::vector<unsigned char> keys;
  std::vector<unsigned char> vals;
};

// The clock summaries, and the slowdown reasons seen by name in the details.
void note_clocks(const ClockCollector& clocks, ResultRow& row) {
  clocks.summarize(row.summaries);
  if (const std::uint64_t slow = slowdown_reasons(clocks.reasons_seen()))
    row.details.emplace_back("clock_events", clock_event_reason_names(slow));
}

std::string throttled_reason(const ClockCollector& clocks, const MeasureSettings& settings) {
  return fmt::format("all {} samples were taken below {:.0f} % of the starting SM clock ({} MHz){}; let the GPU "
                     "cool down or lower --throttle-threshold",
                     clocks.filter().discarded(), 100 * settings.throttle_threshold, clocks.filter().reference_mhz(),
                     clocks.reasons_seen() ? " (" + clock_event_reason_names(clocks.reasons_seen()) + ")" : "");
}

std::uint64_t device_memory_used() {
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return total - free_bytes;
}

class DeviceSession {
 public:
  DeviceSession(const InputSource& source, std::shared_ptr<const NvmlDevice> nvml)
      : spec_(source.spec()), values_are_data_(source.values_are_data()), nvml_(std::move(nvml)) {
    const InputSpec& spec = spec_;
    const std::uint64_t kb = spec.n * key_bytes(spec.key);
    const std::uint64_t vb = spec.n * payload_bytes(spec.payload);
    std::size_t free_bytes = 0, total = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    baseline_used_ = total - free_bytes;
    const std::uint64_t needed = 3 * (kb + vb);
    if (needed > free_bytes)
      throw Error(ExitCode::device_memory,
                  fmt::format("the input needs {} on the GPU (input plus two work buffers of {} each) but {} are "
                              "free; {}",
                              bytes_text(needed), bytes_text(kb + vb), bytes_text(free_bytes),
                              source.provenance().value("kind", "") == "file"
                                  ? "benchmark a smaller file, or sort this one with --backend cpu"
                                  : "lower -n"));
    pristine_keys_ = DeviceBuffer(kb);
    if (vb) pristine_vals_ = DeviceBuffer(vb);
    source.fill_device(pristine_keys_.get(), pristine_vals_.get(), stream_);
    stats_ = input_stats_device(spec, pristine_keys_.get(), stream_);
    for (int i = 0; i < 2; ++i) {
      keys_[i] = DeviceBuffer(kb);
      if (vb) vals_[i] = DeviceBuffer(vb);
    }
  }

  const KeyFacts& stats() const { return stats_; }
  const DeviceContext& context() const { return context_; }

  // What moving this input to the host and the sorted result back costs (pageable memory,
  // as a CPU sort called from GPU code would do it): median of three round trips.
  double transfer_ms(const HostInput& host) const {
    std::vector<double> ms;
    std::vector<unsigned char> staging(host.keys.size() + host.vals.size());
    for (int i = 0; i < 3; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      if (!host.keys.empty())
        SB_CUDA_CHECK(cudaMemcpy(staging.data(), pristine_keys_.get(), host.keys.size(), cudaMemcpyDeviceToHost));
      if (!host.vals.empty())
        SB_CUDA_CHECK(cudaMemcpy(staging.data() + host.keys.size(), pristine_vals_.get(), pristine_vals_.bytes(),
                                 cudaMemcpyDeviceToHost));
      if (!host.keys.empty())
        SB_CUDA_CHECK(cudaMemcpy(keys_[0].get(), staging.data(), host.keys.size(), cudaMemcpyHostToDevice));
      if (!host.vals.empty())
        SB_CUDA_CHECK(cudaMemcpy(vals_[0].get(), staging.data() + host.keys.size(), pristine_vals_.bytes(),
                                 cudaMemcpyHostToDevice));
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[1];
  }

  HostInput to_host() const {
    HostInput h;
    h.keys.resize(pristine_keys_.bytes());
    h.vals.resize(pristine_vals_.bytes());
    if (!h.keys.empty())
      SB_CUDA_CHECK(cudaMemcpy(h.keys.data(), pristine_keys_.get(), h.keys.size(), cudaMemcpyDeviceToHost));
    if (!h.vals.empty())
      SB_CUDA_CHECK(cudaMemcpy(h.vals.data(), pristine_vals_.get(), pristine_vals_.bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

  void run(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings, ResultRow& row,
           double copy_bw) {
    const std::size_t ws_bytes = a.workspace_bytes(problem);
    std::size_t free_bytes = 0, total = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (ws_bytes > free_bytes) {
      row.status = RowStatus::unsupported;
      row.reason = fmt::format("workspace needs {} but {} are free", bytes_text(ws_bytes), bytes_text(free_bytes));
      return;
    }
    DeviceBuffer workspace(ws_bytes);
    a.prepare_on(problem, context_);
    // What prepare raised is lowered again however the row ends.
    struct Release {
      const Algorithm& a;
      const SortProblem& problem;
      const DeviceContext& context;
      ~Release() { a.release_on(problem, context); }
    } release{a, problem, context_};
    DeviceBuffers work;
    for (int i = 0; i < 2; ++i) {
      work.keys[i] = keys_[i].get();
      work.vals[i] = vals_[i].get();
    }
    work.workspace = workspace.get();
    work.workspace_bytes = ws_bytes;
    work.stream = stream_;
    work.device = &context_;
    const DeviceInput input{pristine_keys_.get(), pristine_vals_.get()};
    MemoryAccount memory;
    memory.workspace_bytes = ws_bytes;
    memory.buffer_bytes = 3 * (keys_[0].bytes() + vals_[0].bytes());
    memory.baseline_used = baseline_used_;
    MemoryCollector memory_watch(device_memory_used, memory);
    std::vector<SampleCollector*> collectors{&memory_watch};
    std::optional<ClockCollector> clocks;
    if (nvml_) {
      clocks.emplace([nvml = nvml_.get()] { return nvml->read_clocks(); }, settings.throttle_threshold);
      collectors.push_back(&*clocks);
    }
    const SortTiming timing = time_device(a, problem, input, work, settings, collectors);
    finish_timing(row, timing.samples_ms, copy_bw);
    note_discovery(row, timing.discovery_ms);
    memory.summarize(row.summaries, spec_.n);
    if (clocks) note_clocks(*clocks, row);
    VerifyInput v;
    v.key = spec_.key;
    v.payload = spec_.payload;
    v.n = spec_.n;
    v.keys_in = pristine_keys_.get();
    v.keys_out = work.keys[timing.result];
    v.vals_out = problem.has_payload() ? work.vals[timing.result] : nullptr;
    if (values_are_data_) v.vals_in = pristine_vals_.get();
    v.check_stable = a.stable;
    apply_verification(row, verify_device(v, stream_));
    if (a.observed) {
      const Details seen = a.observed(problem, work);
      row.details.insert(row.details.end(), seen.begin(), seen.end());
    }
    if (timing.samples_ms.empty() && clocks && row.status == RowStatus::ok) {
      row.status = RowStatus::throttled;
      row.reason = throttled_reason(*clocks, settings);
    }
    if (settings.energy && row.status == RowStatus::ok) measure_energy(a, problem, input, work, row);
  }

 private:
  // The energy of back-to-back sorts, its restore copies and the idle power (energy.hpp); the
  // restores and the idle interval once per session, before its first batch.
  void measure_energy(const Algorithm& a, const SortProblem& problem, const DeviceInput& input,
                      const DeviceBuffers& work, ResultRow& row) {
    auto energy_j = [nvml = nvml_.get()] { return nvml->energy_j().value_or(0.0); };
    if (!idle_) {
      idle_ = idle_energy(energy_j, kEnergyBatchS);
      restores_ = energy_batch_device(a, problem, input, work, true, energy_j, kEnergyBatchS);
    }
    const EnergyBatch sorts = energy_batch_device(a, problem, input, work, false, energy_j, kEnergyBatchS);
    if (auto e = energy_figures(sorts, *restores_, *idle_, spec_.n)) summarize_energy(*e, sorts, row.summaries);
    else
      row.details.emplace_back("energy", fmt::format("below the counter's resolution ({:.3f} J over {} sorts)",
                                                     sorts.joules, sorts.runs));
  }

  InputSpec spec_;
  bool values_are_data_ = false;
  std::shared_ptr<const NvmlDevice> nvml_;
  std::uint64_t baseline_used_ = 0;
  std::optional<EnergyBatch> idle_, restores_;
  // Owns the session's stream, so a constructor that throws part-way still releases it.
  struct Stream {
    cudaStream_t handle{};
    Stream() { SB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(handle); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
  };
  Stream owned_stream_;
  cudaStream_t stream_ = owned_stream_.handle;
  DeviceContext context_ = current_device_context(stream_);
  DeviceBuffer pristine_keys_, pristine_vals_;
  DeviceBuffer keys_[2], vals_[2];
  KeyFacts stats_;
};

void run_host_algorithm(const Algorithm& a, const SortProblem& problem, const HostInput& input,
                        const MeasureSettings& settings, bool values_are_data, ResultRow& row) {
  std::vector<unsigned char> keys(input.keys.size());
  std::vector<unsigned char> vals(input.vals.size());
  const void* in_vals = input.vals.empty() ? nullptr : input.vals.data();
  const SortTiming timing =
      time_host(a, problem, input.keys.data(), in_vals, keys.data(), vals.empty() ? nullptr : vals.data(), settings);
  finish_timing(row, timing.samples_ms, 0);
  note_discovery(row, timing.discovery_ms);
  VerifyInput v;
  v.key = problem.shape.key;
  v.payload = problem.shape.payload;
  v.n = problem.n();
  v.keys_in = input.keys.data();
  v.keys_out = keys.data();
  v.vals_out = in_vals ? vals.data() : nullptr;
  if (values_are_data && in_vals) v.vals_in = in_vals;
  v.check_stable = a.stable;
  apply_verification(row, verify_host(v));
}

}  // namespace

std::vector<ResultRow> run_benchmark(const RunPlan& plan, RunObserver* observer) {
  const std::shared_ptr<const InputSource> source =
      plan.source ? plan.source : make_generated_source(derive_input_spec(plan.request), plan.request);
  InputSpec spec = source->spec();
  const RangeMode range = plan.range.value_or(source->default_range());
  const bool needs_gpu = std::any_of(plan.algorithms.begin(), plan.algorithms.end(),
                                     [](const Algorithm* a) { return a->backend == Backend::gpu; });
  const bool any_distributed = std::any_of(plan.algorithms.begin(), plan.algorithms.end(),
                                          [](const Algorithm* a) { return bool(a->run_distributed); });
  std::string whole_input_unfit;  // why the whole input does not fit on one GPU
  std::unique_ptr<DeviceSession> device;
  std::shared_ptr<const NvmlDevice> nvml = plan.nvml;
  HostInput host;
  KeyFacts stats;
  if (needs_gpu) {
    if (auto why = cuda_unavailable_reason())
      throw Error(ExitCode::no_device, *why + "; run on a machine with an NVIDIA GPU or use --backend cpu");
    if (!nvml) {
      int ordinal = 0;
      SB_CUDA_CHECK(cudaGetDevice(&ordinal));
      std::string why_absent;
      nvml = NvmlDevice::open(ordinal, &why_absent);
    }
    if (plan.settings.energy && !(nvml && nvml->energy_j()))
      throw UsageError(energy_unavailable_message(nvml ? "the GPU has no energy counter" : "NVML is absent"));
    try {
      device = std::make_unique<DeviceSession>(*source, nvml);
      stats = device->stats();
    } catch (const Error& e) {
      // Beyond one GPU's memory: the distributed algorithms still run (each rank holds a
      // slice); the single-GPU rows say why they cannot, and the statistics are the spec's.
      if (e.code() != ExitCode::device_memory || !any_distributed) throw;
      whole_input_unfit = e.what();
      stats.n = spec.n;
      stats.min = spec.min_val;
      stats.max = spec.max_val - 1;
      stats.len = spec.len;
    }
  } else {
    host.keys.resize(spec.n * key_bytes(spec.key));
    host.vals.resize(spec.n * payload_bytes(spec.payload));
    source->fill_host(host.keys.data(), host.vals.empty() ? nullptr : host.vals.data());
    stats = input_stats_host(spec, host.keys.data());
  }
  if (auto s = source->sortedness()) stats.sortedness = *s;
  if (plan.source && source->provenance().value("kind", "") == "file") {
    // A file's parameters are what was measured on it: [min, max + 1), its distinct count.
    spec.min_val = stats.min;
    spec.max_val = stats.max + 1;
    spec.range = spec.n ? spec.max_val - spec.min_val : 1;
    spec.len = stats.len;
  }
  if (observer) observer->input_ready(spec, stats);

  bool host_copy_ready = !needs_gpu;
  std::vector<ResultRow> rows;
  for (const Algorithm* a : plan.algorithms) {
    if (observer) observer->row_started(*a);
    ResultRow row = start_row(*a, plan, spec, stats, *source, range);
    SortProblem problem{spec.shape(), stats, row.params, range, device ? &device->context() : nullptr};
    try {
      if (auto why = a->why_unsupported(problem)) {
        row.status = RowStatus::unsupported;
        row.reason = *why;
      } else if (a->run_distributed && needs_sorting(spec.dist)) {
        // Each rank generates its own slice: a distribution made by sorting the whole input has none.
        row.status = RowStatus::unsupported;
        row.reason = fmt::format("the {} distribution is made by sorting the whole input, which no rank holds; use "
                                 "uniform, zipf or entropy",
                                 to_string(spec.dist));
      } else if (!a->run_distributed && needs_gpu && !device) {
        row.status = RowStatus::unsupported;
        row.reason = whole_input_unfit;
      } else if (a->run_distributed && source->provenance().value("kind", "") != "generator") {
        // Each rank generates its own slice (generate_device_slice); a file is not sharded yet.
        row.status = RowStatus::unsupported;
        row.reason = "distributed runs generate their input on the ranks; a file input is not split over them yet";
      } else if (a->run_distributed) {
        // No devices named (a sweep): one rank on the run's GPU.
        std::vector<int> ranks = plan.devices;
        if (ranks.empty()) ranks.push_back(device ? device->context().ordinal : 0);
        const DistributedOutcome out = a->run_distributed(
            problem,
            DistributedRequest{spec, ranks, plan.settings, plan.process_rank, plan.process_world, plan.rendezvous});
        finish_timing(row, out.samples_ms, 0);
        row.details = out.details;
        apply_verification(row, out.verification);
      } else if (a->backend == Backend::gpu) {
        device->run(*a, problem, plan.settings, row, plan.copy_bandwidth_gbs);
        add_algorithm_details(*a, problem, row);
      } else {
        if (!host_copy_ready) host = device->to_host(), host_copy_ready = true;
        run_host_algorithm(*a, problem, host, plan.settings, source->values_are_data(), row);
        add_algorithm_details(*a, problem, row);
        if (device && row.timed()) {
          // The input lives on the GPU: a CPU sort of it also pays for the round trip.
          const double transfer = device->transfer_ms(host);
          row.details.emplace_back("transfer_ms", fmt::format("{:.4f}", transfer));
          row.details.emplace_back("median_with_transfer_ms", fmt::format("{:.4f}", row.median_ms() + transfer));
        }
      }
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      // A rank without memory stops the whole run (exit 4), as an input too large for one GPU
      // does; so does a rendezvous that other processes never joined (exit 2).
      if (a->run_distributed && (e.code() == ExitCode::device_memory || e.code() == ExitCode::usage)) throw;
      row.status = RowStatus::error;
      row.reason = e.what();
      if (needs_gpu) {
        cudaGetLastError();
        try {
          require_usable_context();
        } catch (...) {
          rows.push_back(row);
          if (observer) observer->row_done(rows.back());
          throw;
        }
      }
    } catch (const std::exception& e) {
      row.status = RowStatus::error;
      row.reason = e.what();
    }
    rows.push_back(row);
    if (observer) observer->row_done(rows.back());
  }
  add_distributed_speedups(rows);
  return rows;
}

}  // namespace sb
