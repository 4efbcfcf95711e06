// ooc-sort: the general out-of-core sort (issue 37 item 2) for every scalar key type and payload,
// stable. Pass A sorts runs of GPU-sized chunks (CUB's radix sort on the realized range's bits,
// algo/range_radix_sort) and writes each back over its own input chunk; the host then cuts the
// k sorted runs into buckets of exactly one chunk by multi-sequence selection
// (outofcore_index.hpp, equal keys from earlier runs first); pass B copies each bucket's k
// pieces in, sorts them (stable, pieces in run order) and writes the bucket to the output. Every
// element crosses the link twice each way, copies in both directions overlapping the sorts.
// docs/outofcore.md says why this shape and not sampled partitioning first.
#include <algorithm>
#include <chrono>
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

RunSortPlan plan_for(const SortProblem& p, u64 device_bytes) {
  const unsigned element = static_cast<unsigned>(p.shape.element_bytes());
  return plan_run_sort(p.n(), element, device_bytes, kMaxRunBytes,
                       [&](u64 chunk) { return range_radix_sort_bytes(chunk_problem(p, chunk)); });
}

// The cuts of every bucket boundary: cuts[j][i] elements of run i precede bucket j.
template <typename K>
std::vector<std::vector<u64>> bucket_cuts(const K* keys, u64 n, u64 chunk, const KeyFacts& facts) {
  const u64 runs = chunks_of(n, chunk);
  std::vector<u64> sizes(runs);
  for (u64 i = 0; i < runs; ++i) sizes[i] = std::min(chunk, n - i * chunk);
  std::vector<std::vector<u64>> cuts(runs + 1);
  cuts[0].assign(runs, 0);
  cuts[runs] = sizes;
  auto key_at = [&](std::size_t i, u64 j) { return static_cast<u64>(KeyTraits<K>::ordered(keys[i * chunk + j])); };
  // Each boundary is independent: the selections run on every core (each a few thousand
  // dependent reads of host memory).
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 32));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (u64 j = 1 + t; j < runs; j += threads)
        cuts[j] = split_runs(j * chunk, sizes, facts.min_ordered, facts.max_ordered, key_at);
    });
  for (auto& th : pool) th.join();
  return cuts;
}

template <typename K, typename V>
StreamedOutcome run(const SortProblem& p, const StreamedBuffers& b) {
  constexpr bool kValues = !std::is_same_v<V, NoValue>;
  const u64 n = p.n();
  const u64 kb = sizeof(K), vb = kValues ? sizeof(V) : 0;
  StreamedOutcome outcome;
  outcome.result = 0;
  if (n == 0) return outcome;
  const RunSortPlan plan = plan_for(p, b.device_bytes);
  if (!plan.chunk) throw std::logic_error("ooc-sort: run without a plan that fits");
  Carve arena(b.device_memory, b.device_bytes);
  struct Slot {
    K* keys;
    V* vals;
  };
  Slot slots[kSlots + 1];  // the last is the sort's second buffer
  for (auto& s : slots) {
    s.keys = arena.take<K>(plan.chunk * kb);
    s.vals = kValues ? arena.take<V>(plan.chunk * vb) : nullptr;
  }
  void* temp = arena.take(plan.temp_bytes);
  ChunkPipeline pipe(b.stream);
  K* host_keys[2] = {static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1])};
  V* host_vals[2] = {static_cast<V*>(b.vals[0]), static_cast<V*>(b.vals[1])};
  u64 over_link = 0;
  auto moved = [&](u64 bytes) {
    over_link += bytes;
    if (b.progress) b.progress(bytes, 4 * n * (kb + vb));
  };
  // Sorts slot s's first count elements; the result stays in slot s.
  auto sort_slot = [&](unsigned s, u64 count) {
    const SortProblem q = chunk_problem(p, count);
    DeviceBuffers d;
    d.keys[0] = slots[s].keys, d.keys[1] = slots[kSlots].keys;
    d.vals[0] = slots[s].vals, d.vals[1] = slots[kSlots].vals;
    d.workspace = temp, d.workspace_bytes = plan.temp_bytes;
    d.stream = b.stream, d.device = b.device;
    if (range_radix_sort(q, d) == 1) {
      SB_CUDA_CHECK(cudaMemcpyAsync(slots[s].keys, slots[kSlots].keys, count * kb, cudaMemcpyDeviceToDevice, b.stream));
      if (kValues)
        SB_CUDA_CHECK(
            cudaMemcpyAsync(slots[s].vals, slots[kSlots].vals, count * vb, cudaMemcpyDeviceToDevice, b.stream));
    }
  };

  // Pass A: sorted runs, each written back over its own input chunk.
  for (u64 c = 0; c < plan.runs; ++c) {
    const unsigned s = static_cast<unsigned>(c % kSlots);
    const u64 first = c * plan.chunk, count = std::min(plan.chunk, n - first);
    pipe.copy_in(s, slots[s].keys, host_keys[0] + first, count * kb, slots[s].vals,
                 kValues ? host_vals[0] + first : nullptr, count * vb);
    pipe.wait_copied(s);
    sort_slot(s, count);
    pipe.worked(s);
    pipe.copy_out(s, host_keys[0] + first, slots[s].keys, count * kb, kValues ? host_vals[0] + first : nullptr,
                  slots[s].vals, count * vb);
    moved(2 * count * (kb + vb));
  }
  if (plan.runs == 1) {
    pipe.join();
    outcome.bytes_over_link = over_link;
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
    sort_slot(s, count);
    pipe_b.worked(s);
    const u64 first = j * plan.chunk;
    pipe_b.copy_out(s, host_keys[1] + first, slots[s].keys, count * kb, kValues ? host_vals[1] + first : nullptr,
                    slots[s].vals, count * vb);
    moved(2 * count * (kb + vb));
  }
  pipe_b.join();
  outcome.result = 1;
  outcome.bytes_over_link = over_link;
  outcome.details = {{"chunk_elements", std::to_string(plan.chunk)},
                     {"runs", std::to_string(plan.runs)},
                     {"select_ms", fmt::format("{:.3f}", select_ms)}};
  return outcome;
}

}  // namespace

Algorithm make_ooc_sort() {
  Algorithm a = family_member("ooc-sort", "issue 37: GPU-sorted runs cut by multi-sequence selection, docs/outofcore.md");
  a.pick_when = "any scalar key and payload larger than the GPU: stable, every element crosses the link twice each way";
  a.constraints = "the input and an output of its size in host memory";
  a.stable = true;
  declare_types<ScalarKeys, AllValues>(a);
  a.reads_key_facts = true;
  a.min_device_bytes = [](const SortProblem& p) -> std::size_t { return plan_for(p, 0).device_bytes; };
  a.needs_host_columns = true;
  a.run_streamed = [](const SortProblem& p, const StreamedBuffers& b) {
    if (!b.resident()) throw std::logic_error("ooc-sort: run without the host columns it needs");
    return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      return run<decltype(k), decltype(v)>(p, b);
    });
  };
  return a;
}

}  // namespace sb::ooc
