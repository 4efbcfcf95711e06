// The streamed placement (streamed_placement.hpp; issue 37).
#include "sortbench/place/streamed_placement.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sortbench/algo/streamed.hpp"
#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/core/progress.hpp"
#include "sortbench/place/placement_plan.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {
namespace {

// The placement's own staging on the GPU (filling, verifying): outside the algorithms' allowance.
constexpr std::uint64_t kStageBytes = std::uint64_t{128} << 20;
// Left free beside the allowance: CUDA's own allocations, the verifier's counters, launches.
constexpr std::uint64_t kHeadroomBytes = std::uint64_t{512} << 20;
// Left under the host memory limit beside the runs: the selection's caches, the sink's buffers,
// the allocator's slack.
constexpr std::uint64_t kHostReserveBytes = std::uint64_t{256} << 20;
// Not resident: the file's first keys, whose range bounds the whole file's from below (facts_first).
constexpr std::uint64_t kSampleElements = std::uint64_t{1} << 20;

class SourceReader final : public ChunkReader {
 public:
  explicit SourceReader(const InputSource& s) : source_(s) {}
  void read(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const override {
    source_.read_range(first, count, keys, vals);
  }

 private:
  const InputSource& source_;
};

}  // namespace

struct StreamedPlacement::State {
  const InputSource* source = nullptr;
  StreamedPlacementOptions options;
  InputSpec spec;
  bool positions = false;  // the values name input positions (a generated payload)
  OwnedStream stream;
  DeviceContext context = current_device_context(stream.handle);
  PinnedBuffer keys[2], vals[2];
  bool input_intact = false;
  KeyFacts facts;
  bool facts_from_run = false, facts_learned = false;  // read once: the run learns the facts
  LinkRates link;
  std::unique_ptr<ChunkVerifier> verifier;
  DeviceBuffer stage_keys, stage_vals;
  DeviceBuffer stage_words{2 * sizeof(std::uint64_t)};  // each chunk's bounds, found on the device
  PinnedBuffer host_stage;  // not resident: chunks read from the source before they go up
  int result = 1;

  std::uint64_t kb() const { return key_bytes(spec.key); }
  std::uint64_t vb() const { return payload_bytes(spec.payload); }
  std::uint64_t stage_elements() const { return std::max<std::uint64_t>(1, kStageBytes / (kb() + vb())); }
  void* key_at(int i, std::uint64_t first) const { return keys[i].as<unsigned char>() + first * kb(); }
  void* val_at(int i, std::uint64_t first) const { return vb() ? vals[i].as<unsigned char>() + first * vb() : nullptr; }

  void fill(bool learn);
  bool learn_first();
  KeyFacts whole_domain() const;
  const KeyFacts& learn_from_run();
  void add_input_chunk(std::uint64_t count, OrderedBounds& bounds, bool& any);
  void verify_resident(bool stable, ResultRow& row);
  void run_streamed(const Algorithm& a, const SortProblem& p, const MeasureSettings& settings, ResultRow& row);
  void run_in_core(const Algorithm& a, const SortProblem& p, const MeasureSettings& settings, ResultRow& row);
  void run_on_host(const Algorithm& a, const SortProblem& p, const MeasureSettings& settings, ResultRow& row);
  std::uint64_t allowance() const {
    const std::uint64_t free_bytes = free_device_bytes();
    const std::uint64_t usable = free_bytes > kHeadroomBytes ? free_bytes - kHeadroomBytes : 0;
    return options.gpu_memory_limit ? std::min(options.gpu_memory_limit, usable) : usable;
  }
  void note_link(ResultRow& row, std::uint64_t bytes_over_link, bool both_ways) const;
  // What a sort's runs may take of host memory (issue 52): the limit less what the process holds
  // now, else what the machine has available; less the staging just taken and a reserve. Runs
  // larger than that go to files.
  RunSpace run_space(std::uint64_t staging_bytes) const {
    const std::uint64_t limit = options.host_memory_limit, held = limit ? host_current_bytes() : 0;
    const std::uint64_t room = limit ? (limit > held ? limit - held : 0) : host_available_bytes();
    const std::uint64_t taken = staging_bytes + kHostReserveBytes;
    return RunSpace{room > taken ? room - taken : 0, options.tmp_dir};
  }

