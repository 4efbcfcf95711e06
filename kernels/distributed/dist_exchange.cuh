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
#include <type_traits>
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

// The key a merge writes for the key it compared: the same, or (dist-hp's split first) the
// key a present key's rank stands for.
struct SameKey {
  template <typename K>
  __host__ __device__ K operator()(const K& k) const {
    return k;
  }
};

template <typename K, typename KeyOut = SameKey>
struct DropRun {
  KeyOut key_out;
  __host__ __device__ auto operator()(const RunKey<K>& t) const { return key_out(t.key); }
};

// The order the merge compares in: the key type's, and a 2-byte rank's own (dist-hp's ranks of
// the present keys, dist_index.hpp ranks_in_two_bytes).
template <typename K>
__host__ __device__ auto merge_order(const K& k) {
  if constexpr (std::is_same_v<K, std::uint16_t>) return k;
  else return KeyTraits<K>::ordered(k);
}

struct RunKeyLess {
  template <typename K>
  __host__ __device__ bool operator()(const RunKey<K>& a, const RunKey<K>& b) const {
    const auto x = merge_order(a.key), y = merge_order(b.key);
    return x < y || (x == y && a.run < b.run);
  }
};

// Merges the sorted runs a[0, na) and b[0, nb) of keys (and values unless V is NoValue) into
// out; a's elements precede b's among equal keys when there are values. temp == nullptr: only
// sets temp_bytes. With values, key_out gives the key written (of type OutK) for each key
// compared.
template <typename K, typename V, typename KeyOut = SameKey, typename OutK = K>
void merge_runs(void* temp, std::size_t& temp_bytes, const K* a_keys, const V* a_vals, std::uint64_t na,
                const K* b_keys, const V* b_vals, std::uint64_t nb, OutK* keys_out, V* vals_out, cudaStream_t stream,
                const KeyOut& key_out = {}) {
  static_assert(std::is_same_v<KeyOut, SameKey> || !std::is_same_v<V, NoValue>, "keys alone merge as they are");
  if constexpr (std::is_same_v<V, NoValue>) {
    SB_CUDA_CHECK(cub::DeviceMerge::MergeKeys(temp, temp_bytes, a_keys, std::int64_t(na), b_keys, std::int64_t(nb),
                                              keys_out, OrderedLess{}, stream));
  } else {
    auto first = thrust::make_transform_iterator(a_keys, TagWithRun<K>{0});
    auto second = thrust::make_transform_iterator(b_keys, TagWithRun<K>{1});
    auto out = thrust::make_transform_output_iterator(keys_out, DropRun<K, KeyOut>{key_out});
    SB_CUDA_CHECK(cub::DeviceMerge::MergePairs(temp, temp_bytes, first, a_vals, std::int64_t(na), second, b_vals,
                                               std::int64_t(nb), out, vals_out, RunKeyLess{}, stream));
  }
}

// The merge's temporary storage for two runs of up to `capacity` elements each.
template <typename K, typename V>
std::size_t merge_temp_bytes(std::uint64_t capacity) {
  std::size_t bytes = 0;
  merge_runs<K, V>(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<const V*>(nullptr), capacity,
                   static_cast<const K*>(nullptr), static_cast<const V*>(nullptr), capacity, static_cast<K*>(nullptr),
                   static_cast<V*>(nullptr), nullptr);
  return bytes;
}

// Every rank's row of words, all-gathered: out[q * row.size() + i] is rank q's row[i].
// d_rows: world * row.size() device words.
inline std::vector<std::uint64_t> gather_rows(const std::vector<std::uint64_t>& row, std::uint64_t* d_rows,
                                              const Rank& rank) {
  const int world = rank.world(), me = rank.rank();
  const std::size_t width = row.size();
  std::vector<std::uint64_t> rows(width * world);
  SB_CUDA_CHECK(cudaMemcpyAsync(d_rows + me * width, row.data(), width * sizeof(std::uint64_t),
                                cudaMemcpyHostToDevice, rank.stream()));
  SB_NCCL_CHECK(ncclAllGather(d_rows + me * width, d_rows, width, ncclUint64, rank.comm(), rank.stream()), me);
  rank.to_host(rows.data(), d_rows, rows.size() * sizeof(std::uint64_t));
  return rows;
}

