// dist-sample-sort: the classic multi-GPU baseline that exchanges every key (the sample sort
// of the SIGMOD 2022 multi-GPU sorting study, Maltenberger, Ilic, Tolovski, Rabl: "Evaluating
// multi-GPU sorting with modern interconnects"; regular sampling after PSRS, Shi and
// Schaeffer 1992). Per rank:
//   1. local CUB radix sort of the slice;
//   2. s regular samples of the sorted run, all-gathered; every rank sorts the G*s samples on
//      the host and takes the same G-1 splitters; ties are broken by (rank, local index), so
//      even an input of one repeated key splits evenly (dist_index.hpp split_point);
//   3. send counts all-gathered, then one all-to-all with ncclSend/ncclRecv in a group;
//   4. the G received sorted runs merged pairwise with CUB's merge (log2 G rounds).
// A rank ends with its part of the global order, not exactly n/G keys: the imbalance is in
// the row's details. Keys are compared by their ordered (radix) bits throughout, so the
// splitters, the CUB radix sort and the merge agree, -0.0 before +0.0 included.
#include <algorithm>
#include <tuple>
#include <vector>

#include <cub/device/device_merge.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <fmt/format.h>

#include "../hp/hp_index.hpp"
#include "dist_index.hpp"
#include "dist_sample_sort_partition.hpp"
#include "distributed.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::dist {
namespace {

using u64 = std::uint64_t;
using hp::Carve;

// Samples per rank: the imbalance bound is about G / s (dist_index.hpp receive_capacity).
constexpr u64 kSamplesPerRank = 1024;

struct OrderedLess {
  template <typename K>
  __host__ __device__ bool operator()(const K& a, const K& b) const {
    return KeyTraits<K>::ordered(a) < KeyTraits<K>::ordered(b);
  }
};

// A sample on the wire: ordered key bits, rank, index in the rank's sorted run.
struct Sample {
  u64 key, rank, index;
};

template <typename K>
__global__ void take_samples(const K* sorted, u64 count, u64 samples, u64 rank, Sample* out) {
  for (u64 j = blockIdx.x * u64{blockDim.x} + threadIdx.x; j < samples; j += u64{gridDim.x} * blockDim.x) {
    if (count) {
      const u64 at = sample_position(j, samples, count);
      out[j] = {static_cast<u64>(KeyTraits<K>::ordered(sorted[at])), rank, at};
    } else {
      out[j] = {~u64{0}, ~u64{0}, ~u64{0}};  // an empty rank's samples sort last
    }
  }
}

// [lower, upper) of each splitter key in the sorted run: 2 words per splitter.
template <typename K>
__global__ void bound_splitters(const K* sorted, u64 count, const u64* keys, int splitters, u64* bounds) {
  const int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= splitters) return;
  const u64 key = keys[d];
  u64 lo = 0, hi = count;
  while (lo < hi) {
    const u64 mid = lo + (hi - lo) / 2;
    if (static_cast<u64>(KeyTraits<K>::ordered(sorted[mid])) < key) lo = mid + 1;
    else hi = mid;
  }
  u64 lo2 = lo, hi2 = count;
  while (lo2 < hi2) {
    const u64 mid = lo2 + (hi2 - lo2) / 2;
    if (static_cast<u64>(KeyTraits<K>::ordered(sorted[mid])) <= key) lo2 = mid + 1;
    else hi2 = mid;
  }
  bounds[2 * d] = lo;
  bounds[2 * d + 1] = lo2;
}

template <typename K>
struct SampleArrays {
  void* temp;
  std::size_t temp_bytes = 0;
  Sample* samples;  // world * s: this rank's at rank * s, then all of them after the gather
  u64* words;       // splitter keys (world - 1), their bounds (2 (world - 1)), send counts (world * world)
  std::size_t bytes = 0;
  SampleArrays(char* base, u64 count, u64 capacity, int world) {
    std::size_t sort_bytes = 0, merge_bytes = 0;
    cub::DoubleBuffer<K> keys(nullptr, nullptr);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys, static_cast<std::int64_t>(count)));
    SB_CUDA_CHECK(cub::DeviceMerge::MergeKeys(nullptr, merge_bytes, static_cast<const K*>(nullptr),
                                              static_cast<std::int64_t>(capacity), static_cast<const K*>(nullptr),
                                              static_cast<std::int64_t>(capacity), static_cast<K*>(nullptr),
                                              OrderedLess{}));
    temp_bytes = std::max(sort_bytes, merge_bytes);
    Carve c;
    temp = base + c.take(temp_bytes);
    samples = reinterpret_cast<Sample*>(base + c.take(world * kSamplesPerRank * sizeof(Sample)));
    words = reinterpret_cast<u64*>(base + c.take((3 * world + std::size_t(world) * world) * sizeof(u64)));
    bytes = c.used;
  }
};