  // Not resident: each written chunk goes to the verifier on the GPU and on to the sink.
  class VerifyingWriter final : public ChunkWriter {
   public:
    VerifyingWriter(State& s, bool stable) : s_(s), stable_(stable) {}
    void write(std::uint64_t first, std::uint64_t count, const void* keys, const void* vals) override;
    // The run's result verified on the device as it was made (StreamedBuffers::output_seen).
    void seen_on_device(const void* keys, const void* vals, std::uint64_t count) {
      s_.verifier->add_output(keys, s_.vb() ? vals : nullptr, count, stable_);
      verified_ += count;
    }

   private:
    State& s_;
    bool stable_;
    std::uint64_t verified_ = 0;  // the output elements already verified on the device
  };
};

// The fingerprint and the bounds of one staged chunk (stage_keys/stage_vals).
void StreamedPlacement::State::add_input_chunk(std::uint64_t count, OrderedBounds& bounds, bool& any) {
  if (options.verify) verifier->add_input(stage_keys.get(), vb() ? stage_vals.get() : nullptr, count);
  if (options.given_facts || !count) return;
  std::uint64_t words[2] = {};
  discover_key_facts_device(spec.key, stage_keys.get(), count, stage_words.as<std::uint64_t>(), words, stream.handle);
  bounds.min_ordered = any ? std::min(bounds.min_ordered, words[0]) : words[0];
  bounds.max_ordered = any ? std::max(bounds.max_ordered, words[1]) : words[1];
  any = true;
}

// Not resident: whether the facts are learned by a pass of their own before the run (facts_first,
// asked with the range of the file's first keys: the whole file's is at least that).
bool StreamedPlacement::State::learn_first() {
  if (options.resident || options.given_facts || !options.facts_first) return true;
  const std::uint64_t count = std::min({spec.n, kSampleElements, stage_elements()});
  source->read_range(0, count, host_stage.get(), nullptr);
  SB_CUDA_CHECK(cudaMemcpyAsync(stage_keys.get(), host_stage.get(), count * kb(), cudaMemcpyHostToDevice, stream.handle));
  std::uint64_t words[2] = {};
  discover_key_facts_device(spec.key, stage_keys.get(), count, stage_words.as<std::uint64_t>(), words, stream.handle);
  return options.facts_first(static_cast<double>(words[1] - words[0]) + 1.0, allowance());
}

// What the facts say before a read-once run has learned them: every key of the type may occur.
KeyFacts StreamedPlacement::State::whole_domain() const {
  KeyFacts f;
  f.n = spec.n;
  apply_key_facts(f, spec.key, OrderedBounds{0, kb() >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * kb())) - 1});
  return f;
}

// The bounds the run's input chunks added up (input_seen), as the input's facts.
const KeyFacts& StreamedPlacement::State::learn_from_run() {
  if (facts_learned) return facts;
  std::uint64_t words[2] = {};
  facts = KeyFacts{};
  facts.n = spec.n;
  apply_key_facts(facts, spec.key, read_key_bounds_device(stage_words.as<std::uint64_t>(), words, stream.handle));
  facts_learned = true;
  return facts;
}

