// ooc-hp: streamed H-P (issue 37 item 1; seed 004's histogram and prefix sums, Kozakai 2022,
// Algorithm 2, taken out of core): the keys cross the link once each way. Pass 1 copies the input
// through the GPU chunk by chunk and counts it into a histogram that stays there; its exclusive
// scan gives every bin's run of equal keys in the output; pass 2 makes the output chunk by chunk
// from the histogram alone (marks where a run begins, a max-scan names each position's bin) and
// copies it back. With --range measured, a first pass finds min and max. docs/outofcore.md.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_output_iterator.h>

#include <fmt/format.h>

#include "outofcore.hpp"
#include "outofcore_index.hpp"
#include "outofcore_stream.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::ooc {
namespace {

constexpr unsigned kBlock = 256;

template <typename Count>
__device__ void add_one(Count* c) {
  if constexpr (sizeof(Count) == 4) atomicAdd(reinterpret_cast<unsigned*>(c), 1u);
  else atomicAdd(reinterpret_cast<unsigned long long*>(c), 1ull);
}

template <typename K, typename Count>
__global__ void count_keys(const K* keys, u64 count, u64 min_ordered, Count* hist) {
  for (u64 i = blockIdx.x * u64{blockDim.x} + threadIdx.x; i < count; i += u64{gridDim.x} * blockDim.x)
    add_one(&hist[static_cast<u64>(KeyTraits<K>::ordered(keys[i])) - min_ordered]);
}

// The ordered bounds of a chunk into bounds[0] (min) and bounds[1] (max).
template <typename K>
__global__ void chunk_bounds(const K* keys, u64 count, unsigned long long* bounds) {
  unsigned long long lo = ~0ull, hi = 0;
  for (u64 i = blockIdx.x * u64{blockDim.x} + threadIdx.x; i < count; i += u64{gridDim.x} * blockDim.x) {
    const unsigned long long o = KeyTraits<K>::ordered(keys[i]);
    lo = o < lo ? o : lo;
    hi = o > hi ? o : hi;
  }
  atomicMin(&bounds[0], lo);
  atomicMax(&bounds[1], hi);
}

// table[c] = the bin holding output position c * chunk (its run covers it); table[chunks] = the
// last bin. offsets: the exclusive scan of the counts, bins + 1 entries.
template <typename Count>
__global__ void chunk_first_bins(const Count* offsets, u64 bins, u64 chunk, u64 chunks, u64* table) {
  for (u64 c = blockIdx.x * u64{blockDim.x} + threadIdx.x; c <= chunks; c += u64{gridDim.x} * blockDim.x) {
    if (c == chunks) {
      table[c] = bins - 1;
      continue;
    }
    table[c] = bin_holding(offsets, bins, c * chunk);
  }
}

template <typename Count>
__global__ void mark_runs(const Count* offsets, const u64* table, u64 c, u64 first, u64 size, std::uint32_t* marks) {
  const u64 b0 = table[c], b1 = table[c + 1];
  for (u64 b = b0 + blockIdx.x * u64{blockDim.x} + threadIdx.x; b <= b1; b += u64{gridDim.x} * blockDim.x) {
    u64 local = 0;
    if (run_mark_in_chunk(offsets[b], offsets[b + 1] - offsets[b], first, size, local))
      marks[local] = static_cast<std::uint32_t>(b - b0);
  }
}

// A position's bin (relative to the chunk's first) as its key.
template <typename K>
struct KeyOfMark {
  const u64* table;
  u64 c;
  u64 min_ordered;
  __device__ K operator()(std::uint32_t mark) const {
    using U = typename KeyTraits<K>::Ordered;
    return KeyTraits<K>::from_ordered(static_cast<U>(min_ordered + table[c] + mark));
  }
};

struct MaxOf {
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a > b ? a : b; }
};

template <typename Count>
std::size_t hist_scan_bytes(u64 bins) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<Count*>(nullptr), bins + 1));
  return bytes;
}

