// ooc-sort: the general out-of-core sort (issue 37 item 2) for every scalar key type and payload,
// stable. Pass A sorts runs of GPU-sized chunks (CUB's radix sort on the realized range's bits,
// algo/range_radix_sort) and writes each back over its own input chunk; the host then cuts the
// k sorted runs into buckets of exactly one chunk by multi-sequence selection
// (outofcore_index.hpp, equal keys from earlier runs first); pass B copies each bucket's k
// pieces in, sorts them (stable, pieces in run order) and writes the bucket to the output. Every
// element crosses the link twice each way, copies in both directions overlapping the sorts.
// Not resident, the same two passes are the external sort (issue 52 item 1): the input is read
// from the file once, the runs wait in a RunStore (host memory under the limit, else files in the
// temporary folder), and the buckets go to the output file as they are made.
// docs/outofcore.md says why this shape and not sampled partitioning first.
#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "outofcore.hpp"
#include "outofcore_index.hpp"
#include "outofcore_stream.hpp"
#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::ooc {
namespace {

// Runs and buckets may be larger than the streamed H-P's chunks: fewer runs make fewer, larger
// pieces in pass B (k^2 copies), and a sort of more keys at once is nearer CUB's peak rate.
constexpr u64 kMaxRunBytes = u64{2} << 30;

SortProblem chunk_problem(const SortProblem& p, u64 count) {
  SortProblem q = p;
  q.shape.n = count;
  q.facts.n = count;
  q.range = RangeMode::given;  // the placement's facts bound every chunk
  return q;
}

// Milliseconds a host thread spent in one kind of work, added up over its calls.
class HostClock {
 public:
  struct Timing {
    HostClock& clock;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Timing() { clock.ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); }
  };
  Timing time() { return Timing{*this}; }
  std::string text() const { return fmt::format("{:.1f}", ms_); }

 private:
  double ms_ = 0;
};

// The external mode's staging pieces: a read or write call long enough to amortize itself, all of
// them small beside any host memory limit (Staging::bytes_for: 2 * kStages pieces).
constexpr u64 kStagePieceBytes = u64{64} << 20;

u64 stage_elements(const SortProblem& p, u64 chunk) {
  return std::max<u64>(1, std::min<u64>(chunk, kStagePieceBytes / p.shape.element_bytes()));
}

RunSortPlan plan_for(const SortProblem& p, u64 device_bytes) {
  const unsigned element = static_cast<unsigned>(p.shape.element_bytes());
  return plan_run_sort(p.n(), element, device_bytes, kMaxRunBytes,
                       [&](u64 chunk) { return range_radix_sort_bytes(chunk_problem(p, chunk)); });
}

// The selection's reads of runs kept in files: a few keys at a time, far apart, the same ones again
// at the outer search's next step. Each thread keeps a direct-mapped cache of 4 KiB blocks, so the
// process's memory stays small whatever the runs' size (issue 52's host limit).
template <typename K>
class CachedRunKeys {
 public:
  CachedRunKeys(const RunStore& store, u64 n) : store_(store), n_(n), data_(kWays * kBlock), tags_(kWays, ~u64{0}) {}
  K operator()(u64 pos) {
    const u64 block = pos / kBlock, way = block % kWays;
    K* line = data_.data() + way * kBlock;
    if (tags_[way] != block) {
      store_.read_keys(block * kBlock, std::min(kBlock, n_ - block * kBlock), line);
      tags_[way] = block;
    }
    return line[pos % kBlock];
  }

 private:
  static constexpr u64 kBlock = 4096 / sizeof(K);
  static constexpr u64 kWays = 256;
  const RunStore& store_;
  u64 n_;
  std::vector<K> data_;
  std::vector<u64> tags_;
};

