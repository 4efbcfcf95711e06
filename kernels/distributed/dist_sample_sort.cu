// dist-sample-sort: the classic multi-GPU baseline that exchanges every key (the sample sort
// of the SIGMOD 2022 multi-GPU sorting study, Maltenberger, Ilic, Tolovski, Rabl: "Evaluating
// multi-GPU sorting with modern interconnects"; regular sampling after PSRS, Shi and
// Schaeffer 1992). Per rank:
//   1. local CUB radix sort of the slice;
//   2. s regular samples of the sorted run, all-gathered; every rank sorts the G*s samples on
//      the host and takes the same G-1 splitters; ties are broken by (rank, local index), so
//      even an input of one repeated key splits evenly (dist_index.hpp split_point);
//   3. send counts all-gathered, then one all-to-all (Rank::exchange: copy-engine peer copies
//      between threads of one process, else ncclSend/ncclRecv in a group);
//   4. the G received sorted runs merged pairwise with CUB's merge (log2 G rounds).
// On two ranks the exchange goes in chunks cut at the same keys on both (dist_index.hpp
// sort_first_chunks, plan_chunked_merge): each chunk is merged on the side stream while the next
// ones travel, so only the last merge follows the exchange.
// A rank ends with its part of the global order, not exactly n/G keys: the imbalance is in
// the row's details. Keys are compared by their ordered (radix) bits throughout, so the
// splitters, the CUB radix sort and the merge agree, -0.0 before +0.0 included.
// With a payload (u32, u64 or index values, issue 38) the local sort is CUB's SortPairs, the
// values travel with their keys (dist_exchange.cuh) and the merge takes the lower rank first
// among equal keys: the result is stable (equal keys keep their global input order), since the
// local radix sort is stable and the splitters' (rank, index) tie-break cuts every rank's equal
// keys in that order.
#include <algorithm>
#include <charconv>
#include <tuple>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include <fmt/format.h>

#include "../hp/hp_index.hpp"
#include "dist_exchange.cuh"
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
  ordered_equal_range(sorted, count, keys[d], &bounds[2 * d], &bounds[2 * d + 1]);
}

// The local sort: CUB's double-buffer radix sort of keys (and values unless V is NoValue) on
// all key bits; with temp == nullptr only sets temp_bytes. Returns the buffer holding the run.
template <typename K, typename V>
int sort_local(void* temp, std::size_t& temp_bytes, const RankBuffers& b, u64 count, cudaStream_t stream) {
  cub::DoubleBuffer<K> keys(static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1]));
  if constexpr (std::is_same_v<V, NoValue>) {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, static_cast<std::int64_t>(count), 0,
                                                 int(sizeof(K) * 8), stream));
  } else {
    cub::DoubleBuffer<V> vals(static_cast<V*>(b.values[0]), static_cast<V*>(b.values[1]));
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, vals, static_cast<std::int64_t>(count), 0,
                                                  int(sizeof(K) * 8), stream));
  }
  return keys.selector;
}

// The lower bound of each chunk boundary key in the sorted run.
template <typename K>
__global__ void bound_chunks(const K* sorted, u64 count, const u64* keys, int boundaries, u64* lower) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= boundaries) return;
  u64 upper = 0;
  ordered_equal_range(sorted, count, keys[i], &lower[i], &upper);
}

// The chunk count of the problem: --param chunks=C (1: one exchange, then the merge), else
// sort_first_chunks; 1 on one rank. UsageError for a count that is not 1..kMaxExchangeChunks, on
// more than two ranks, or beside exchange=partition.
int exchange_chunks(const SortProblem& p, int world) {
  const auto it = p.params.find("chunks");
  if (it == p.params.end()) return sort_first_chunks(p.n(), u64(world));
  int c = 0;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), c);
  if (ec != std::errc() || end != it->second.data() + it->second.size() || c < 1 || c > kMaxExchangeChunks)
    throw UsageError(fmt::format("--param chunks={} is not a whole number from 1 to {}", it->second,
                                 kMaxExchangeChunks));
  if (c > 1 && world > 2)
    throw UsageError(fmt::format("--param chunks={} takes two ranks, not {}; leave it out", it->second, world));
  if (sample_sort_exchange(p) == SampleSortExchange::partition_first)
    throw UsageError(fmt::format("--param chunks={} is sort-first's (exchange=sort); leave it out with "
                                 "exchange=partition",
                                 it->second));
  return world == 1 ? 1 : c;
}

template <typename K, typename V>
struct SampleArrays {
  void* temp;
  std::size_t temp_bytes = 0;
  Sample* samples;  // world * s: this rank's at rank * s, then all of them after the gather
  // splitter keys (world - 1), their bounds (2 (world - 1)), send counts (world * world), chunk
  // boundary keys and their lower bounds (world (C - 1) each), chunk sizes (world * world * C)
  u64* words;
  std::size_t bytes = 0;
  SampleArrays(char* base, u64 count, u64 capacity, int world) {
    std::size_t sort_bytes = 0;
    sort_local<K, V>(nullptr, sort_bytes, RankBuffers{}, count, nullptr);
    temp_bytes = std::max(sort_bytes, merge_temp_bytes<K, V>(capacity));
    Carve c;
    temp = base + c.take(temp_bytes);
    samples = reinterpret_cast<Sample*>(base + c.take(world * kSamplesPerRank * sizeof(Sample)));
    const std::size_t g = std::size_t(world), chunk_words = 2 * g * kMaxExchangeChunks + g * g * kMaxExchangeChunks;
    words = reinterpret_cast<u64*>(base + c.take((3 * g + g * g + chunk_words) * sizeof(u64)));
    bytes = c.used;
  }
};