template <typename K>
std::size_t marks_scan_bytes(u64 chunk) {
  std::size_t bytes = 0;
  auto out = thrust::make_transform_output_iterator(static_cast<K*>(nullptr), KeyOfMark<K>{});
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, static_cast<std::uint32_t*>(nullptr), out, MaxOf{},
                                               static_cast<std::int64_t>(chunk)));
  return bytes;
}

// Both scans share one temporary buffer: the larger of the two, for the largest chunk (of at
// most cap_bytes of keys, hp_chunk_cap_bytes).
std::size_t scan_bytes(const SortProblem& p, u64 bins, u64 cap_bytes) {
  const u64 cap = std::max<u64>(cap_bytes / key_bytes(p.shape.key), 1);
  const u64 chunk = std::min<u64>(std::max<u64>(p.n(), 1), cap);
  std::size_t hist = 0, marks = 0;
  dispatch_element<IntegerKeys, KeysOnly>(p.shape.key, Payload::none, [&](auto k, auto) {
    using K = decltype(k);
    hist = hp_count_bytes(p.n()) == 8 ? hist_scan_bytes<unsigned long long>(bins) : hist_scan_bytes<unsigned>(bins);
    marks = marks_scan_bytes<K>(chunk);
  });
  return std::max(hist, marks);
}

u64 bins_of(const KeyFacts& f) { return f.n ? f.max_ordered - f.min_ordered + 1 : 1; }

HpStreamPlan plan_for(const SortProblem& p, u64 device_bytes) {
  const u64 bins = bins_of(p.facts), cap = hp_chunk_cap_bytes(p);
  return plan_hp_stream(p.n(), static_cast<unsigned>(key_bytes(p.shape.key)), bins, scan_bytes(p, bins, cap),
                        device_bytes, cap);
}

// Where a pass's chunk comes from and goes to on the host: the resident columns directly (they
// are pinned), else a staging slot of host scratch filled by the reader or emptied by the writer.
struct HostSide {
  const StreamedBuffers& b;
  u64 slot_bytes;
  unsigned char* staging(unsigned slot) const { return static_cast<unsigned char*>(b.host_scratch) + slot * slot_bytes; }
};

