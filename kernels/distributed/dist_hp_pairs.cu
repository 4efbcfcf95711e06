// dist-hp with a payload (issue 38, item 3): the H-P sort (seed 004, Kozakai 2022) over G GPUs
// when every key carries a value (u32, u64 or index). Without values dist-hp only moves the
// histogram (dist_hp.cu); values must travel with their keys, so here the global histogram
// gives exact splitters (no sampling) and the pairs cross once:
//   1. local histogram of the rank's slice (hp::histogram, hp-auto's variant for n/G keys), and
//      the slice's pairs sorted stably on the bits of the key range (range_radix_sort);
//   2. ncclAllReduce of the range-bin histogram, then one scan of it finds, for every slice
//      boundary B_d = slice_begin(d, n, G), the bin b holding position B_d and its global start
//      S_b; each rank binary-searches its sorted run for its elements below bin b and in it,
//      and one all-gather of those 2 (G - 1) words gives every rank every rank's cut:
//      below + below_in_bin(B_d, S_b, P_{q,b}, c_{q,b}) (dist_index.hpp hp_pair_send_counts);
//   3. the all-to-all of pairs and the pairwise merges of the sample sort (dist_exchange.cuh).
// On two ranks (issue 50) the cuts come before any sort, so the exchange overlaps one
// (`--param exchange=partition`, the default there; `sort` for the path above):
//   1. the local histogram; its all-reduce into a second array, whose scan finds the boundary
//      bin as above, and the rank's counts below and in it summed from its own histogram;
//   2. the slice split in one pass by where its keys fall around the boundary key, own piece
//      first (dist_split_at_boundary.cuh): the pieces of the sorted run, unsorted. It is
//      planned on the GPU from the all-gathered words, so it runs while the host reads them;
//   3. the peer's piece crosses while the kept piece is sorted on the range's bits; the
//      received piece is sorted, and the two runs merge, lower rank first among equal keys
//      (dist_sample_sort_partition.cu, run_boundary_split).
// The split needs a third region of the rank's size for the received piece. Where the present
// keys' ranks need fewer 8-bit radix passes than the range's bits (dist_index.hpp
// present_rank_bits; --param sort_on=auto, the default), the split writes each key's rank, the
// sorts take those bits, and the merge writes the keys back: a scan of the global histogram's
// presence (into the rank's own histogram, no longer needed) and each rank's bin (into the global
// one, read for the last time by that scan) cost no memory of their own.
// Every rank ends with exactly its slice [r n/G, (r + 1) n/G) of the global order, and the
// result is stable: the local sort is, a bin's elements are cut in rank order, and the merge
// takes lower ranks first among equal keys.
// Phases: dist-hp's names, with "histogram" covering the histogram and the local sort,
// "allreduce" the all-reduce and the boundary search, "expand" the exchange and the merge;
// partition first, "histogram" the histogram alone, "allreduce" up to the split's end, and
// "expand" the exchange, the sorts and the merge.
// Limits as dist-hp's: n < 2^32, range <= 2^32 bins (4-byte bin counts); the positions and
// piece sizes themselves are 64-bit.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "../hp/hp.hpp"
#include "../hp/hp_index.hpp"
#include "dist_exchange.cuh"
#include "dist_index.hpp"
#include "dist_sample_sort_partition.hpp"
#include "dist_split_at_boundary.cuh"
#include "distributed.hpp"
#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::dist {
namespace {

using u64 = std::uint64_t;
using hp::Carve;

// A bin's count, widened so the scan's sums (global positions) cannot wrap.
struct BinCount {
  const std::uint32_t* histogram;
  __host__ __device__ u64 operator()(u64 bin) const { return histogram[bin]; }
};

// Scan output: bin i ends at global position `end`; it records itself and its start for every
// boundary it holds (several when one bin spans slices: few distinct keys).
struct RecordBoundaryBins {
  const std::uint32_t* histogram;
  u64 n, world;
  u64* bin;    // world - 1: the bin holding boundary d at d - 1
  u64* start;  // world - 1: that bin's global start
  __device__ void operator()(std::ptrdiff_t i, u64 end) const {
    const u64 count = histogram[i];
    if (count) record_boundary_bin(static_cast<u64>(i), end - count, end, n, world, bin, start);
  }
};

using CountsIn = thrust::transform_iterator<BinCount, thrust::counting_iterator<u64>>;
using BinsOut = thrust::tabulate_output_iterator<RecordBoundaryBins>;

// 1 for a bin of the global histogram that holds a key: the scan of these ranks the present keys.
struct BinPresent {
  const std::uint32_t* histogram;
  __host__ __device__ std::uint32_t operator()(u64 bin) const { return histogram[bin] != 0; }
};
using PresentIn = thrust::transform_iterator<BinPresent, thrust::counting_iterator<u64>>;

// Every present bin at its rank (dist_index.hpp record_present_bin), and the number of present
// keys into *distinct.
__global__ void record_present_bins(const std::uint32_t* present_through, u64 range, std::uint32_t* bin_of_rank,
                                    u64* distinct) {
  for (u64 i = blockIdx.x * u64{blockDim.x} + threadIdx.x; i < range; i += u64{gridDim.x} * blockDim.x) {
    record_present_bin(present_through, i, bin_of_rank);
    if (i == range - 1) *distinct = present_through[i];
  }
}

// For each boundary bin, the rank's elements in lower bins and in the bin from its own
// histogram: out[d] and out[bounds + d] (zeroed before). Partition first has no sorted run to
// search.
__global__ void count_below_bins(const std::uint32_t* histogram, const u64* bin, int bounds, u64* out) {
  for (int d = 0; d < bounds; ++d) {
    u64 sum = 0;
    for (u64 i = blockIdx.x * u64{blockDim.x} + threadIdx.x; i < bin[d]; i += u64{gridDim.x} * blockDim.x)
      sum += histogram[i];
    for (int lane = 16; lane > 0; lane /= 2) sum += __shfl_down_sync(0xffffffffu, sum, lane);
    if ((threadIdx.x & 31) == 0 && sum) atomicAdd(reinterpret_cast<unsigned long long*>(out + d), sum);
    if (blockIdx.x == 0 && threadIdx.x == 0) out[bounds + d] = histogram[bin[d]];
  }
}

// For each boundary bin, how many of the rank's sorted keys lie in lower bins and in the bin:
// out[d] and out[bounds + d].
template <typename K>
__global__ void count_around_bins(const K* sorted, u64 count, const u64* bin, int bounds, u64 min_ordered, u64* out) {
  const int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= bounds) return;
  const u64 key = min_ordered + bin[d];  // the bin's key, in ordered form
  u64 lower = 0, upper = 0;
  ordered_equal_range(sorted, count, key, &lower, &upper);
  out[d] = lower;
  out[bounds + d] = upper - lower;
}