// The cuts of every bucket boundary: cuts[j][i] elements of run i precede bucket j. reader() makes
// one thread's reader of the runs' keys by position (runs of `chunk` keys laid end to end).
template <typename K, typename MakeReader>
std::vector<std::vector<u64>> cuts_from(MakeReader reader, u64 n, u64 chunk, const KeyFacts& facts) {
  const u64 runs = chunks_of(n, chunk);
  std::vector<u64> sizes(runs);
  for (u64 i = 0; i < runs; ++i) sizes[i] = std::min(chunk, n - i * chunk);
  std::vector<std::vector<u64>> cuts(runs + 1);
  cuts[0].assign(runs, 0);
  cuts[runs] = sizes;
  // Each boundary is independent: the selections run on every core (each a few thousand
  // dependent reads).
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 32));
  std::vector<std::thread> pool;
  std::exception_ptr failed;
  std::mutex failure;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        auto key = reader();
        auto key_at = [&](std::size_t i, u64 j) { return static_cast<u64>(KeyTraits<K>::ordered(key(i * chunk + j))); };
        for (u64 j = 1 + t; j < runs; j += threads)
          cuts[j] = split_runs(j * chunk, sizes, facts.min_ordered, facts.max_ordered, key_at);
      } catch (...) {  // a run file lost under the selection: the sort's error, not the thread's
        std::lock_guard<std::mutex> lock(failure);
        if (!failed) failed = std::current_exception();
      }
    });
  for (auto& th : pool) th.join();
  if (failed) std::rethrow_exception(failed);
  return cuts;
}

template <typename K>
std::vector<std::vector<u64>> bucket_cuts(const K* keys, u64 n, u64 chunk, const KeyFacts& facts) {
  return cuts_from<K>([keys] { return [keys](u64 pos) { return keys[pos]; }; }, n, chunk, facts);
}

template <typename K>
std::vector<std::vector<u64>> bucket_cuts(const RunStore& store, u64 n, u64 chunk, const KeyFacts& facts) {
  if (store.keys()) return bucket_cuts(static_cast<const K*>(store.keys()), n, chunk, facts);
  return cuts_from<K>([&store, n] { return CachedRunKeys<K>(store, n); }, n, chunk, facts);
}

// The GPU side of both modes: kSlots slots of a run (or bucket) and the sort's second buffer.
template <typename K, typename V>
struct RunSorter {
  static constexpr bool kValues = !std::is_same_v<V, NoValue>;
  struct Slot {
    K* keys;
    V* vals;
  };
  SortProblem p;  // its facts are the input's own once learned (the external mode's read once)
  const StreamedBuffers& b;
  RunSortPlan plan;
  Slot slots[kSlots + 1];  // the last is the sort's second buffer
  void* temp = nullptr;

  RunSorter(const SortProblem& problem, const StreamedBuffers& buffers)
      : p(problem), b(buffers), plan(plan_for(problem, buffers.device_bytes)) {
    if (!plan.chunk) throw std::logic_error("ooc-sort: run without a plan that fits");
    Carve arena(b.device_memory, b.device_bytes);
    for (auto& s : slots) {
      s.keys = arena.take<K>(plan.chunk * sizeof(K));
      s.vals = kValues ? arena.take<V>(plan.chunk * sizeof(V)) : nullptr;
    }
    temp = arena.take(plan.temp_bytes);
  }
  // Sorts slot s's first count elements; the result stays in slot s.
  void sort_slot(unsigned s, u64 count) {
    const SortProblem q = chunk_problem(p, count);
    DeviceBuffers d;
    d.keys[0] = slots[s].keys, d.keys[1] = slots[kSlots].keys;
    d.vals[0] = slots[s].vals, d.vals[1] = slots[kSlots].vals;
    d.workspace = temp, d.workspace_bytes = plan.temp_bytes;
    d.stream = b.stream, d.device = b.device;
    if (range_radix_sort(q, d) == 1) {
      SB_CUDA_CHECK(cudaMemcpyAsync(slots[s].keys, slots[kSlots].keys, count * sizeof(K), cudaMemcpyDeviceToDevice,
                                    b.stream));
      if (kValues)
        SB_CUDA_CHECK(cudaMemcpyAsync(slots[s].vals, slots[kSlots].vals, count * sizeof(V), cudaMemcpyDeviceToDevice,
                                      b.stream));
    }
  }
  u64 run_size(u64 c) const { return std::min(plan.chunk, p.n() - c * plan.chunk); }
  // The bytes that crossed the link, reported to the progress meter against all the run moves.
  u64 over_link = 0;
  void moved(u64 bytes, u64 total) {
    over_link += bytes;
    if (b.progress) b.progress(bytes, total);
  }
};