template <typename K, typename Count>
StreamedOutcome run(const SortProblem& p, const StreamedBuffers& b) {
  const u64 n = p.n();
  const unsigned kb = sizeof(K);
  StreamedOutcome outcome;
  outcome.result = 1;
  if (n == 0) return outcome;
  ChunkPipeline pipe(b.stream);
  const unsigned grid = static_cast<unsigned>(b.device->props.multiProcessorCount * 8);
  u64 over_link = 0;
  auto moved = [&](u64 bytes) {
    over_link += bytes;
    if (b.progress) b.progress(bytes, (p.range == RangeMode::measured ? 3 : 2) * n * kb);
  };

  // Pass over the input: each chunk copied into a slot, then `work(slot, count)` on it.
  auto input_pass = [&](K* const slots[kSlots], u64 chunk, const HostSide& host, auto&& work) {
    const u64 chunks = chunks_of(n, chunk);
    for (u64 c = 0; c < chunks; ++c) {
      const unsigned s = static_cast<unsigned>(c % kSlots);
      const u64 first = c * chunk, count = std::min(chunk, n - first);
      const void* src = nullptr;
      if (b.resident()) {
        src = static_cast<const K*>(b.keys[0]) + first;
      } else {
        pipe.sync_worked(s);  // the staging slot's last copy is done
        b.input->read(first, count, host.staging(s), nullptr);
        src = host.staging(s);
      }
      pipe.copy_in(s, slots[s], src, count * kb);
      pipe.wait_copied(s);
      work(slots[s], count);
      pipe.worked(s);
      moved(count * kb);
    }
  };

  KeyFacts facts = p.facts;
  if (p.range == RangeMode::measured) {
    // Min and max are not known: one more pass over the link finds them, in the chunks of the
    // plan for the placement's own facts (so the host staging asked for fits them).
    const u64 chunk = plan_for(p, b.device_bytes).chunk;
    Carve arena(b.device_memory, b.device_bytes);
    auto* bounds = arena.take<unsigned long long>(2 * sizeof(unsigned long long));
    K* slots[kSlots];
    for (auto& s : slots) s = arena.take<K>(chunk * kb);
    const unsigned long long init[2] = {~0ull, 0ull};
    SB_CUDA_CHECK(cudaMemcpyAsync(bounds, init, sizeof init, cudaMemcpyHostToDevice, b.stream));
    const HostSide host{b, align_up(chunk * kb)};
    input_pass(slots, chunk, host, [&](const K* keys, u64 count) {
      chunk_bounds<K><<<grid_for(count, kBlock, grid), kBlock, 0, b.stream>>>(keys, count, bounds);
    });
    unsigned long long found[2];
    SB_CUDA_CHECK(cudaMemcpyAsync(found, bounds, sizeof found, cudaMemcpyDeviceToHost, b.stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(b.stream));
    facts.min_ordered = found[0];
    facts.max_ordered = found[1];
  }
  const u64 bins = bins_of(facts);
  const u64 cap = hp_chunk_cap_bytes(p);
  const std::size_t temp_bytes = scan_bytes(p, bins, cap);
  const HpStreamPlan plan = plan_hp_stream(n, kb, bins, temp_bytes, b.device_bytes, cap);
  if (!plan.chunk) throw std::logic_error("ooc-hp: the histogram no longer fits after the measured range");
  Carve arena(b.device_memory, b.device_bytes);
  Count* hist = arena.take<Count>(plan.hist_bytes);
  void* temp = arena.take(temp_bytes);
  u64* table = arena.take<u64>(plan.table_bytes);
  std::uint32_t* marks = arena.take<std::uint32_t>(plan.marks_bytes);
  K* slots[kSlots];
  for (auto& s : slots) s = arena.take<K>(plan.slot_bytes);
  const HostSide host{b, plan.slot_bytes};

  // Pass 1: the histogram.
  SB_CUDA_CHECK(cudaMemsetAsync(hist, 0, (bins + 1) * sizeof(Count), b.stream));
  input_pass(slots, plan.chunk, host, [&](const K* keys, u64 count) {
    count_keys<K, Count><<<grid_for(count, kBlock, grid), kBlock, 0, b.stream>>>(keys, count, facts.min_ordered, hist);
  });
  std::size_t tb = temp_bytes;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, tb, hist, bins + 1, b.stream));
  chunk_first_bins<Count><<<grid_for(plan.chunks + 1, kBlock), kBlock, 0, b.stream>>>(hist, bins, plan.chunk,
                                                                                         plan.chunks, table);
  SB_CUDA_CHECK_LAUNCH();

  // Pass 2: the output, chunk by chunk, from the histogram alone.
  for (u64 c = 0; c < plan.chunks; ++c) {
    const unsigned s = static_cast<unsigned>(c % kSlots);
    const u64 first = c * plan.chunk, count = std::min(plan.chunk, n - first);
    if (!b.resident() && c >= kSlots) {
      // The slot's staging holds chunk c - kSlots: hand it to the writer before reuse.
      pipe.sync_drained(s);
      const u64 f = (c - kSlots) * plan.chunk;
      b.output->write(f, std::min(plan.chunk, n - f), host.staging(s), nullptr);
    }
    pipe.wait_drained(s);
    SB_CUDA_CHECK(cudaMemsetAsync(marks, 0, count * sizeof(std::uint32_t), b.stream));
    mark_runs<Count><<<grid, kBlock, 0, b.stream>>>(hist, table, c, first, count, marks);
    auto out = thrust::make_transform_output_iterator(slots[s], KeyOfMark<K>{table, c, facts.min_ordered});
    tb = temp_bytes;
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp, tb, marks, out, MaxOf{}, static_cast<std::int64_t>(count),
                                                 b.stream));
    pipe.worked(s);
    void* dst = b.resident() ? static_cast<void*>(static_cast<K*>(b.keys[1]) + first) : host.staging(s);
    pipe.copy_out(s, dst, slots[s], count * kb);
    moved(count * kb);
  }
  if (!b.resident()) {
    const u64 left = std::min<u64>(plan.chunks, kSlots);
    for (u64 c = plan.chunks - left; c < plan.chunks; ++c) {
      const unsigned s = static_cast<unsigned>(c % kSlots);
      pipe.sync_drained(s);
      const u64 f = c * plan.chunk;
      b.output->write(f, std::min(plan.chunk, n - f), host.staging(s), nullptr);
    }
  }
  pipe.join();
  outcome.bytes_over_link = over_link;
  outcome.details = {{"chunk_elements", std::to_string(plan.chunk)},
                     {"chunks", std::to_string(plan.chunks)},
                     {"chunk_cap_bytes", std::to_string(cap)},
                     {"bins", std::to_string(bins)},
                     {"count_bits", std::to_string(8 * sizeof(Count))},
                     {"passes", p.range == RangeMode::measured ? "3" : "2"}};
  return outcome;
}

}  // namespace