// The rank's workspace: hp's histogram workspace (the histogram, global after the
// all-reduce), one temporary region for the local sort, the scan and the merge (they run one
// after another), and the boundary words: bin and start of each boundary (2 (G - 1)), then
// every rank's (below, in bin) counts (2 (G - 1) per rank, this rank's at its row). Split
// first: the global histogram apart from the rank's own, a temporary region for the scans and
// the split, the split's plan, and the exchange's workspace.
template <typename K, typename V>
struct PairArrays {
  void* histogram;
  std::uint32_t* global = nullptr;
  void* temp;
  std::size_t temp_bytes = 0;
  u64* words;
  TwoWaySplit* split_plan = nullptr;  // split first: the split's plan, made on the GPU
  u64* selected = nullptr;            // ... and its part counts, which CUB writes
  void* split = nullptr;
  std::size_t bytes = 0;
  // The boundary words, then the number of present keys (split first).
  static std::size_t words_of(int world) { return (2 + 2 * std::size_t(world)) * (world - 1) + 1; }
  PairArrays(char* base, const SortProblem& p, const RankSlice& s, u64 capacity, int world, bool split_first) {
    const u64 range = hp::problem_range(p), count = s.count;
    std::size_t scan_bytes = 0;
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes,
                                                CountsIn(thrust::counting_iterator<u64>(0), BinCount{}),
                                                BinsOut(RecordBoundaryBins{}), static_cast<std::int64_t>(range)));
    std::size_t present_bytes = 0;
    if (split_first)
      SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, present_bytes,
                                                  PresentIn(thrust::counting_iterator<u64>(0), BinPresent{}),
                                                  static_cast<std::uint32_t*>(nullptr),
                                                  static_cast<std::int64_t>(range)));
    temp_bytes = split_first ? std::max({scan_bytes, present_bytes, split_at_boundary_bytes<K, V>(count)})
                             : std::max({range_radix_sort_bytes(slice_problem(p, count)), scan_bytes,
                                         merge_temp_bytes<K, V>(capacity)});
    Carve c;
    histogram = base + c.take(hp::histogram_bytes(slice_keys_problem(p, count), count));
    if (split_first) global = reinterpret_cast<std::uint32_t*>(base + c.take(range * sizeof(std::uint32_t)));
    temp = base + c.take(temp_bytes);
    words = reinterpret_cast<u64*>(base + c.take(words_of(world) * sizeof(u64)));
    if (split_first) {
      split_plan = reinterpret_cast<TwoWaySplit*>(base + c.take(sizeof(TwoWaySplit)));
      selected = reinterpret_cast<u64*>(base + c.take(2 * sizeof(u64)));
      split = base + c.take(boundary_split_workspace_bytes(p, s, capacity, world));
    }
    bytes = c.used;
  }
};