template <typename K, typename V>
RankResult run(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
               const PhaseMarks& marks) {
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  SampleArrays<K, V> a(static_cast<char*>(b.workspace), s.count, b.capacity, world);
  // The double-buffer form of CUB's sort needs no key-sized temporary storage (a 2^34-key
  // input leaves no room for one); the sorted run ends in either buffer.
  std::size_t temp_bytes = a.temp_bytes;
  const int sorted_buffer = s.count ? sort_local<K, V>(a.temp, temp_bytes, b, s.count, stream) : 0;
  const K* sorted = static_cast<const K*>(b.keys[sorted_buffer]);
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
  rank.to_host(all.data(), a.samples, all.size() * sizeof(Sample));
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
  rank.to_host(bounds.data(), d_bounds, bounds.size() * sizeof(u64));
  // Where the run splits for each destination: [0, p_1, ..., p_{G-1}, count].
  std::vector<u64> cut(world + 1, 0);
  cut[world] = s.count;
  for (int d = 1; d < world; ++d) {
    const Sample& sp = splitters[d - 1];
    // An empty rank's sample (all ones) lies past every key: everything falls below it.
    const SampleTag tag{static_cast<std::uint32_t>(sp.rank == ~u64{0} ? world : sp.rank), sp.index};
    cut[d] = std::max(cut[d - 1], split_point(bounds[2 * (d - 1)], bounds[2 * (d - 1) + 1], std::uint32_t(me), tag));
  }
  const int chunks = exchange_chunks(p, world);
  if (chunks == 1) {
    const std::vector<u64> counts = gather_send_counts(cut, d_counts, rank);
    return exchange_and_merge<K, V>(b, sorted_buffer, cut, counts, a.temp, a.temp_bytes, rank, marks, 1, 2);
  }
  // The chunks' boundary keys, evenly among the sorted samples of each destination's part.
  const std::size_t boundaries = std::size_t(world) * (chunks - 1);
  std::vector<u64> chunk_keys;
  for (int d = 0; d < world; ++d)
    for (int j = 1; j < chunks; ++j) chunk_keys.push_back(all[chunk_boundary_sample(d, j, chunks, per)].key);
  u64* d_chunk_keys = d_counts + std::size_t(world) * world;
  u64* d_lower = d_chunk_keys + boundaries;
  SB_CUDA_CHECK(cudaMemcpyAsync(d_chunk_keys, chunk_keys.data(), boundaries * sizeof(u64), cudaMemcpyHostToDevice,
                                stream));
  bound_chunks<K><<<1, 32 * unsigned((boundaries + 31) / 32), 0, stream>>>(sorted, s.count, d_chunk_keys,
                                                                           int(boundaries), d_lower);
  SB_CUDA_CHECK_LAUNCH();
  std::vector<u64> lower(boundaries);
  rank.to_host(lower.data(), d_lower, boundaries * sizeof(u64));
  return chunked_exchange_and_merge<K, V>(b, sorted_buffer, cut, lower, chunks, d_lower + boundaries, a.temp,
                                          a.temp_bytes, rank, marks, 1, 2);
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
    exchange_chunks(p, d.world);  // a bad --param chunks stops every rank before NCCL starts
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first)
      return partition_first_workspace_bytes(p, s, capacity, d);
    return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      return SampleArrays<decltype(k), decltype(v)>(nullptr, s.count, capacity, d.world).bytes;
    });
  };
  ranks.run = [](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                 const PhaseMarks& marks) {
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first)
      return run_partition_first(p, s, b, rank, marks);
    return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      return run<decltype(k), decltype(v)>(p, s, b, rank, marks);
    });
  };
  ranks.details = [](const SortProblem& p, int world) {
    if (sample_sort_exchange(p) == SampleSortExchange::partition_first) return partition_first_details(world);
    return Details{{"exchange", "sort"},
                   {"samples_per_rank", std::to_string(kSamplesPerRank)},
                   {"chunks", std::to_string(exchange_chunks(p, world))}};
  };
  Algorithm a = distributed_algorithm(
      "dist-sample-sort",
      "SIGMOD 2022 multi-GPU sorting study (Maltenberger et al.): local CUB radix sort, regular sampling, "
      "splitters, one all-to-all (peer copies or ncclSend/ncclRecv), pairwise CUB merges of the received runs; values travel "
      "with their keys (issue 38)",
      std::move(ranks));
  // exchange: sort (sort first, the default) or partition (dist_sample_sort_partition.cu); link:
  // how the pieces cross (ranks.hpp ExchangeLink); chunks: sort-first's exchange in chunks on
  // two ranks (exchange_chunks).
  a.params = {"exchange", "link", "chunks"};
  declare_types<ScalarKeys, AllValues>(a);
  a.stable = true;  // with a payload: stable local sort, (rank, index) splitters, lower ranks first in the merge
  a.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    // Its merge of the kept run with the received one cannot put lower ranks first among equal
    // keys from both sides of this rank, so it would not be stable.
    if (p.has_payload() && sample_sort_exchange(p) == SampleSortExchange::partition_first)
      return std::string("exchange=partition takes keys alone; use exchange=sort (the default) with a payload");
    return std::nullopt;
  };
  return a;
}

}  // namespace sb::dist