// Resident: the input in pinned host memory, the output beside it; runs written back over the input.
template <typename K, typename V>
StreamedOutcome run_resident(const SortProblem& p, const StreamedBuffers& b) {
  using Sorter = RunSorter<K, V>;
  constexpr bool kValues = Sorter::kValues;
  const u64 n = p.n();
  const u64 kb = sizeof(K), vb = kValues ? sizeof(V) : 0;
  StreamedOutcome outcome;
  outcome.result = 0;
  if (n == 0) return outcome;
  Sorter sorter(p, b);
  const RunSortPlan& plan = sorter.plan;
  auto& slots = sorter.slots;
  ChunkPipeline pipe(b.stream);
  K* host_keys[2] = {static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1])};
  V* host_vals[2] = {static_cast<V*>(b.vals[0]), static_cast<V*>(b.vals[1])};
  auto moved = [&](u64 bytes) { sorter.moved(bytes, 4 * n * (kb + vb)); };

  // Pass A: sorted runs, each written back over its own input chunk.
  for (u64 c = 0; c < plan.runs; ++c) {
    const unsigned s = static_cast<unsigned>(c % kSlots);
    const u64 first = c * plan.chunk, count = sorter.run_size(c);
    pipe.copy_in(s, slots[s].keys, host_keys[0] + first, count * kb, slots[s].vals,
                 kValues ? host_vals[0] + first : nullptr, count * vb);
    pipe.wait_copied(s);
    sorter.sort_slot(s, count);
    pipe.worked(s);
    pipe.copy_out(s, host_keys[0] + first, slots[s].keys, count * kb, kValues ? host_vals[0] + first : nullptr,
                  slots[s].vals, count * vb);
    moved(2 * count * (kb + vb));
  }
  if (plan.runs == 1) {
    pipe.join();
    outcome.bytes_over_link = sorter.over_link;
    outcome.details = {{"chunk_elements", std::to_string(plan.chunk)}, {"runs", "1"}};
    return outcome;  // one run is the whole sorted input, in place
  }
  pipe.join();
  SB_CUDA_CHECK(cudaStreamSynchronize(b.stream));
  const auto t0 = std::chrono::steady_clock::now();
  const auto cuts = bucket_cuts(host_keys[0], n, plan.chunk, p.facts);
  const double select_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Pass B: each bucket's pieces, in run order, sorted into the output.
  ChunkPipeline pipe_b(b.stream);
  for (u64 j = 0; j < plan.runs; ++j) {
    const unsigned s = static_cast<unsigned>(j % kSlots);
    pipe_b.begin_pieces(s);
    u64 count = 0;
    for (u64 i = 0; i < plan.runs; ++i) {
      const u64 from = i * plan.chunk + cuts[j][i], len = cuts[j + 1][i] - cuts[j][i];
      pipe_b.copy_in_piece(slots[s].keys + count, host_keys[0] + from, len * kb);
      if (kValues) pipe_b.copy_in_piece(slots[s].vals + count, host_vals[0] + from, len * vb);
      count += len;
    }
    pipe_b.end_pieces(s);
    pipe_b.wait_copied(s);
    sorter.sort_slot(s, count);
    pipe_b.worked(s);
    const u64 first = j * plan.chunk;
    pipe_b.copy_out(s, host_keys[1] + first, slots[s].keys, count * kb, kValues ? host_vals[1] + first : nullptr,
                    slots[s].vals, count * vb);
    moved(2 * count * (kb + vb));
  }
  pipe_b.join();
  outcome.result = 1;
  outcome.bytes_over_link = sorter.over_link;
  outcome.details = {{"chunk_elements", std::to_string(plan.chunk)},
                     {"runs", std::to_string(plan.runs)},
                     {"select_ms", fmt::format("{:.3f}", select_ms)}};
  return outcome;
}