template <typename K, typename V>
RankResult run_pairs(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                     const PhaseMarks& marks) {
  const DeviceContext& dev = rank.ctx();
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  const u64 range = hp::problem_range(p), count = s.count, n = s.n;
  const bool split_first = dist_hp_pairs_splits_first(p, world);
  PairArrays<K, V> a(static_cast<char*>(b.workspace), p, s, b.capacity, world, split_first);

  // The hybrid's 2-byte low bits use keys[1] before the sort needs it.
  const bool exchange = world > 1 && n > 0;
  std::uint32_t* histogram =
      exchange ? hp::histogram(slice_keys_problem(p, count), b.keys[0], count, b.keys[1], a.histogram, dev) : nullptr;
  int sorted_buffer = 0;
  if (!split_first) {
    DeviceBuffers sort_buffers;
    sort_buffers.keys[0] = b.keys[0], sort_buffers.keys[1] = b.keys[1];
    sort_buffers.vals[0] = b.values[0], sort_buffers.vals[1] = b.values[1];
    sort_buffers.workspace = a.temp;
    sort_buffers.workspace_bytes = a.temp_bytes;
    sort_buffers.stream = stream;
    sort_buffers.device = &dev;
    sorted_buffer = range_radix_sort(slice_problem(p, count), sort_buffers);
  }
  marks.mark(0, stream);
  if (!exchange) {
    marks.mark(1, stream);
    marks.mark(2, stream);
    return {sorted_buffer, count};
  }

  // Split first, the rank's own histogram stays for its counts below the boundary bins.
  std::uint32_t* global = split_first ? a.global : histogram;
  SB_NCCL_CHECK(ncclAllReduce(histogram, global, range, ncclUint32, ncclSum, rank.comm(), stream), me);
  const int bounds = world - 1;
  u64* d_bin = a.words;
  u64* d_start = a.words + bounds;
  u64* d_around = a.words + 2 * bounds;  // [rank][below (bounds), in bin (bounds)]
  std::size_t temp_bytes = a.temp_bytes;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
      a.temp, temp_bytes, CountsIn(thrust::counting_iterator<u64>(0), BinCount{global}),
      BinsOut(RecordBoundaryBins{global, n, u64(world), d_bin, d_start}), static_cast<std::int64_t>(range), stream));
  u64* around = d_around + 2 * bounds * me;
  u64* d_distinct = a.words + PairArrays<K, V>::words_of(world) - 1;
  const int range_bits = range_radix_plan(p.shape.key, p.facts.min_ordered, p.facts.max_ordered).end_bit;
  // From what every rank agrees on (not its own count): the peers' pieces arrive as ranks too.
  const bool rank_present = split_first && dist_hp_pairs_may_rank_keys(p) &&
                            present_ranks_worth_counting(range, n / world, range_bits);
  if (split_first) {
    SB_CUDA_CHECK(cudaMemsetAsync(around, 0, 2 * bounds * sizeof(u64), stream));
    count_below_bins<<<grid_for(range, 256, 1024), 256, 0, stream>>>(histogram, d_bin, bounds, around);
    SB_CUDA_CHECK_LAUNCH();
  }
  if (rank_present) {
    // The own histogram, read for the last time above, becomes the present bins' running
    // count; the global one, read for the last time by that scan, each rank's bin.
    temp_bytes = a.temp_bytes;
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(a.temp, temp_bytes,
                                                PresentIn(thrust::counting_iterator<u64>(0), BinPresent{global}),
                                                histogram, static_cast<std::int64_t>(range), stream));
    record_present_bins<<<grid_for(range, 256, 1024), 256, 0, stream>>>(histogram, range, global, d_distinct);
  } else if (!split_first) {
    count_around_bins<K><<<1, 32 * ((bounds + 31) / 32), 0, stream>>>(
        static_cast<const K*>(b.keys[sorted_buffer]), count, d_bin, bounds, p.facts.min_ordered, around);
  }
  SB_CUDA_CHECK_LAUNCH();
  SB_NCCL_CHECK(ncclAllGather(around, d_around, 2 * bounds, ncclUint64, rank.comm(), stream), me);
  std::vector<u64> words(PairArrays<K, V>::words_of(world));
  if (split_first) {
    // The split, planned and run on the GPU while the host reads the words for the exchange.
    rank.fork_aside();
    plan_two_way_split<<<1, 1, 0, stream>>>(a.words, d_distinct, rank_present, range_bits, n, std::uint32_t(me),
                                            p.facts.min_ordered, count, a.split_plan);
    SB_CUDA_CHECK_LAUNCH();
    std::size_t split_bytes = a.temp_bytes;
    if (count)
      split_at_boundary(a.temp, split_bytes, static_cast<const K*>(b.keys[0]), static_cast<const V*>(b.values[0]),
                        count, a.split_plan, histogram, p.facts.min_ordered, static_cast<K*>(b.keys[1]),
                        static_cast<V*>(b.values[1]), a.selected, stream);
    marks.mark(1, stream);
    rank.to_host_aside(words.data(), a.words, words.size() * sizeof(u64));
  } else {
    rank.to_host(words.data(), a.words, words.size() * sizeof(u64));
  }
  std::vector<u64> below(std::size_t(bounds) * world), in_bin(std::size_t(bounds) * world);
  for (int q = 0; q < world; ++q)
    for (int d = 0; d < bounds; ++d) {
      below[q * bounds + d] = words[2 * bounds + 2 * bounds * q + d];
      in_bin[q * bounds + d] = words[2 * bounds + 2 * bounds * q + bounds + d];
    }
  std::vector<u64> counts(std::size_t(world) * world);
  hp_pair_send_counts(n, world, words.data() + bounds, below.data(), in_bin.data(), counts.data());
  if (split_first) {
    // The plan's choice, from the same words.
    BoundarySplit split{std::move(counts), 2};
    split.rank_bits = rank_present ? present_rank_bits(words.back(), range_bits) : 0;
    split.bin_of_rank = global;
    return run_boundary_split(p, s, b, a.split, rank, marks, split);
  }
  std::vector<u64> cut(world + 1, 0);
  for (int d = 0; d < world; ++d) cut[d + 1] = cut[d] + counts[me * world + d];
  marks.mark(1, stream);
  return exchange_and_merge<K, V>(b, sorted_buffer, cut, counts, a.temp, a.temp_bytes, rank, marks, 2, 2);
}

}  // namespace

