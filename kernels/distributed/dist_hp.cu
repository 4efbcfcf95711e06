// dist-hp: the H-P sort (seed 004, Kozakai 2022) over G GPUs that moves histograms, not keys
// (issue 15). For a bounded key range every rank only needs the global histogram:
//   1. local histogram of the rank's slice with the single-GPU fast kernels (hp::histogram:
//      shared-memory privatized, hybrid or global atomics, as hp-auto's rule picks for n/G);
//   2. ncclAllReduce of the range-bin histogram (4 bytes a bin; O(range), not O(n), crosses);
//   3. every rank scans the global histogram into runs (value, global end) with hp's fused
//      scan, clips the runs to its output slice [r*n/G, (r+1)*n/G) and expands them with hp's
//      expansion kernels: exactly n/G keys per rank, no key exchange at all.
// Departure from the single-GPU hp-auto: no CUB fallback; ranges past 2^32 bins or n >= 2^32
// are unsupported (4-byte counts).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include <fmt/format.h>

#include "../hp/hp.hpp"
#include "../hp/hp_fast_kernels.cuh"
#include "../hp/hp_index.hpp"
#include "dist_index.hpp"
#include "distributed.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::dist {
namespace {

using namespace sb::hp::fast;
using sb::hp::Carve;

using RunsIn = thrust::transform_iterator<PackBin<>, thrust::counting_iterator<u64>>;
template <typename W>
using RunsOut = thrust::tabulate_output_iterator<EmitRun<W>>;

// The rank's workspace: hp's histogram workspace (the histogram, global after the
// all-reduce, and the hybrid's counters), the runs of the non-empty bins with their global
// ends, the same ends clipped to the rank's slice, the expansion windows, and the scan's
// temporary storage.
template <typename W>
struct HpArrays {
  void* histogram;
  u32 *run_end, *clip_end, *len;
  W* run_val;
  uint2* window;
  void* temp;
  std::size_t temp_bytes = 0, bytes = 0;
  HpArrays(char* base, const SortProblem& p, u64 slice) {
    Carve c;
    const u64 range = hp::problem_range(p);
    const u64 m = hp::min_u64(p.n(), range);
    histogram = base + c.take(hp::histogram_bytes(p, slice));
    run_end = reinterpret_cast<u32*>(base + c.take(m * sizeof(u32)));
    clip_end = reinterpret_cast<u32*>(base + c.take(m * sizeof(u32)));
    run_val = reinterpret_cast<W*>(base + c.take(m * sizeof(W)));
    len = reinterpret_cast<u32*>(base + c.take(sizeof(u32)));
    window = reinterpret_cast<uint2*>(base + c.take(hp::ceil_div(slice ? slice : 1, kExpandTile) * sizeof(uint2)));
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, RunsIn(thrust::counting_iterator<u64>(0), PackBin<>{}),
                                                RunsOut<W>(EmitRun<W>{}), static_cast<std::int64_t>(range)));
    temp = base + c.take(temp_bytes);
    bytes = c.used;
  }
};

// The run ends as positions in the slice [begin, end): runs before it end at 0, runs after it
// at its length, so hp's tile search skips both.
__global__ void clip_runs(const u32* run_end, const u32* len, u64 begin, u64 end, u32* clip_end) {
  const u32 runs = *len;
  for (u64 j = global_thread(); j < runs; j += global_threads()) {
    const u64 e = run_end[j];
    clip_end[j] = static_cast<u32>((e < begin ? begin : (e > end ? end : e)) - begin);
  }
}

