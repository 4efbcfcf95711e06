// The exchange and merge of the distributed sorts that move elements (issue 15; values beside
// their keys, issue 38): dist-sample-sort, and dist-hp with a payload. Each rank holds its
// sorted run cut into G pieces, piece d for rank d. One all-to-all (Rank::exchange: peer copies
// or ncclSend/ncclRecv in a group, the structure of the SIGMOD 2022 multi-GPU sorting study's
// sample sort, Maltenberger et al.) moves every piece, the values with the same counts and offsets as their keys; the G
// received runs, laid out by source rank, are merged pairwise with CUB's merge (log2 G rounds)
// between the two work buffers.
//
// Stability: CUB documents DeviceMerge as unstable (equal keys of its two inputs in either
// order). With values the merge therefore compares (key, source run), and the lower rank's
// elements come first among equal keys; given stable local sorts and cuts that give every
// destination a prefix of each run's equal keys in rank order, the result keeps the global
// input order of equal keys. Keys alone merge on the key (their order among equals is not
// observable).
#pragma once

#include <cstdint>
#include <vector>

#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cub/device/device_merge.cuh>

#include <fmt/format.h>

#include "sortbench/algo/ranks.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"
#include "dist_index.hpp"

namespace sb::dist {

// Keys by their ordered (radix) bits, as the radix sorts and the splitters see them: -0.0
// before +0.0.
struct OrderedLess {
  template <typename K>
  __host__ __device__ bool operator()(const K& a, const K& b) const {
    return KeyTraits<K>::ordered(a) < KeyTraits<K>::ordered(b);
  }
};

// [lower, upper): where the keys of ordered form `key` lie in a run sorted by ordered form (two
// binary searches; the splitters' and the boundary bins' bounds).
template <typename K>
__device__ void ordered_equal_range(const K* sorted, std::uint64_t count, std::uint64_t key, std::uint64_t* lower,
                                    std::uint64_t* upper) {
  std::uint64_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::uint64_t>(KeyTraits<K>::ordered(sorted[mid])) < key) lo = mid + 1;
    else hi = mid;
  }
  *lower = lo;
  hi = count;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::uint64_t>(KeyTraits<K>::ordered(sorted[mid])) <= key) lo = mid + 1;
    else hi = mid;
  }
  *upper = lo;
}

// A key with the received run it came from: the pairs merge's tie-break.
template <typename K>
struct RunKey {
  K key;
  std::uint32_t run;
};

template <typename K>
struct TagWithRun {
  std::uint32_t run;
  __host__ __device__ RunKey<K> operator()(const K& k) const { return {k, run}; }
};

template <typename K>
struct DropRun {
  __host__ __device__ K operator()(const RunKey<K>& t) const { return t.key; }
};

struct RunKeyLess {
  template <typename K>
  __host__ __device__ bool operator()(const RunKey<K>& a, const RunKey<K>& b) const {
    const auto x = KeyTraits<K>::ordered(a.key), y = KeyTraits<K>::ordered(b.key);
    return x < y || (x == y && a.run < b.run);
  }
};

// Merges the sorted runs [a, a + na) and [a + na, a + na + nb) of keys (and values unless V is
// NoValue) into out; the first run's elements precede the second's among equal keys when
// there are values. temp == nullptr: only sets temp_bytes.
template <typename K, typename V>
void merge_runs(void* temp, std::size_t& temp_bytes, const K* keys, const V* vals, std::uint64_t na, std::uint64_t nb,
                K* keys_out, V* vals_out, cudaStream_t stream) {
  if constexpr (std::is_same_v<V, NoValue>) {
    SB_CUDA_CHECK(cub::DeviceMerge::MergeKeys(temp, temp_bytes, keys, std::int64_t(na), keys + na, std::int64_t(nb),
                                              keys_out, OrderedLess{}, stream));
  } else {
    auto first = thrust::make_transform_iterator(keys, TagWithRun<K>{0});
    auto second = thrust::make_transform_iterator(keys + na, TagWithRun<K>{1});
    auto out = thrust::make_transform_output_iterator(keys_out, DropRun<K>{});
    SB_CUDA_CHECK(cub::DeviceMerge::MergePairs(temp, temp_bytes, first, vals, std::int64_t(na), second, vals + na,
                                               std::int64_t(nb), out, vals_out, RunKeyLess{}, stream));
  }
}

// The merge's temporary storage for two runs of up to `capacity` elements each.
template <typename K, typename V>
std::size_t merge_temp_bytes(std::uint64_t capacity) {
  std::size_t bytes = 0;
  merge_runs<K, V>(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<const V*>(nullptr), capacity, capacity,
                   static_cast<K*>(nullptr), static_cast<V*>(nullptr), nullptr);
  return bytes;
}