// Resident: the source into the pinned columns, chunk by chunk through the GPU (a generated
// chunk is made there; a file's is read into place and copied up), learning the input's
// fingerprint and bounds on the way when `learn`. Not resident: only the learning, reading
// the source into host staging.
void StreamedPlacement::State::fill(bool learn) {
  const std::uint64_t n = spec.n, chunk = stage_elements();
  OrderedBounds bounds;
  bool any = false;
  bool sliced = true;
  ProgressMeter meter(learn ? "place" : "restore", n * (kb() + vb()));
  if (options.resident) {
    // A source that cannot make a slice alone (a sorted distribution) fills the host once.
    try {
      source->slice(0, std::min(n, chunk));
    } catch (const UsageError&) {
      sliced = false;
      source->fill_host(keys[0].get(), vals[0].get());
    }
  }
  for (std::uint64_t first = 0; first < n; first += chunk) {
    const std::uint64_t count = std::min(chunk, n - first);
    if (!options.resident) {
      source->read_range(first, count, host_stage.get(), vb() ? host_stage.as<unsigned char>() + chunk * kb() : nullptr);
      SB_CUDA_CHECK(cudaMemcpyAsync(stage_keys.get(), host_stage.get(), count * kb(), cudaMemcpyHostToDevice,
                                    stream.handle));
      if (vb())
        SB_CUDA_CHECK(cudaMemcpyAsync(stage_vals.get(), host_stage.as<unsigned char>() + chunk * kb(), count * vb(),
                                      cudaMemcpyHostToDevice, stream.handle));
    } else if (sliced) {
      source->slice(first, count)->fill_device(stage_keys.get(), stage_vals.get(), stream.handle);
      SB_CUDA_CHECK(
          cudaMemcpyAsync(key_at(0, first), stage_keys.get(), count * kb(), cudaMemcpyDeviceToHost, stream.handle));
      if (vb())
        SB_CUDA_CHECK(
            cudaMemcpyAsync(val_at(0, first), stage_vals.get(), count * vb(), cudaMemcpyDeviceToHost, stream.handle));
    } else if (learn) {
      SB_CUDA_CHECK(
          cudaMemcpyAsync(stage_keys.get(), key_at(0, first), count * kb(), cudaMemcpyHostToDevice, stream.handle));
      if (vb())
        SB_CUDA_CHECK(
            cudaMemcpyAsync(stage_vals.get(), val_at(0, first), count * vb(), cudaMemcpyHostToDevice, stream.handle));
    }
    if (learn) add_input_chunk(count, bounds, any);
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));  // the host staging and the slot are reused next
    meter.advance(count * (kb() + vb()));
  }
  meter.finish();
  input_intact = options.resident;
  if (!learn) return;
  if (options.given_facts) {
    facts = *options.given_facts;
  } else {
    // The distinct count would need a sort of the whole input: it stays unknown (0).
    facts = KeyFacts{};
    facts.n = n;
    apply_key_facts(facts, spec.key, bounds);
  }
}

void StreamedPlacement::State::note_link(ResultRow& row, std::uint64_t bytes_over_link, bool both_ways) const {
  const double in_bytes = static_cast<double>(spec.n * (kb() + vb()));
  // Bringing the data over once and taking the result back once, one direction after the other.
  const double limit_ms = link.h2d_gbs > 0 && link.d2h_gbs > 0 ? (in_bytes / link.h2d_gbs + in_bytes / link.d2h_gbs) / 1e6 : 0;
  row.details.emplace_back("placement", options.resident ? "host" : source->parameters_measured() ? "file" : "generated");
  if (options.gpu_memory_limit) row.details.emplace_back("gpu_memory_limit", std::to_string(options.gpu_memory_limit));
  if (!both_ways) return;
  row.details.emplace_back("bytes_over_link", std::to_string(bytes_over_link));
  if (row.timed() && row.median_ms() > 0)
    row.details.emplace_back("link_gbs", fmt::format("{:.2f}", bytes_over_link / (row.median_ms() * 1e6)));
  if (limit_ms > 0) {
    row.details.emplace_back("link_limit_ms", fmt::format("{:.3f}", limit_ms));
    if (row.timed()) row.details.emplace_back("vs_link_limit", fmt::format("{:.3f}", row.median_ms() / limit_ms));
  }
}

void StreamedPlacement::State::verify_resident(bool stable, ResultRow& row) {
  if (!options.verify) {
    row.verification = "not run (verify=False)";
    return;
  }
  const double t0 = steady_now_s();
  verifier->start_output();
  const std::uint64_t n = spec.n, chunk = stage_elements();
  for (std::uint64_t first = 0; first < n; first += chunk) {
    const std::uint64_t count = std::min(chunk, n - first);
    SB_CUDA_CHECK(cudaMemcpyAsync(stage_keys.get(), key_at(result, first), count * kb(), cudaMemcpyHostToDevice,
                                  stream.handle));
    if (vb())
      SB_CUDA_CHECK(cudaMemcpyAsync(stage_vals.get(), val_at(result, first), count * vb(), cudaMemcpyHostToDevice,
                                    stream.handle));
    verifier->add_output(stage_keys.get(), vb() ? stage_vals.get() : nullptr, count, stable);
  }
  apply_verification(row, verifier->report());
  log_phase(options.phases, "verify", t0);
}