std::uint64_t hp_chunk_cap_bytes(const SortProblem& p) {
  constexpr long kMaxChunkMib = 65536;
  if (p.params.count("chunk_mib")) {
    const long mib = p.param_int("chunk_mib", 0);
    if (mib < 1 || mib > kMaxChunkMib)
      throw UsageError(fmt::format("ooc-hp: --param chunk_mib={} is not between 1 and {}; give e.g. chunk_mib=64", mib,
                                   kMaxChunkMib));
    return u64(mib) << 20;
  }
  if (p.device && p.device->profile)
    if (auto measured = stream_chunk_bytes(*p.device->profile, "ooc-hp", p.n() * key_bytes(p.shape.key)))
      return *measured;
  return kMaxChunkBytes;
}

Algorithm make_ooc_hp() {
  Algorithm a = family_member("ooc-hp", "seed 004 (Kozakai 2022) Algorithm 2, streamed: docs/outofcore.md");
  a.pick_when = "integer keys without a payload whose histogram fits on the GPU: each key crosses the link once each way";
  a.constraints = "integer keys; the histogram (range x 4 or 8 bytes) must fit in GPU memory";
  declare_types<IntegerKeys, KeysOnly>(a);
  a.reads_key_facts = true;
  // chunk_mib: the largest chunk in MiB of keys (default: the profile's measured best for the
  // input's size, else 256).
  a.params = {"chunk_mib"};
  a.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    hp_chunk_cap_bytes(p);  // a bad --param chunk_mib: a usage error before the run
    if (p.n() == 0) return std::nullopt;
    const u64 bins = bins_of(p.facts);
    if (bins > (u64{1} << 32))
      return fmt::format("its histogram of {} bins is past 2^32; use ooc-sort", bins);
    return std::nullopt;
  };
  a.min_device_bytes = [](const SortProblem& p) -> std::size_t { return plan_for(p, 0).device_bytes; };
  a.host_scratch_bytes = [](const SortProblem& p, std::size_t device_bytes) -> std::size_t {
    return kSlots * plan_for(p, device_bytes).slot_bytes;
  };
  a.run_streamed = [](const SortProblem& p, const StreamedBuffers& b) {
    // Its histogram's bins are the range: the facts come before the first pass, never from it.
    if (b.input_seen) throw std::logic_error("ooc-hp was handed a file whose facts the placement had not learned");
    return dispatch_element<IntegerKeys, KeysOnly>(p.shape.key, Payload::none, [&](auto k, auto) {
      using K = decltype(k);
      return hp_count_bytes(p.n()) == 8 ? run<K, unsigned long long>(p, b) : run<K, unsigned>(p, b);
    });
  };
  return a;
}

}  // namespace sb::ooc