// Every rank's piece sizes, counts[q * world + d] from rank q to rank d, gathered from this
// rank's cut points [0, cut_1, ..., cut_{G-1}, run length]; d_counts: world * world device words.
inline std::vector<std::uint64_t> gather_send_counts(const std::vector<std::uint64_t>& cut, std::uint64_t* d_counts,
                                                     const Rank& rank) {
  std::vector<std::uint64_t> row(rank.world());
  for (int d = 0; d < rank.world(); ++d) row[d] = cut[d + 1] - cut[d];
  return gather_rows(row, d_counts, rank);
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
                         m.middle - m.first, keys[src] + m.middle, kValues ? vals[src] + m.middle : nullptr,
                         m.last - m.middle, keys[1 - src] + m.first, kValues ? vals[1 - src] + m.first : nullptr,
                         stream);
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

// Two ranks, sort first: the exchange of exchange_and_merge in `chunks` chunks, each merged on
// the side stream as it lands while the later ones travel (dist_index.hpp plan_chunked_merge:
// where the pieces lie and which merges wait for the whole exchange). lower: each destination's
// chunks - 1 boundary keys' lower bounds in the sorted run (world (chunks - 1) words); d_rows:
// world * world * chunks device words. Falls back to exchange_and_merge where a rank's last
// chunks would not fit the place of the piece it sent (every rank decides alike from the
// gathered sizes). Returns the buffer of the merged run and its length.
template <typename K, typename V>
RankResult chunked_exchange_and_merge(const RankBuffers& b, int sorted_buffer, const std::vector<std::uint64_t>& cut,
                                      const std::vector<std::uint64_t>& lower, int chunks, std::uint64_t* d_rows,
                                      void* temp, std::size_t temp_bytes, const Rank& rank, const PhaseMarks& marks,
                                      std::size_t exchanged, std::size_t merged) {
  using u64 = std::uint64_t;
  constexpr bool kValues = !std::is_same_v<V, NoValue>;
  const int world = rank.world(), me = rank.rank(), peer = 1 - me;
  const std::size_t c = std::size_t(chunks);
  // Where each destination's piece splits into chunks, and every rank's chunk sizes:
  // sizes[(q * world + d) * chunks + j], rank q's chunk j for rank d.
  std::vector<std::vector<u64>> at(world);
  std::vector<u64> row;
  for (int d = 0; d < world; ++d) {
    at[d] = chunk_cuts(cut[d], cut[d + 1], lower.data() + d * (c - 1), chunks);
    for (std::size_t j = 0; j < c; ++j) row.push_back(at[d][j + 1] - at[d][j]);
  }
  const std::vector<u64> sizes = gather_rows(row, d_rows, rank);
  auto chunk_sizes = [&](int q, int d) { return sizes.data() + (std::size_t(q) * world + d) * c; };
  auto piece = [&](int q, int d) {
    u64 sum = 0;
    for (std::size_t j = 0; j < c; ++j) sum += chunk_sizes(q, d)[j];
    return sum;
  };
  ChunkedMerge plan;
  bool every_rank_fits = true;
  for (int q = 0; q < world; ++q) {
    const ChunkedMerge m = plan_chunked_merge(b.capacity, chunk_sizes(q, q), chunk_sizes(1 - q, q), chunks,
                                              piece(q, 1 - q));
    every_rank_fits = every_rank_fits && m.fits;
    if (q == me) plan = m;
  }
  if (!every_rank_fits) {
    std::vector<u64> counts(std::size_t(world) * world);
    for (int q = 0; q < world; ++q)
      for (int d = 0; d < world; ++d) counts[q * world + d] = piece(q, d);
    return exchange_and_merge<K, V>(b, sorted_buffer, cut, counts, temp, temp_bytes, rank, marks, exchanged, merged);
  }

  const int out = 1 - sorted_buffer;
  K* sorted = static_cast<K*>(b.keys[sorted_buffer]);
  K* out_keys = static_cast<K*>(b.keys[out]);
  V* sorted_vals = static_cast<V*>(b.values[sorted_buffer]);
  V* out_vals = static_cast<V*>(b.values[out]);
  const u64 kept = piece(me, me), received = piece(peer, me), landing = b.capacity - received;
  const u64* received_chunks = chunk_sizes(peer, me);
  // Lower ranks first among equal keys (stable with values): rank 0's kept run is the merge's
  // first, rank 1's the received one.
  auto merge = [&](const K* kept_keys, const V* kept_vals, u64 nk, const K* in_keys, const V* in_vals, u64 nr,
                   u64 to, cudaStream_t s) {
    if (nk + nr == 0) return;
    std::size_t bytes = temp_bytes;
    V* vals_to = kValues ? out_vals + to : nullptr;
    if (me == 0)
      merge_runs<K, V>(temp, bytes, kept_keys, kept_vals, nk, in_keys, in_vals, nr, out_keys + to, vals_to, s);
    else
      merge_runs<K, V>(temp, bytes, in_keys, in_vals, nr, kept_keys, kept_vals, nk, out_keys + to, vals_to, s);
  };
  std::vector<ExchangeColumn> columns{{sorted, out_keys, sizeof(K)}};
  if constexpr (kValues) columns.push_back({sorted_vals, out_vals, sizeof(V)});
  u64 r = 0;
  for (std::size_t j = 0; j < c; ++j) {
    const u64 send_from = at[peer][j], send = at[peer][j + 1] - send_from;
    std::vector<PeerTransfer> transfers;
    for (const ExchangeColumn& col : columns)
      transfers.push_back({peer, static_cast<const char*>(col.sorted) + send_from * col.width, send * col.width,
                           static_cast<char*>(col.received) + (landing + r) * col.width,
                           received_chunks[j] * col.width});
    rank.exchange(transfers);
    if (int(j) < plan.on_arrival) {
      const u64 o = at[me][j] - cut[me], nk = at[me][j + 1] - at[me][j];
      merge(sorted + at[me][j], kValues ? sorted_vals + at[me][j] : nullptr, nk, out_keys + landing + r,
            kValues ? out_vals + landing + r : nullptr, received_chunks[j], o + r, rank.fork_aside());
    }
    r += received_chunks[j];
  }
  marks.mark(exchanged, rank.stream());
  if (plan.on_arrival < chunks) {
    // The tail: every chunk has left and arrived, so the sent piece's place is free for it.
    const cudaStream_t side = rank.fork_aside();
    const u64 nr = received - plan.received_before, nk = kept - plan.kept_before;
    K* moved = sorted + cut[peer];
    V* moved_vals = kValues ? sorted_vals + cut[peer] : nullptr;
    SB_CUDA_CHECK(cudaMemcpyAsync(moved, out_keys + landing + plan.received_before, nr * sizeof(K),
                                  cudaMemcpyDeviceToDevice, side));
    if constexpr (kValues)
      SB_CUDA_CHECK(cudaMemcpyAsync(moved_vals, out_vals + landing + plan.received_before, nr * sizeof(V),
                                    cudaMemcpyDeviceToDevice, side));
    merge(sorted + cut[me] + plan.kept_before, kValues ? sorted_vals + cut[me] + plan.kept_before : nullptr, nk, moved,
          moved_vals, nr, plan.kept_before + plan.received_before, side);
  }
  rank.join();
  marks.mark(merged, rank.stream());
  return {out, kept + received};
}

}  // namespace sb::dist