template <typename K>
RankResult run_keys(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                    const PhaseMarks& marks) {
  using W = typename KeyTraits<K>::Ordered;
  const DeviceContext& dev = rank.ctx();
  const cudaStream_t stream = rank.stream();
  const u64 range = hp::problem_range(p);
  const W min_word = hp::min_word_of<K>(p.facts.min_ordered);
  const u64 begin = s.begin, count = s.count;  // the output slice is the input slice's positions
  HpArrays<W> a(static_cast<char*>(b.workspace), p, count);
  // The hybrid's 2-byte low bits use the output buffer until the expansion.
  u32* A = hp::histogram(p, b.keys[0], count, b.keys[1], a.histogram, dev);
  marks.mark(0, stream);
  SB_NCCL_CHECK(ncclAllReduce(A, A, range, ncclUint32, ncclSum, rank.comm(), stream), rank.rank());
  marks.mark(1, stream);
  std::size_t temp_bytes = a.temp_bytes;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
      a.temp, temp_bytes, RunsIn(thrust::counting_iterator<u64>(0), PackBin<>{A}),
      RunsOut<W>(EmitRun<W>{A, a.run_end, a.run_val, a.len, range, min_word}), static_cast<std::int64_t>(range),
      stream));
  if (count) {
    const u64 runs_max = hp::min_u64(s.n, range);
    clip_runs<<<grid_for(runs_max, 256), 256, 0, stream>>>(a.run_end, a.len, begin, begin + count, a.clip_end);
    SB_CUDA_CHECK_LAUNCH();
    const u64 tiles = hp::ceil_div(count, kExpandTile);
    locate_tiles<<<grid_for(tiles * kLocateThreadsPerTile, 256), 256, 0, stream>>>(a.clip_end, a.len, count, a.window);
    SB_CUDA_CHECK_LAUNCH();
    expand_runs<W><<<static_cast<unsigned>(tiles), kExpandBlock, 0, stream>>>(a.clip_end, a.run_val, a.window, count,
                                                                               static_cast<W*>(b.keys[1]));
    SB_CUDA_CHECK_LAUNCH();
  }
  marks.mark(2, stream);
  return {1, count};
}

using HpKeys = IntegerKeys;

}  // namespace

Algorithm make_dist_hp() {
  RankAlgorithm ranks;
  ranks.phases = {"histogram", "allreduce", "expand"};
  ranks.capacity = [](const SortProblem&, u64 n, int world) { return (n + world - 1) / world; };
  ranks.workspace_bytes = [](const SortProblem& p, const RankSlice& s, u64 capacity, const DeviceContext& d) {
    if (p.has_payload()) return dist_hp_pairs_workspace_bytes(p, s, capacity, d.world);
    return dispatch_key<HpKeys>(p.shape.key, [&](auto k) {
      using W = typename KeyTraits<decltype(k)>::Ordered;
      return HpArrays<W>(nullptr, p, s.count).bytes;
    });
  };
  ranks.prepare = [](const SortProblem& p, const DeviceContext& d) {
    hp::prepare_histogram(p, slice_size(d.rank, p.n(), d.world), d);
  };
  ranks.run = [](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                 const PhaseMarks& marks) {
    if (p.has_payload()) return run_dist_hp_pairs(p, s, b, rank, marks);
    return dispatch_key<HpKeys>(p.shape.key, [&](auto k) { return run_keys<decltype(k)>(p, s, b, rank, marks); });
  };
  ranks.details = [](const SortProblem& p, int world) {
    return Details{{"histogram", hp::histogram_name(p, slice_size(0, p.n(), world))},
                   {"histogram_bins", std::to_string(hp::problem_range(p))}};
  };
  Algorithm a = distributed_algorithm(
      "dist-hp",
      "issue 15: H-P (seed 004) over NCCL ranks: local histogram (hp fast kernels), ncclAllReduce, each rank "
      "expands its n/G slice from the global prefix sums; no key exchange",
      std::move(ranks));
  a.constraints = "integer keys; n < 2^32, range <= 2^32 bins (4-byte counts); with a payload the pairs are sorted "
                  "locally and exchanged once on exact splitters (dist_hp_pairs.cu)";
  a.params = {"histogram", "low_bits"};  // hp's histogram variant and the hybrid's bucket width
  declare_types<HpKeys, AllValues>(a);
  a.stable = true;  // with a payload (dist_hp_pairs.cu): stable local sort, cuts in rank order, lower ranks first
  a.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    return hp::histogram_unsupported(p, p.n());
  };
  return a;
}

}  // namespace sb::dist