template <typename K>
RankResult run_keys(const SortProblem&, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                    const PhaseMarks& marks) {
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  SampleArrays<K> a(static_cast<char*>(b.workspace), s.count, b.capacity, world);
  // The double-buffer form of CUB's sort needs no key-sized temporary storage (a 2^34-key
  // input leaves no room for one); the sorted run ends in either buffer.
  cub::DoubleBuffer<K> keys(static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1]));
  std::size_t temp_bytes = a.temp_bytes;
  if (s.count)
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(a.temp, temp_bytes, keys, static_cast<std::int64_t>(s.count), 0,
                                                 int(sizeof(K) * 8), stream));
  const int sorted_buffer = keys.selector;
  K* sorted = keys.Current();
  K* in = keys.Alternate();  // receives the runs
  marks.mark(0, stream);
  if (world == 1) {
    marks.mark(1, stream);
    marks.mark(2, stream);
    return {sorted_buffer, s.count};
  }

  // Splitters: every rank gathers every sample and picks the same ones.
  const u64 per = kSamplesPerRank;
  take_samples<K><<<grid_for(per, 256), 256, 0, stream>>>(sorted, s.count, per, u64(me), a.samples + me * per);
  SB_CUDA_CHECK_LAUNCH();
  SB_NCCL_CHECK(ncclAllGather(a.samples + me * per, a.samples, per * sizeof(Sample), ncclUint8, rank.comm(), stream),
                me);
  std::vector<Sample> all(world * per);
  SB_CUDA_CHECK(cudaMemcpyAsync(all.data(), a.samples, all.size() * sizeof(Sample), cudaMemcpyDeviceToHost, stream));
  rank.wait();
  std::sort(all.begin(), all.end(), [](const Sample& x, const Sample& y) {
    return std::tie(x.key, x.rank, x.index) < std::tie(y.key, y.rank, y.index);
  });
  std::vector<Sample> splitters(world - 1);
  std::vector<u64> splitter_keys(world - 1);
  for (int d = 1; d < world; ++d) {
    splitters[d - 1] = all[splitter_sample(d, per)];
    splitter_keys[d - 1] = splitters[d - 1].key;
  }
  u64* d_keys = a.words;
  u64* d_bounds = a.words + world;
  u64* d_counts = a.words + 3 * world;
  SB_CUDA_CHECK(cudaMemcpyAsync(d_keys, splitter_keys.data(), (world - 1) * sizeof(u64), cudaMemcpyHostToDevice, stream));
  bound_splitters<K><<<1, 32 * ((world + 31) / 32), 0, stream>>>(sorted, s.count, d_keys, world - 1, d_bounds);
  SB_CUDA_CHECK_LAUNCH();
  std::vector<u64> bounds(2 * (world - 1));
  SB_CUDA_CHECK(cudaMemcpyAsync(bounds.data(), d_bounds, bounds.size() * sizeof(u64), cudaMemcpyDeviceToHost, stream));
  rank.wait();
  // Where the run splits for each destination: [0, p_1, ..., p_{G-1}, count].
  std::vector<u64> cut(world + 1, 0);
  cut[world] = s.count;
  for (int d = 1; d < world; ++d) {
    const Sample& sp = splitters[d - 1];
    // An empty rank's sample (all ones) lies past every key: everything falls below it.
    const SampleTag tag{static_cast<std::uint32_t>(sp.rank == ~u64{0} ? world : sp.rank), sp.index};
    cut[d] = std::max(cut[d - 1], split_point(bounds[2 * (d - 1)], bounds[2 * (d - 1) + 1], std::uint32_t(me), tag));
  }
  std::vector<u64> counts(std::size_t(world) * world);  // counts[q * world + d]: from rank q to rank d
  for (int d = 0; d < world; ++d) counts[me * world + d] = cut[d + 1] - cut[d];
  SB_CUDA_CHECK(cudaMemcpyAsync(d_counts + me * world, counts.data() + me * world, world * sizeof(u64),
                                cudaMemcpyHostToDevice, stream));
  SB_NCCL_CHECK(ncclAllGather(d_counts + me * world, d_counts, world, ncclUint64, rank.comm(), stream), me);
  SB_CUDA_CHECK(cudaMemcpyAsync(counts.data(), d_counts, counts.size() * sizeof(u64), cudaMemcpyDeviceToHost, stream));
  rank.wait();
  std::vector<u64> run_begin(world + 1, 0);  // where the run from rank q lands in the receive buffer
  for (int q = 0; q < world; ++q) run_begin[q + 1] = run_begin[q] + counts[q * world + me];
  const u64 total = run_begin[world];
  if (total > b.capacity)
    throw Error(ExitCode::internal, fmt::format("rank {}: the splitters send it {} keys, more than the {} its buffers "
                                                "hold (regular sampling should bound this); report it",
                                                me, total, b.capacity));

  // The all-to-all, into the buffer the sort left free; the rank's own run is copied beside it
  // on the side stream, so the copy overlaps the transfer instead of following it.
  if (cut[me + 1] > cut[me])
    rank.copy_aside(in + run_begin[me], sorted + cut[me], (cut[me + 1] - cut[me]) * sizeof(K));
  SB_NCCL_CHECK(ncclGroupStart(), me);
  for (int q = 0; q < world; ++q) {
    if (q == me) continue;
    const u64 send = cut[q + 1] - cut[q], recv = counts[q * world + me];
    if (send) SB_NCCL_CHECK(send_bytes(sorted + cut[q], send * sizeof(K), q, rank), me);
    if (recv) SB_NCCL_CHECK(recv_bytes(in + run_begin[q], recv * sizeof(K), q, rank), me);
  }
  SB_NCCL_CHECK(ncclGroupEnd(), me);
  if (cut[me + 1] > cut[me]) rank.join();
  marks.mark(1, stream);

  // Pairwise merges of the received runs, ping-ponging between the two buffers.
  std::vector<u64> runs(run_begin);
  int src = 0;  // of buf, whose buffer 0 is the receive buffer
  K* buf[2] = {in, sorted};
  while (runs.size() > 2) {
    std::vector<u64> next{0};
    for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
      const u64 b0 = runs[i], b1 = runs[i + 1];
      const u64 b2 = i + 2 < runs.size() ? runs[i + 2] : b1;
      if (i + 2 < runs.size()) {
        temp_bytes = a.temp_bytes;
        SB_CUDA_CHECK(cub::DeviceMerge::MergeKeys(a.temp, temp_bytes, buf[src] + b0, std::int64_t(b1 - b0),
                                                  buf[src] + b1, std::int64_t(b2 - b1), buf[1 - src] + b0,
                                                  OrderedLess{}, stream));
      } else if (b1 > b0) {
        SB_CUDA_CHECK(cudaMemcpyAsync(buf[1 - src] + b0, buf[src] + b0, (b1 - b0) * sizeof(K),
                                      cudaMemcpyDeviceToDevice, stream));
      }
      next.push_back(b2);
    }
    runs = next;
    src = 1 - src;
  }
  marks.mark(2, stream);
  const int receive_buffer = 1 - sorted_buffer;
  return {src == 0 ? receive_buffer : sorted_buffer, total};
}

}  // namespace