// Every rank's piece sizes, counts[q * world + d] from rank q to rank d, gathered from this
// rank's cut points [0, cut_1, ..., cut_{G-1}, run length]; d_counts: world * world device words.
inline std::vector<std::uint64_t> gather_send_counts(const std::vector<std::uint64_t>& cut, std::uint64_t* d_counts,
                                                     const Rank& rank) {
  const int world = rank.world(), me = rank.rank();
  std::vector<std::uint64_t> counts(std::size_t(world) * world);
  for (int d = 0; d < world; ++d) counts[me * world + d] = cut[d + 1] - cut[d];
  SB_CUDA_CHECK(cudaMemcpyAsync(d_counts + me * world, counts.data() + me * world, world * sizeof(std::uint64_t),
                                cudaMemcpyHostToDevice, rank.stream()));
  SB_NCCL_CHECK(ncclAllGather(d_counts + me * world, d_counts, world, ncclUint64, rank.comm(), rank.stream()), me);
  rank.to_host(counts.data(), d_counts, counts.size() * sizeof(std::uint64_t));
  return counts;
}

// Sends piece d = [cut[d], cut[d + 1]) of the sorted run in buffer `sorted_buffer` of b to rank
// d, receives the runs sent here into the other buffer (counts: gather_send_counts's matrix),
// marks phase `exchanged`, merges the received runs and marks phase `merged` (the same phase
// when a caller times both as one). temp holds merge_temp_bytes<K, V>(b.capacity). Returns the
// buffer of the merged run and its length.
template <typename K, typename V>
RankResult exchange_and_merge(const RankBuffers& b, int sorted_buffer, const std::vector<std::uint64_t>& cut,
                              const std::vector<std::uint64_t>& counts, void* temp, std::size_t temp_bytes,
                              const Rank& rank, const PhaseMarks& marks, std::size_t exchanged, std::size_t merged) {
  constexpr bool kValues = !std::is_same_v<V, NoValue>;
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  const int receive_buffer = 1 - sorted_buffer;
  K* sorted = static_cast<K*>(b.keys[sorted_buffer]);
  K* in = static_cast<K*>(b.keys[receive_buffer]);
  V* sorted_vals = static_cast<V*>(b.values[sorted_buffer]);
  V* in_vals = static_cast<V*>(b.values[receive_buffer]);
  const std::vector<std::uint64_t> run_begin = receive_layout(counts, me, world);  // where the run from rank q lands
  const std::uint64_t total = run_begin[world];
  if (total > b.capacity)
    throw Error(ExitCode::internal, fmt::format("rank {}: the exchange sends it {} elements, more than the {} its "
                                                "buffers hold (the cuts should bound this); report it",
                                                me, total, b.capacity));

  // The rank's own piece is copied on the side stream, so the copy overlaps the transfer
  // instead of following it.
  const std::uint64_t own = cut[me + 1] - cut[me];
  if (own) {
    rank.copy_aside(in + run_begin[me], sorted + cut[me], own * sizeof(K));
    if constexpr (kValues) rank.copy_aside(in_vals + run_begin[me], sorted_vals + cut[me], own * sizeof(V));
  }
  std::vector<ExchangeColumn> columns{{sorted, in, sizeof(K)}};
  if constexpr (kValues) columns.push_back({sorted_vals, in_vals, sizeof(V)});
  rank.exchange(all_to_all_transfers(me, world, cut, counts, columns));
  if (own) rank.join();
  marks.mark(exchanged, stream);

  // Pairwise merges of adjacent runs, lower ranks first, ping-ponging between the buffers
  // (merge_round in dist_index.hpp).
  std::vector<std::uint64_t> runs(run_begin);
  std::vector<MergeStep> steps;
  int src = 0;  // of keys/vals below, whose index 0 is the receive buffer
  K* keys[2] = {in, sorted};
  V* vals[2] = {in_vals, sorted_vals};
  while (runs.size() > 2) {
    runs = merge_round(runs, steps);
    for (const MergeStep& m : steps) {
      if (m.merge) {
        std::size_t bytes = temp_bytes;
        merge_runs<K, V>(temp, bytes, keys[src] + m.first, kValues ? vals[src] + m.first : nullptr,
                         m.middle - m.first, m.last - m.middle, keys[1 - src] + m.first,
                         kValues ? vals[1 - src] + m.first : nullptr, stream);
      } else if (m.middle > m.first) {
        SB_CUDA_CHECK(cudaMemcpyAsync(keys[1 - src] + m.first, keys[src] + m.first, (m.middle - m.first) * sizeof(K),
                                      cudaMemcpyDeviceToDevice, stream));
        if constexpr (kValues)
          SB_CUDA_CHECK(cudaMemcpyAsync(vals[1 - src] + m.first, vals[src] + m.first,
                                        (m.middle - m.first) * sizeof(V), cudaMemcpyDeviceToDevice, stream));
      }
    }
    src = 1 - src;
  }
  marks.mark(merged, stream);
  return {src == 0 ? receive_buffer : sorted_buffer, total};
}

}  // namespace sb::dist