// Not resident, the external sort (issue 52 item 1): the input read from the file in pass A, its
// sorted runs kept in a RunStore (host memory under the limit, else the temporary folder), the
// buckets written to the output as they are made; pinned memory is the staging alone.
template <typename K, typename V>
StreamedOutcome run_external(const SortProblem& p, const StreamedBuffers& b) {
  using Sorter = RunSorter<K, V>;
  constexpr bool kValues = Sorter::kValues;
  const u64 n = p.n();
  const unsigned kb = sizeof(K), vb = kValues ? sizeof(V) : 0;
  StreamedOutcome outcome;
  outcome.result = 0;
  if (n == 0) return outcome;
  Sorter sorter(p, b);
  const RunSortPlan& plan = sorter.plan;
  auto& slots = sorter.slots;
  ChunkPipeline pipe(b.stream);
  // The progress of each pass, which moves every element over the link once each way.
  auto moved = [&](u64 bytes) { sorter.moved(bytes, 2 * n * (kb + vb)); };
  auto begin_pass = [&](const char* pass) {
    if (b.begin_pass) b.begin_pass(pass);
  };
  // Read once (b.input_seen): each chunk's fingerprint and bounds are taken on the device before
  // its sort; until all are in, runs sort on the key type's every bit (p.facts is its domain).
  auto seen = [&](unsigned s, u64 count) {
    if (b.input_seen) b.input_seen(slots[s].keys, kValues ? slots[s].vals : nullptr, count);
  };
  // The result verified on the device before it goes down (b.output_seen), in output order.
  auto made = [&](unsigned s, u64 count) {
    if (b.output_seen) b.output_seen(slots[s].keys, kValues ? slots[s].vals : nullptr, count);
  };
  // The host thread's time in each of its four kinds of work: which of them sets the pace.
  HostClock read_clock, store_clock, unstore_clock, write_clock;
  auto from_input = [&](u64 first, u64 count, void* keys, void* vals) {
    const auto timing = read_clock.time();
    b.input->read(first, count, keys, vals);
  };
  auto to_output = [&](u64 first, u64 count, const void* keys, const void* vals) {
    const auto timing = write_clock.time();
    b.output->write(first, count, keys, vals);
  };
  // After the clocks and the writers its hand-ons use, so that it is destroyed (waiting for them)
  // first when a pass fails.
  Staging staging(pipe, b.host_scratch, stage_elements(p, plan.chunk), kb, vb);
  if (plan.runs == 1) {  // the whole input is one run: sorted straight into the output
    pipe.begin_pieces(0);
    staging.upload(from_input, 0, n, slots[0].keys, slots[0].vals);
    pipe.end_pieces(0);
    pipe.wait_copied(0);
    seen(0, n);
    sorter.sort_slot(0, n);
    made(0, n);
    pipe.worked(0);
    staging.download(0, slots[0].keys, slots[0].vals, 0, n, to_output);
    moved(2 * n * (kb + vb));
    staging.finish();
    pipe.join();
    outcome.bytes_over_link = sorter.over_link;
    outcome.details = {{"chunk_elements", std::to_string(plan.chunk)}, {"runs", "1"}, {"runs_in", "none"}};
    return outcome;
  }

  // Pass A: the input, run by run, sorted into the store.
  begin_pass("runs");
  RunStore store(n, kb, vb, b.runs);
  auto to_store = [&](u64 first, u64 count, const void* keys, const void* vals) {
    const auto timing = store_clock.time();
    store.write(first, count, keys, vals);
  };
  // A failed pass leaves hand-ons that write to the store: they end before it does.
  struct Settle {
    Staging& staging;
    ~Settle() { staging.settle(); }
  } settle{staging};
  for (u64 c = 0; c < plan.runs; ++c) {
    const unsigned s = static_cast<unsigned>(c % kSlots);
    const u64 first = c * plan.chunk, count = sorter.run_size(c);
    pipe.begin_pieces(s);
    staging.upload(from_input, first, count, slots[s].keys, slots[s].vals);
    pipe.end_pieces(s);
    pipe.wait_copied(s);
    seen(s, count);
    sorter.sort_slot(s, count);
    pipe.worked(s);
    staging.download(s, slots[s].keys, slots[s].vals, first, count, to_store);
    moved(2 * count * (kb + vb));
  }
  staging.finish();
  store.seal();
  begin_pass("select");
  if (b.learned_facts) sorter.p.facts = b.learned_facts();  // the selection's bounds, pass B's bits
  const auto t0 = std::chrono::steady_clock::now();
  const auto cuts = bucket_cuts<K>(store, n, plan.chunk, sorter.p.facts);
  const double select_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Pass B: each bucket's pieces read back from the store in run order, sorted into the output.
  begin_pass("buckets");
  auto from_store = [&](u64 first, u64 count, void* keys, void* vals) {
    const auto timing = unstore_clock.time();
    store.read(first, count, keys, vals);
  };
  for (u64 j = 0; j < plan.runs; ++j) {
    const unsigned s = static_cast<unsigned>(j % kSlots);
    pipe.begin_pieces(s);
    u64 count = 0;
    for (u64 i = 0; i < plan.runs; ++i) {
      const u64 from = i * plan.chunk + cuts[j][i], len = cuts[j + 1][i] - cuts[j][i];
      staging.upload(from_store, from, len, slots[s].keys + count, kValues ? slots[s].vals + count : nullptr);
      count += len;
    }
    pipe.end_pieces(s);
    pipe.wait_copied(s);
    sorter.sort_slot(s, count);
    made(s, count);
    pipe.worked(s);
    staging.download(s, slots[s].keys, slots[s].vals, j * plan.chunk, count, to_output);
    moved(2 * count * (kb + vb));
  }
  staging.finish();
  pipe.join();
  outcome.bytes_over_link = sorter.over_link;
  outcome.details = {{"chunk_elements", std::to_string(plan.chunk)},
                     {"runs", std::to_string(plan.runs)},
                     {"select_ms", fmt::format("{:.3f}", select_ms)},
                     {"runs_in", store.in_memory() ? "memory" : "files"},
                     {"host_read_ms", read_clock.text()},
                     {"host_runs_write_ms", store_clock.text()},
                     {"host_runs_read_ms", unstore_clock.text()},
                     {"host_write_ms", write_clock.text()},
                     {"tmp_bytes", std::to_string(store.file_bytes())}};
  return outcome;
}

}  // namespace