Algorithm make_dist_sample_sort() {
  RankAlgorithm ranks;
  ranks.phases = {"local", "exchange", "merge"};
  ranks.capacity = [](const SortProblem& p, u64 n, int world) {
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first) return partition_first_capacity(n, world);
    return world == 1 ? n : receive_capacity(n, world, kSamplesPerRank);
  };
  ranks.workspace_bytes = [](const SortProblem& p, const RankSlice& s, u64 capacity, const DeviceContext& d) {
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first)
      return partition_first_workspace_bytes(p, s, capacity, d);
    return dispatch_key<ScalarKeys>(p.shape.key, [&](auto k) {
      return SampleArrays<decltype(k)>(nullptr, s.count, capacity, d.world).bytes;
    });
  };
  ranks.run = [](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                 const PhaseMarks& marks) {
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first)
      return run_partition_first(p, s, b, rank, marks);
    return dispatch_key<ScalarKeys>(p.shape.key, [&](auto k) { return run_keys<decltype(k)>(p, s, b, rank, marks); });
  };
  ranks.details = [](const SortProblem& p, int) {
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first) return partition_first_details();
    return Details{{"exchange", "sort"}, {"samples_per_rank", std::to_string(kSamplesPerRank)}};
  };
  Algorithm a = distributed_algorithm(
      "dist-sample-sort",
      "SIGMOD 2022 multi-GPU sorting study (Maltenberger et al.): local CUB radix sort, regular sampling, "
      "splitters, one ncclSend/ncclRecv all-to-all, pairwise CUB merges of the received runs",
      std::move(ranks));
  a.params = {"exchange"};  // sort (sort first, the default) or partition (dist_sample_sort_partition.cu)
  declare_types<ScalarKeys, KeysOnly>(a);
  return a;
}

}  // namespace sb::dist
