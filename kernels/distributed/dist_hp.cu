// dist-hp: the H-P sort (seed 004, Kozakai 2022) over G GPUs that moves histograms, not keys
// (issue 15). For a bounded key range every rank only needs the global histogram:
//   1. local histogram of the rank's slice with the single-GPU fast kernels (kernels/hp:
//      shared-memory privatized when the range fits in shared memory, else global atomics);
//   2. ncclAllReduce of the range-bin histogram (4 bytes a bin; O(range), not O(n), crosses);
//   3. every rank scans the global histogram into runs (value, global end) with hp's fused
//      scan, clips the runs to its output slice [r*n/G, (r+1)*n/G) and expands them with hp's
//      expansion kernels: exactly n/G keys per rank, no key exchange at all.
// Departure from the single-GPU hp-auto: no hybrid histogram (its launcher is private to the
// hp family) and no CUB fallback; ranges past 2^32 bins or n >= 2^32 are unsupported.
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
#include "sortbench/cuda_check.hpp"
#include "sortbench/launch.hpp"

namespace sb::dist {
namespace {

using namespace sb::hp::fast;
using sb::hp::Carve;

constexpr unsigned kHistBlock = 1024;
// Warp-private copies of the shared histogram while they fit in 48 KiB (as hp-smem does).
constexpr std::size_t kSharedCopiesBytes = 48 * 1024;

using RunsIn = thrust::transform_iterator<PackBin, thrust::counting_iterator<u64>>;
template <typename W>
using RunsOut = thrust::tabulate_output_iterator<EmitRun<W>>;

u64 shared_bins_max(const DeviceContext& d) { return d.props.sharedMemPerBlockOptin / sizeof(u32); }

// The rank's workspace: the histogram (global after the all-reduce), the runs of the
// non-empty bins with their global ends, the same ends clipped to the rank's slice, the
// expansion windows, and the scan's temporary storage.
template <typename W>
struct HpArrays {
  u32 *A, *run_end, *clip_end, *len;
  W* run_val;
  uint2* window;
  void* temp;
  std::size_t temp_bytes = 0, bytes = 0;
  HpArrays(char* base, u64 n, u64 slice, u64 range) {
    Carve c;
    const u64 m = hp::min_u64(n, range);
    A = reinterpret_cast<u32*>(base + c.take(range * sizeof(u32)));
    run_end = reinterpret_cast<u32*>(base + c.take(m * sizeof(u32)));
    clip_end = reinterpret_cast<u32*>(base + c.take(m * sizeof(u32)));
    run_val = reinterpret_cast<W*>(base + c.take(m * sizeof(W)));
    len = reinterpret_cast<u32*>(base + c.take(sizeof(u32)));
    window = reinterpret_cast<uint2*>(base + c.take(hp::ceil_div(slice ? slice : 1, kExpandTile) * sizeof(uint2)));
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, RunsIn(thrust::counting_iterator<u64>(0), PackBin{}),
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

bool use_shared(const SortProblem& p, const DeviceContext& d) { return hp::problem_range(p) <= shared_bins_max(d); }

template <typename K>
RankResult run_keys(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                    const PhaseMarks& marks) {
  using W = typename KeyTraits<K>::Ordered;
  const DeviceContext& dev = rank.ctx();
  const cudaStream_t stream = rank.stream();
  const u64 range = hp::problem_range(p);
  const W min_word = hp::min_word_of<K>(p.realized.min_ordered);
  const u64 begin = s.begin, count = s.count;  // the output slice is the input slice's positions
  HpArrays<W> a(static_cast<char*>(b.workspace), s.n, count, range);
  const W* x = static_cast<const W*>(b.keys[0]);
  SB_CUDA_CHECK(cudaMemsetAsync(a.A, 0, range * sizeof(u32), stream));
  if (count) {
    const int sms = dev.props.multiProcessorCount;
    if (use_shared(p, dev)) {
      const auto bins = static_cast<u32>(range);
      const u32 copies =
          static_cast<u32>(std::clamp<u64>(kSharedCopiesBytes / (u64{bins} * sizeof(u32)), 1, kHistBlock / 32));
      const std::size_t smem = std::size_t{bins} * copies * sizeof(u32);
      int per_sm = 0;
      SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hist_shared<W>, kHistBlock, smem));
      hist_shared<W><<<grid_for(hp::ceil_div(count, 4), kHistBlock, u64(std::max(per_sm, 1)) * sms), kHistBlock, smem,
                       stream>>>(x, count, min_word, bins, copies, a.A);
    } else {
      hist_global<W><<<grid_for(hp::ceil_div(count, 4), 256, u64(sms) * 16), 256, 0, stream>>>(x, count, min_word, a.A);
    }
    SB_CUDA_CHECK_LAUNCH();
  }
  marks.mark(0, stream);
  SB_NCCL_CHECK(ncclAllReduce(a.A, a.A, range, ncclUint32, ncclSum, rank.comm(), stream), rank.rank());
  marks.mark(1, stream);
  std::size_t temp_bytes = a.temp_bytes;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
      a.temp, temp_bytes, RunsIn(thrust::counting_iterator<u64>(0), PackBin{a.A}),
      RunsOut<W>(EmitRun<W>{a.A, a.run_end, a.run_val, a.len, range, min_word}), static_cast<std::int64_t>(range),
      stream));
  if (count) {
    const u64 runs_max = hp::min_u64(s.n, range);
    clip_runs<<<grid_for(runs_max, 256), 256, 0, stream>>>(a.run_end, a.len, begin, begin + count, a.clip_end);
    SB_CUDA_CHECK_LAUNCH();
    const u64 tiles = hp::ceil_div(count, kExpandTile);
    locate_tiles<<<grid_for(tiles, 256), 256, 0, stream>>>(a.clip_end, a.len, count, a.window);
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
  Algorithm a;
  a.name = "dist-hp";
  a.family = "distributed";
  a.backend = Backend::gpu;
  a.stable = false;
  a.constraints = "integer keys; n < 2^32, range <= 2^32 bins (4-byte counts)";
  a.source = "issue 15: H-P (seed 004) over NCCL ranks: local histogram (hp fast kernels), ncclAllReduce, each rank "
             "expands its n/G slice from the global prefix sums; no key exchange";
  declare_types<HpKeys, KeysOnly>(a);
  a.unsupported = [](const SortProblem& p) -> std::optional<std::string> { return hp::common_limits(p); };
  a.workspace_bytes = [](const SortProblem&) -> std::size_t { return 0; };  // per rank, in run_ranks
  RankAlgorithm ranks;
  ranks.phases = {"histogram", "allreduce", "expand"};
  ranks.capacity = [](const SortProblem&, u64 n, int world) { return (n + world - 1) / world; };
  ranks.workspace_bytes = [](const SortProblem& p, const RankSlice& s, u64, const DeviceContext&) {
    return dispatch_key<HpKeys>(p.spec.key, [&](auto k) {
      using W = typename KeyTraits<decltype(k)>::Ordered;
      return HpArrays<W>(nullptr, s.n, s.count, hp::problem_range(p)).bytes;
    });
  };
  ranks.prepare = [](const SortProblem& p, const DeviceContext& d) {
    if (!use_shared(p, d)) return;
    dispatch_key<HpKeys>(p.spec.key, [&](auto k) {
      using W = typename KeyTraits<decltype(k)>::Ordered;
      cudaFuncAttributes attr{};
      SB_CUDA_CHECK(cudaFuncGetAttributes(&attr, hist_shared<W>));
      SB_CUDA_CHECK(cudaFuncSetAttribute(hist_shared<W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(d.props.sharedMemPerBlockOptin - attr.sharedSizeBytes)));
    });
  };
  ranks.run = [](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                 const PhaseMarks& marks) {
    return dispatch_key<HpKeys>(p.spec.key, [&](auto k) { return run_keys<decltype(k)>(p, s, b, rank, marks); });
  };
  ranks.details = [](const SortProblem& p, int) {
    const bool shared = p.device ? use_shared(p, *p.device) : use_shared(p, current_device_context(nullptr));
    return Details{{"histogram", shared ? "shared" : "global"},
                   {"histogram_bins", std::to_string(hp::problem_range(p))}};
  };
  a.run_distributed = [ranks](const SortProblem& p, const DistributedRequest& r) { return run_ranks(ranks, p, r); };
  return a;
}

}  // namespace sb::dist