void StreamedPlacement::State::VerifyingWriter::write(std::uint64_t first, std::uint64_t count, const void* keys, const void* vals) {
  const std::uint64_t kb = s_.kb(), vb = s_.vb(), chunk = s_.stage_elements();
  // What output_seen verified on the device is not copied back up to verify again.
  const bool to_verify = s_.options.verify && first + count > verified_;
  for (std::uint64_t done = 0; to_verify && done < count; done += chunk) {
    const std::uint64_t c = std::min(chunk, count - done);
    SB_CUDA_CHECK(cudaMemcpyAsync(s_.stage_keys.get(), static_cast<const unsigned char*>(keys) + done * kb, c * kb,
                                  cudaMemcpyHostToDevice, s_.stream.handle));
    if (vb && vals)
      SB_CUDA_CHECK(cudaMemcpyAsync(s_.stage_vals.get(), static_cast<const unsigned char*>(vals) + done * vb, c * vb,
                                    cudaMemcpyHostToDevice, s_.stream.handle));
    s_.verifier->add_output(s_.stage_keys.get(), vb ? s_.stage_vals.get() : nullptr, c, stable_);
    SB_CUDA_CHECK(cudaStreamSynchronize(s_.stream.handle));  // the stage is reused by the next piece
  }
  OutputSink& sink = *s_.options.output;
  if (sink.wants(OutputSink::Column::keys))
    sink.write(OutputSink::Column::keys, first * kb, static_cast<const unsigned char*>(keys), count * kb);
  if (vb && vals && sink.wants(OutputSink::Column::values))
    sink.write(OutputSink::Column::values, first * vb, static_cast<const unsigned char*>(vals), count * vb);
}

void StreamedPlacement::State::run_streamed(const Algorithm& a, const SortProblem& p, const MeasureSettings& settings,
                                            ResultRow& row) {
  const std::uint64_t least = a.min_device_bytes ? a.min_device_bytes(p) : 0;
  const std::uint64_t free_bytes = free_device_bytes();
  if (least + kHeadroomBytes > free_bytes) {
    row.status = RowStatus::unsupported;
    row.reason = fmt::format("needs at least {} of GPU memory but {} are free", bytes_text(least), bytes_text(free_bytes));
    return;
  }
  const std::uint64_t allowed = allowance();
  if (least > allowed) {
    // This algorithm's row, not the run (issue 52 item 3): another requested one may fit.
    row.status = RowStatus::unsupported;
    row.reason = fmt::format("its smallest chunks need {} of GPU memory but the --gpu-memory-limit is {}; raise it to "
                             "at least {}",
                             bytes_text(least), bytes_text(options.gpu_memory_limit), bytes_text(least));
    return;
  }
  DeviceBuffer memory(allowed);
  PinnedBuffer scratch;
  if (!options.resident && a.host_scratch_bytes)
    scratch = PinnedBuffer(a.host_scratch_bytes(p, allowed), "the chunks staged between the file and the GPU");
  SourceReader reader(*source);
  State::VerifyingWriter writer(*this, a.stable);
  StreamedBuffers b;
  b.n = spec.n;
  if (options.resident)
    for (int i = 0; i < 2; ++i) b.keys[i] = keys[i].get(), b.vals[i] = vb() ? vals[i].get() : nullptr;
  b.input = &reader;
  b.output = &writer;
  b.device_memory = memory.get();
  b.device_bytes = allowed;
  b.host_scratch = scratch.get();
  b.host_scratch_bytes = scratch.bytes();
  b.runs = run_space(scratch.bytes());
  b.stream = stream.handle;
  b.device = &context;
  if (facts_from_run) {
    // Read once: the input's fingerprint and bounds from the chunks the run's first pass brings up.
    reset_key_bounds_device(stage_words.as<std::uint64_t>(), stream.handle);
    b.input_seen = [this](const void* keys, const void* vals, std::uint64_t count) {
      if (options.verify) verifier->add_input(keys, vb() ? vals : nullptr, count);
      add_key_bounds_device(spec.key, keys, count, stage_words.as<std::uint64_t>(), stream.handle);
    };
    b.learned_facts = [this] { return learn_from_run(); };
  }
  if (!options.resident && options.verify)
    b.output_seen = [&writer](const void* keys, const void* vals, std::uint64_t count) {
      writer.seen_on_device(keys, vals, count);
    };
  StreamedOutcome outcome;
  SteadyClockTimer timer;
  SampleSteps steps;
  steps.prepare = [&] {
    if (options.resident && !input_intact) fill(false);
  };
  // Passes the run names (begin_pass) are phases of their own, each with its progress meter.
  std::vector<std::pair<std::string, double>> passes;
  steps.run = [&](bool) {
    if (!options.resident) verifier->start_output();
    passes.clear();
    std::unique_ptr<ProgressMeter> pass_meter;
    std::string pass;
    double pass_start = 0;
    auto end_pass = [&] {
      if (pass_meter) pass_meter->finish();
      pass_meter.reset();
      if (!pass.empty()) passes.emplace_back(pass, (steady_now_s() - pass_start) * 1e3);
    };
    b.begin_pass = [&](const char* name) {
      end_pass();
      pass = name;
      pass_start = steady_now_s();
    };
    b.progress = [&](std::uint64_t bytes, std::uint64_t total) {
      if (!pass_meter) pass_meter = std::make_unique<ProgressMeter>(pass.empty() ? a.name : a.name + " " + pass, total);
      pass_meter->advance(bytes);
    };
    outcome = a.run_streamed(p, b);
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
    end_pass();
    input_intact = false;  // the contract lets a streamed sort overwrite the input's columns
  };
  MeasureSettings s = settings;
  if (!options.resident) s = single_sample_settings();  // the file is read and written once
  const MeasureResult m = measure(s, timer, steps, {});
  result = outcome.result;
  finish_timing(row, m.samples_ms, 0);
  if (facts_from_run) row.realized = learn_from_run();
  if (options.phases) {
    if (passes.empty()) options.phases->emplace_back("sort", m.samples_ms.empty() ? 0.0 : m.samples_ms.back());
    options.phases->insert(options.phases->end(), passes.begin(), passes.end());
  }
  row.details.insert(row.details.end(), outcome.details.begin(), outcome.details.end());
  note_link(row, outcome.bytes_over_link, true);
  if (options.resident) {
    verify_resident(a.stable, row);
  } else if (options.verify) {
    apply_verification(row, verifier->report());
  }
}