Algorithm make_ooc_sort() {
  Algorithm a = family_member("ooc-sort", "issue 37: GPU-sorted runs cut by multi-sequence selection, docs/outofcore.md");
  a.pick_when = "any scalar key and payload larger than the GPU: stable, every element crosses the link twice each way";
  a.constraints = "a file input past host memory keeps its sorted runs in the temporary folder (--tmp-dir)";
  a.stable = true;
  declare_types<ScalarKeys, AllValues>(a);
  a.reads_key_facts = true;
  a.min_device_bytes = [](const SortProblem& p) -> std::size_t { return plan_for(p, 0).device_bytes; };
  a.host_scratch_bytes = [](const SortProblem& p, std::size_t device_bytes) -> std::size_t {
    const u64 chunk = plan_for(p, device_bytes).chunk;
    return chunk ? Staging::bytes_for(stage_elements(p, chunk), static_cast<unsigned>(key_bytes(p.shape.key)),
                                      static_cast<unsigned>(payload_bytes(p.shape.payload))) : 0;
  };
  a.run_streamed = [](const SortProblem& p, const StreamedBuffers& b) {
    return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      using K = decltype(k);
      using V = decltype(v);
      return b.resident() ? run_resident<K, V>(p, b) : run_external<K, V>(p, b);
    });
  };
  return a;
}

}  // namespace sb::ooc