bool dist_hp_pairs_splits_first(const SortProblem& p, int world) {
  const auto it = p.params.find("exchange");
  if (it != p.params.end() && it->second != "sort" && it->second != "partition")
    throw UsageError(fmt::format("dist-hp: --param exchange={} is not sort or partition", it->second));
  return world == 2 && (it == p.params.end() || it->second == "partition");
}

bool dist_hp_pairs_may_rank_keys(const SortProblem& p) {
  const auto it = p.params.find("sort_on");
  if (it == p.params.end() || it->second == "auto") return true;
  if (it->second == "range") return false;
  throw UsageError(fmt::format("dist-hp: --param sort_on={} is not auto or range", it->second));
}

std::size_t dist_hp_pairs_workspace_bytes(const SortProblem& p, const RankSlice& s, std::uint64_t capacity, int world) {
  return dispatch_element<IntegerKeys, PairValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    const bool split_first = dist_hp_pairs_splits_first(p, world);
    return PairArrays<decltype(k), decltype(v)>(nullptr, p, s, capacity, world, split_first).bytes;
  });
}

RankResult run_dist_hp_pairs(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                             const PhaseMarks& marks) {
  return dispatch_element<IntegerKeys, PairValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    return run_pairs<decltype(k), decltype(v)>(p, s, b, rank, marks);
  });
}

}  // namespace sb::dist