void StreamedPlacement::State::run_in_core(const Algorithm& a, const SortProblem& p, const MeasureSettings& settings,
                                           ResultRow& row) {
  const std::uint64_t kbytes = spec.n * kb(), vbytes = spec.n * vb();
  const std::uint64_t ws = a.workspace_bytes(p);
  const std::uint64_t needed = 2 * (kbytes + vbytes) + ws, allowed = allowance();
  if (needed > allowed) {
    row.status = RowStatus::unsupported;
    row.reason = fmt::format("needs {} on the GPU (the input, a work copy and its workspace) but {} may be used; the "
                             "ooc-* algorithms stream it",
                             bytes_text(needed), bytes_text(allowed));
    return;
  }
  DeviceBuffer d_keys[2] = {DeviceBuffer(kbytes), DeviceBuffer(kbytes)};
  DeviceBuffer d_vals[2] = {DeviceBuffer(vbytes), DeviceBuffer(vbytes)};
  DeviceBuffer workspace(ws);
  a.prepare_on(p, context);
  struct Release {
    const Algorithm& a;
    const SortProblem& p;
    const DeviceContext& c;
    ~Release() { a.release_on(p, c); }
  } release{a, p, context};
  DeviceBuffers work;
  for (int i = 0; i < 2; ++i) work.keys[i] = d_keys[i].get(), work.vals[i] = vb() ? d_vals[i].get() : nullptr;
  work.workspace = workspace.get();
  work.workspace_bytes = ws;
  work.stream = stream.handle;
  work.device = &context;
  SteadyClockTimer timer;
  SampleSteps steps;
  steps.prepare = [] {};
  steps.run = [&](bool) {
    // Copy in, sort, copy out: what an in-core sort of a host-resident input costs.
    SB_CUDA_CHECK(cudaMemcpyAsync(d_keys[0].get(), key_at(0, 0), kbytes, cudaMemcpyHostToDevice, stream.handle));
    if (vbytes)
      SB_CUDA_CHECK(cudaMemcpyAsync(d_vals[0].get(), val_at(0, 0), vbytes, cudaMemcpyHostToDevice, stream.handle));
    SortProblem q = p;
    if (p.range == RangeMode::measured && a.reads_key_facts) {
      std::uint64_t words[2] = {};
      discover_key_facts_device(spec.key, d_keys[0].get(), spec.n, stage_words.as<std::uint64_t>(), words, stream.handle);
      apply_key_facts(q.facts, spec.key, OrderedBounds{words[0], words[1]});
    }
    const int r = a.run_device(q, work);
    SB_CUDA_CHECK(cudaMemcpyAsync(key_at(1, 0), d_keys[r].get(), kbytes, cudaMemcpyDeviceToHost, stream.handle));
    if (vbytes)
      SB_CUDA_CHECK(cudaMemcpyAsync(val_at(1, 0), d_vals[r].get(), vbytes, cudaMemcpyDeviceToHost, stream.handle));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
  };
  const MeasureResult m = measure(settings, timer, steps, {});
  result = 1;
  finish_timing(row, m.samples_ms, 0);
  note_link(row, 2 * (kbytes + vbytes), true);
  verify_resident(a.stable, row);
}

void StreamedPlacement::State::run_on_host(const Algorithm& a, const SortProblem& p, const MeasureSettings& settings,
                                           ResultRow& row) {
  if (!input_intact) fill(false);
  const SortTiming timing = time_host(a, p, key_at(0, 0), val_at(0, 0), key_at(1, 0), val_at(1, 0), settings);
  result = 1;
  finish_timing(row, timing.samples_ms, 0);
  note_discovery(row, timing.discovery_ms);
  note_link(row, 0, false);
  verify_resident(a.stable, row);
}

StreamedPlacement::StreamedPlacement(const InputSource& source, StreamedPlacementOptions options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.source = &source;
  s.options = std::move(options);
  s.spec = source.spec();
  s.positions = s.spec.payload != Payload::none && !source.values_are_data();
  if (!s.options.resident && !s.options.output)
    throw std::logic_error("StreamedPlacement: a placement that is not resident writes to an output sink");
  if (s.options.measure_link) {
    const double t0 = steady_now_s();
    s.link = measure_link_rates();
    log_phase(s.options.phases, "link", t0);
  }
  const std::uint64_t chunk = s.stage_elements();
  s.stage_keys = DeviceBuffer(chunk * s.kb());
  s.stage_vals = DeviceBuffer(chunk * s.vb());
  s.verifier = std::make_unique<ChunkVerifier>(s.spec.key, s.spec.payload, s.spec.n, s.positions, s.stream.handle);
  if (s.options.resident) {
    for (int i = 0; i < 2; ++i) {
      s.keys[i] = PinnedBuffer(s.spec.n * s.kb(), "the input and its output in host memory");
      if (s.vb()) s.vals[i] = PinnedBuffer(s.spec.n * s.vb(), "the input and its output in host memory");
    }
  } else {
    s.host_stage = PinnedBuffer(chunk * (s.kb() + s.vb()), "the chunks read from the file");
  }
  const double t1 = steady_now_s();
  if (s.learn_first()) {
    s.fill(true);
  } else {
    s.facts_from_run = true;
    s.facts = s.whole_domain();
  }
  log_phase(s.options.phases, s.facts_from_run ? "sample" : "read", t1);
}

StreamedPlacement::~StreamedPlacement() = default;

const KeyFacts& StreamedPlacement::facts() const { return state_->facts; }
bool StreamedPlacement::facts_from_run() const { return state_->facts_from_run; }
const DeviceContext& StreamedPlacement::context() const { return state_->context; }
const LinkRates& StreamedPlacement::link() const { return state_->link; }
std::uint64_t StreamedPlacement::device_allowance() const { return state_->allowance(); }

void StreamedPlacement::run(const Algorithm& a, const SortProblem& problem, const MeasureSettings& settings,
                            ResultRow& row) {
  State& s = *state_;
  if (a.streamed()) return s.run_streamed(a, problem, settings, row);
  if (!s.options.resident) {
    row.status = RowStatus::unsupported;
    row.reason = "the input is read in chunks (it does not fit in host memory beside its output), which only the "
                 "ooc-* algorithms stream";
    return;
  }
  if (a.backend == Backend::gpu) return s.run_in_core(a, problem, settings, row);
  s.run_on_host(a, problem, settings, row);
}

void StreamedPlacement::drain(OutputSink& sink) const {
  const State& s = *state_;
  if (!s.options.resident) return;  // written as it was made
  using Column = OutputSink::Column;
  for (Column c : {Column::keys, Column::values}) {
    if (!sink.wants(c) || (c == Column::values && !s.vb())) continue;
    const auto* column = static_cast<const unsigned char*>(c == Column::keys ? s.keys[s.result].get() : s.vals[s.result].get());
    const std::uint64_t bytes = s.spec.n * (c == Column::keys ? s.kb() : s.vb());
    constexpr std::uint64_t kPiece = std::uint64_t{64} << 20;
    for (std::uint64_t first = 0; first < bytes; first += kPiece)
      sink.write(c, first, column + first, std::min(kPiece, bytes - first));
  }
}

}  // namespace sb
