// dist-sample-sort, partition first (issue 38, item 6): the sample sort of the SIGMOD 2022
// multi-GPU sorting study (Maltenberger, Ilic, Tolovski, Rabl: "Evaluating multi-GPU sorting
// with modern interconnects") with PSRS-style splitters (Shi and Schaeffer 1992), reordered so
// the all-to-all overlaps a local sort. The sort-first path (dist_sample_sort.cu) sorts the
// whole slice, then exchanges, then merges: its exchange waits for its sort. Here, per rank:
//   1. s stratified samples of the UNSORTED slice, all-gathered; every rank selects the same
//      G-1 splitters in the (key, rank, index-in-slice) order, the samples sort-first would
//      pick from the same sample set (dist_index.hpp select_splitters, destination_of,
//      CPU-tested);
//   2. one split of the slice by destination, its own part first, and the per-destination
//      counts all-gathered: on two ranks one pass that fills the own part from the front and the
//      peer's from the back (split_in_two; keys alone need no order inside a destination, the
//      receiver sorts them), else a stable split (count per tile, scan, scatter);
//   3. the exchange of the remote parts on the rank's stream (Rank::exchange: peer copies or an
//      ncclSend/ncclRecv group), and the sort of the kept part on the side stream beside it;
//   4. the sort of the received parts (one CUB sort of their concatenation), then one CUB merge
//      of the kept and the received runs, for any G.
// dist-hp with a payload on two ranks (dist_hp_pairs.cu, issue 50) takes steps 3 and 4 with
// exact cuts instead of splitters, after its own split at the boundary key
// (dist_split_at_boundary.cuh), and the kept and received sorts on the range's bits or the
// present keys' ranks (dist_partition_sorts.cuh).
// Phases: "local" ends when the split and its counts are known, "exchange" when both the
// all-to-all and the kept part's sort have, "merge" after the received part's sort and the
// merge. Keys are compared by their ordered (radix) bits throughout, as in sort-first.
//
// Memory: the received parts land in a third key-sized region of the workspace (capacity keys).
// The kept run and the received run must both end outside one work buffer, so the merge can
// write all of it; CUB's double-buffer sort decides on the host which buffer its result ends
// in, so the received sort's spare half is placed after the kept run, in whichever buffer that
// is, and its source is the workspace region: neither run ends in the other buffer. Without the third region one of
// the runs would have to be copied in the common case (both sorts an even number of passes).
// Capacity: the samples of an unsorted slice are stratified, not regular, so a destination's
// share has a statistical margin (dist_index.hpp partition_receive_capacity), not PSRS's bound.
#include "dist_sample_sort_partition.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include <cub/device/device_merge.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <fmt/format.h>

#include "../hp/hp_index.hpp"
#include "dist_exchange.cuh"
#include "dist_index.hpp"
#include "dist_partition_sorts.cuh"
#include "dist_split_in_two.cuh"
#include "distributed.hpp"
#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::dist {

namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;
using hp::Carve;

// Samples per rank. Not sorted runs but stratified samples, so the splitters' error falls as
// 1 / sqrt(G s) rather than G / s: 16 times sort-first's 1024 keeps the margin near 6 %
// (G = 2); the G * s samples are gathered and searched on the host (nth_element, not a sort).
constexpr u64 kSamplesPerRank = 16384;
// Inputs this small take capacity n: any split fits, whatever the samples.
constexpr u64 kExactCapacityBelow = u64{1} << 24;
constexpr int kBlock = 256;
constexpr int kItems = 8;
constexpr u64 kTile = u64{kBlock} * kItems;
constexpr int kWarps = kBlock / 32;
// The split keeps per-slot counters in shared memory: (1 + items * warps) words a slot.
constexpr int kMaxWorld = 256;

// The work buffers typed: keys[0] (and vals[0]) hold the slice; vals are null without values.
template <typename K, typename V>
struct Columns {
  K* keys[2] = {nullptr, nullptr};
  V* vals[2] = {nullptr, nullptr};
};

u64 tiles_of(u64 count) { return (count + kTile - 1) / kTile; }

// p + i for a column that may be absent (null values of a keys-only run stay null).
template <typename T>
T* at_offset(T* p, u64 i) {
  return p ? p + i : nullptr;
}

template <typename K, typename V>
struct PartitionArrays {
  void* temp;
  std::size_t temp_bytes = 0;
  TaggedSample* samples;  // world * s: this rank's at rank * s, then all of them after the gather
  Splitter* splitters;  // world - 1
  u64* slot_counts;     // [slot][tile] elements of each destination slot per tile, then one 0
  u64* slot_offsets;    // their exclusive scan: where each tile's part of each slot starts
  u64* counts;          // [q][d] elements rank q sends rank d, all-gathered
  u64* ends;            // G = 2: places split_in_two has taken at the front and at the back
  K* received_keys;     // capacity: the remote parts, by source rank
  V* received_vals;     // capacity, with values only
  std::size_t bytes = 0;
  // sort_bytes: the temporary storage of the caller's sort of up to `capacity` elements.
  PartitionArrays(char* base, u64 count, u64 capacity, int world, std::size_t sort_bytes) {
    const u64 scanned = u64(world) * tiles_of(count) + 1;
    std::size_t scan_bytes = 0;
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const u64*>(nullptr),
                                                static_cast<u64*>(nullptr), std::int64_t(scanned)));
    temp_bytes = std::max({sort_bytes, merge_temp_bytes<K, V>(capacity), scan_bytes});
    Carve c;
    temp = base + c.take(temp_bytes);
    samples = reinterpret_cast<TaggedSample*>(base + c.take(world * kSamplesPerRank * sizeof(TaggedSample)));
    splitters = reinterpret_cast<Splitter*>(base + c.take(std::max(world - 1, 1) * sizeof(Splitter)));
    slot_counts = reinterpret_cast<u64*>(base + c.take(scanned * sizeof(u64)));
    slot_offsets = reinterpret_cast<u64*>(base + c.take(scanned * sizeof(u64)));
    counts = reinterpret_cast<u64*>(base + c.take(std::size_t(world) * world * sizeof(u64)));
    ends = reinterpret_cast<u64*>(base + c.take(2 * sizeof(u64)));
    received_keys = reinterpret_cast<K*>(base + c.take(capacity * sizeof(K)));
    received_vals = nullptr;
    if constexpr (kHasValues<V>) received_vals = reinterpret_cast<V*>(base + c.take(capacity * sizeof(V)));
    bytes = c.used;
  }
};

template <typename K>
__global__ void take_stratified_samples(const K* keys, u64 count, u64 samples, u32 rank, TaggedSample* out) {
  for (u64 j = blockIdx.x * u64{blockDim.x} + threadIdx.x; j < samples; j += u64{gridDim.x} * blockDim.x) {
    if (count) {
      const u64 at = stratified_sample_position(j, samples, count);
      out[j] = {static_cast<u64>(KeyTraits<K>::ordered(keys[at])), rank, at};
    } else {
      out[j] = {~u64{0}, ~u64{0}, ~u64{0}};  // an empty rank's samples sort last
    }
  }
}

__device__ void load_splitters(const Splitter* from, Splitter* to, u32 count) {
  for (u32 i = threadIdx.x; i < count; i += blockDim.x) to[i] = from[i];
}

// Where the stable split puts an element, as a policy of its kernels: `slots()` slots, the
// table staged in shared memory (`table_bytes`), an element's slot from its ordered key and
// index in the slice, and its place in the output from its place in slot order.
//
// The sample sort's: the destination by the splitters (destination_of), own part first.
struct SplitterSlots {
  const Splitter* splitters;
  u32 world, me;
  __host__ __device__ u32 slots() const { return world; }
  __host__ __device__ std::size_t table_bytes() const { return (world - 1) * sizeof(Splitter); }
  __device__ SplitterSlots staged(void* shared) const {
    load_splitters(splitters, static_cast<Splitter*>(shared), world - 1);
    return {static_cast<const Splitter*>(shared), world, me};
  }
  __device__ u32 of(u64 ordered, u64 index) const {
    return destination_slot(destination_of(ordered, me, index, splitters, world - 1), me, world);
  }
  __device__ u64 place(u64 at) const { return at; }
};

// Dynamic shared memory of the split kernels: the slot table, then per-slot words.
template <typename Slots>
std::size_t split_shared_bytes(const Slots& slots) {
  return slots.table_bytes() + (1 + kItems * kWarps) * std::size_t(slots.slots()) * sizeof(u64);
}

// The slots of a tile's elements, striped (item j of thread t is element tile * kTile + j *
// kBlock + t, so consecutive threads read consecutive keys); past the slice, slots() (none).
template <typename K, typename Slots>
__device__ void tile_slots(const K (&keys)[kItems], u64 tile_begin, u64 count, const Slots& slots,
                           u32 (&slot)[kItems]) {
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const u64 i = tile_begin + u64(j) * kBlock + threadIdx.x;
    slot[j] = slots.slots();
    if (i < count) slot[j] = slots.of(static_cast<u64>(KeyTraits<K>::ordered(keys[j])), i);
  }
}

// Per tile, how many of its elements go to each slot: slot_counts[slot * tiles + tile]. The
// lanes of a warp with the same slot add once (one shared atomic per slot per warp and item).
template <typename K, typename Slots>
__global__ void __launch_bounds__(kBlock) count_slots(const K* keys, u64 count, Slots table, u64 tiles,
                                                      u64* slot_counts) {
  extern __shared__ u64 shared_words[];
  const Slots slots = table.staged(shared_words);
  const u32 n_slots = slots.slots();
  u32* tile_count = reinterpret_cast<u32*>(reinterpret_cast<char*>(shared_words) + slots.table_bytes());
  for (u32 s = threadIdx.x; s < n_slots; s += blockDim.x) tile_count[s] = 0;
  __syncthreads();
  const u64 tile = blockIdx.x, begin = tile * kTile;
  K k[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const u64 i = begin + u64(j) * kBlock + threadIdx.x;
    if (i < count) k[j] = keys[i];
  }
  u32 slot[kItems];
  tile_slots(k, begin, count, slots, slot);
  const u32 lane = threadIdx.x & 31;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const u32 peers = __match_any_sync(0xffffffffu, slot[j]);
    if (slot[j] < n_slots && lane == u32(__ffs(peers) - 1)) atomicAdd(&tile_count[slot[j]], u32(__popc(peers)));
  }
  __syncthreads();
  for (u32 s = threadIdx.x; s < n_slots; s += blockDim.x) slot_counts[u64(s) * tiles + tile] = tile_count[s];
  if (tile == 0 && threadIdx.x == 0) slot_counts[u64(n_slots) * tiles] = 0;  // the scan's last entry: the total
}

// The stable split: every element to slot_offsets[its slot's tile entry] plus its rank among
// the tile's elements of that slot, in input order (item j of thread t is element j * kBlock +
// t of the tile), at the policy's place for it. Each warp counts its lanes of each slot per
// item (a match), one pass over the (item, warp) counts per slot turns them into first places,
// and every thread then writes its items: a lane's place is its (item, warp)'s first plus the
// warp's lanes of its slot below it. Two barriers a tile: a barrier per item (four at first)
// made the split 7.9 ms at 2^30 keys.
template <typename K, typename V, typename Slots>
__global__ void __launch_bounds__(kBlock) scatter_by_slot(const K* keys, const V* vals, u64 count, Slots table,
                                                          u64 tiles, const u64* slot_offsets, K* out_keys,
                                                          V* out_vals) {
  extern __shared__ u64 shared_words[];
  const Slots slots = table.staged(shared_words);
  const u32 n_slots = slots.slots();
  // [item][warp][slot]: the count, then the first place
  u64* first = reinterpret_cast<u64*>(reinterpret_cast<char*>(shared_words) + slots.table_bytes());
  const u64 tile = blockIdx.x, begin = tile * kTile;
  for (u32 x = threadIdx.x; x < u32(kItems * kWarps) * n_slots; x += blockDim.x) first[x] = 0;
  K k[kItems];
  [[maybe_unused]] V v[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const u64 i = begin + u64(j) * kBlock + threadIdx.x;
    if (i < count) {
      k[j] = keys[i];
      if constexpr (kHasValues<V>) v[j] = vals[i];
    }
  }
  __syncthreads();
  u32 slot[kItems], peers[kItems];
  tile_slots(k, begin, count, slots, slot);
  const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const u32 lanes_below = (1u << lane) - 1;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    peers[j] = __match_any_sync(0xffffffffu, slot[j]);
    if (slot[j] < n_slots && lane == u32(__ffs(peers[j]) - 1))
      first[(u32(j) * kWarps + warp) * n_slots + slot[j]] = __popc(peers[j]);
  }
  __syncthreads();
  for (u32 s = threadIdx.x; s < n_slots; s += blockDim.x) {
    u64 at = slot_offsets[u64(s) * tiles + tile];
    for (u32 jw = 0; jw < u32(kItems * kWarps); ++jw) {
      const u64 c = first[jw * n_slots + s];
      first[jw * n_slots + s] = at;
      at += c;
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (slot[j] >= n_slots) continue;
    const u64 place =
        slots.place(first[(u32(j) * kWarps + warp) * n_slots + slot[j]] + __popc(peers[j] & lanes_below));
    out_keys[place] = k[j];
    if constexpr (kHasValues<V>) out_vals[place] = v[j];
  }
}

// The stable split of the slice in keys[0] (vals[0]) into keys[1] (vals[1]) by `slots`.
template <typename K, typename V, typename Slots>
void split_by_slot(const Columns<K, V>& col, u64 count, const Slots& slots, const PartitionArrays<K, V>& a,
                   cudaStream_t stream) {
  const u64 tiles = tiles_of(count);
  const std::size_t shared = split_shared_bytes(slots);
  count_slots<K><<<unsigned(tiles), kBlock, shared, stream>>>(col.keys[0], count, slots, tiles, a.slot_counts);
  SB_CUDA_CHECK_LAUNCH();
  std::size_t temp_bytes = a.temp_bytes;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.slot_counts, a.slot_offsets,
                                              std::int64_t(u64(slots.slots()) * tiles + 1), stream));
  scatter_by_slot<K, V><<<unsigned(tiles), kBlock, shared, stream>>>(col.keys[0], col.vals[0], count, slots, tiles,
                                                                     a.slot_offsets, col.keys[1], col.vals[1]);
  SB_CUDA_CHECK_LAUNCH();
}

// G = 2: this rank's row of the count matrix from the places taken at each end.
__global__ void two_way_totals(const u64* ends, u32 me, u64* row) {
  if (threadIdx.x == 0) {
    row[me] = ends[0];
    row[1 - me] = ends[1];
  }
}

// This rank's row of the count matrix: row[d] elements for destination d.
__global__ void slot_totals(const u64* slot_offsets, u64 tiles, u32 world, u32 me, u64* row) {
  for (u32 d = threadIdx.x; d < world; d += blockDim.x) {
    const u64 s = destination_slot(d, me, world);
    row[d] = slot_offsets[(s + 1) * tiles] - slot_offsets[s * tiles];
  }
}

// Steps 3 and 4 of the header, from the split in keys[1] (vals[1]), own part first, and the
// count matrix: the exchange on the rank's stream beside the kept part's sort on the side
// stream (phase `exchanged` marked when both have ended), the received parts' sort and the
// merge (phase `merged`). With values only on two ranks: the merge takes the lower rank's
// elements first among equal keys (stable); the received concatenation of more ranks would
// hold ranks on both sides of this one.
// key_out: the key written for each key sorted on (by the merge, else by a pass at the end),
// into keys_out: the work buffers seen as key_out's type (dist-hp's 2-byte ranks sort in
// col's view of the same buffers as K keys are written).
template <typename K, typename V, typename Sort, typename KeyOut = SameKey, typename OutK = K>
RankResult exchange_sort_and_merge(const Columns<K, V>& col, const RankBuffers& b, const PartitionArrays<K, V>& a,
                                   const std::vector<u64>& counts, const Sort& sort, const Rank& rank,
                                   const PhaseMarks& marks, std::size_t exchanged, std::size_t merged,
                                   const KeyOut& key_out = {}, OutK* const* keys_out = nullptr) {
  static_assert(std::is_same_v<OutK, K> || !std::is_same_v<KeyOut, SameKey>, "keys of another type come from key_out");
  OutK* const out[2] = {keys_out ? keys_out[0] : reinterpret_cast<OutK*>(col.keys[0]),
                        keys_out ? keys_out[1] : reinterpret_cast<OutK*>(col.keys[1])};
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  if (kHasValues<V> && world != 2)
    throw Error(ExitCode::internal, fmt::format("rank {}: the partition-first exchange takes values on two ranks, "
                                                "not {}; report it",
                                                me, world));
  const u64 kept = counts[std::size_t(me) * world + me];
  const u64 received = partition_receive_layout(counts, me, world)[world], total = kept + received;

  // 3. The all-to-all on the rank's stream, launched first so its kernel is resident before
  // the sort's blocks fill the GPU; the kept part's sort beside it on the side stream, from
  // keys[1] with keys[0]'s head as its spare half (the split has read keys[0]).
  const cudaStream_t side = rank.fork_aside();
  std::vector<ExchangeColumn> columns{{col.keys[1], a.received_keys, sizeof(K)}};
  if constexpr (kHasValues<V>) columns.push_back({col.vals[1], a.received_vals, sizeof(V)});
  rank.exchange(partition_transfers(me, world, counts, columns));
  // The buffer the kept run ends in; with nothing kept, keys[0] (free since the split).
  int kept_buffer = 0;
  if (kept)
    kept_buffer = sort(a.temp, a.temp_bytes, col.keys[1], col.keys[0], col.vals[1], col.vals[0], kept, side) == 0 ? 1
                                                                                                                  : 0;
  rank.join();
  marks.mark(exchanged, stream);

  // 4. The received parts sorted together, from the workspace region with the kept run's
  // buffer past the kept run as the spare half, so both runs end outside the other buffer;
  // then one merge into that other buffer.
  K* run_keys = a.received_keys;
  V* run_vals = a.received_vals;
  const int keep = kept_buffer, other = 1 - kept_buffer;
  if (received && sort(a.temp, a.temp_bytes, a.received_keys, col.keys[keep] + kept, a.received_vals,
                       at_offset(col.vals[keep], kept), received, stream) == 1) {
    run_keys = col.keys[keep] + kept;
    run_vals = at_offset(col.vals[keep], kept);
  }
  int result = keep;
  if (kept && received) {
    std::size_t temp_bytes = a.temp_bytes;
    if (me == 0)
      merge_runs<K, V>(a.temp, temp_bytes, col.keys[keep], col.vals[keep], kept, run_keys, run_vals, received,
                       out[other], col.vals[other], stream, key_out);
    else
      merge_runs<K, V>(a.temp, temp_bytes, run_keys, run_vals, received, col.keys[keep], col.vals[keep], kept,
                       out[other], col.vals[other], stream, key_out);
    result = other;
  } else if (received && run_keys == a.received_keys) {
    // Nothing kept and the sorted run still in the workspace: it moves to keys[keep].
    SB_CUDA_CHECK(cudaMemcpyAsync(col.keys[keep], run_keys, received * sizeof(K), cudaMemcpyDeviceToDevice, stream));
    if constexpr (kHasValues<V>)
      SB_CUDA_CHECK(
          cudaMemcpyAsync(col.vals[keep], run_vals, received * sizeof(V), cudaMemcpyDeviceToDevice, stream));
  }
  if constexpr (!std::is_same_v<KeyOut, SameKey>) {
    if (result == keep && total) {
      // No merge wrote the keys: in place where they keep their size, else into the other
      // buffer, the values beside them.
      if constexpr (!std::is_same_v<OutK, K>) {
        if constexpr (kHasValues<V>)
          SB_CUDA_CHECK(cudaMemcpyAsync(col.vals[other], col.vals[keep], total * sizeof(V), cudaMemcpyDeviceToDevice,
                                        stream));
        result = other;
      }
      write_keys_out<<<grid_for(total, 256), 256, 0, stream>>>(col.keys[keep], out[result], total, key_out);
      SB_CUDA_CHECK_LAUNCH();
    }
  }
  marks.mark(merged, stream);
  return {result, total};
}

template <typename K, typename V>
RankResult run_typed(const RankSlice& s, const Columns<K, V>& col, const RankBuffers& b, const Rank& rank,
                     const PhaseMarks& marks) {
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  const SortWholeKeys sort;
  PartitionArrays<K, V> a(static_cast<char*>(b.workspace), s.count, b.capacity, world,
                          SortWholeKeys::bytes<K, V>(b.capacity));
  if (world == 1) {
    const int where =
        s.count ? sort(a.temp, a.temp_bytes, col.keys[0], col.keys[1], col.vals[0], col.vals[1], s.count, stream) : 0;
    for (int ph = 0; ph < 3; ++ph) marks.mark(ph, stream);
    return {where, s.count};
  }

  // 1. Splitters from stratified samples of the unsorted slice, the same on every rank.
  const u64 per = kSamplesPerRank;
  take_stratified_samples<K><<<grid_for(per, 256), 256, 0, stream>>>(col.keys[0], s.count, per, u32(me),
                                                                      a.samples + me * per);
  SB_CUDA_CHECK_LAUNCH();
  SB_NCCL_CHECK(ncclAllGather(a.samples + me * per, a.samples, per * sizeof(TaggedSample), ncclUint8, rank.comm(), stream),
                me);
  std::vector<TaggedSample> all(world * per);
  rank.to_host(all.data(), a.samples, all.size() * sizeof(TaggedSample));
  const std::vector<Splitter> splitters = select_splitters(all, u32(world), per);
  SB_CUDA_CHECK(cudaMemcpyAsync(a.splitters, splitters.data(), splitters.size() * sizeof(Splitter),
                                cudaMemcpyHostToDevice, stream));

  // 2. The split by destination into keys[1], this rank's own part first.
  u64* row = a.counts + std::size_t(me) * world;
  // Values would need the stable split: their keys' order is what makes the result stable.
  if (s.count && world == 2 && !kHasValues<V>) {
    SB_CUDA_CHECK(cudaMemsetAsync(a.ends, 0, 2 * sizeof(u64), stream));
    split_in_two<K><<<unsigned((s.count + kTwoWayTile - 1) / kTwoWayTile), kTwoWayBlock, 0, stream>>>(
        col.keys[0], s.count, a.splitters, u32(me), a.ends, col.keys[1]);
    SB_CUDA_CHECK_LAUNCH();
    two_way_totals<<<1, 32, 0, stream>>>(a.ends, u32(me), row);
    SB_CUDA_CHECK_LAUNCH();
  } else if (s.count) {
    split_by_slot(col, s.count, SplitterSlots{a.splitters, u32(world), u32(me)}, a, stream);
    slot_totals<<<1, kBlock, 0, stream>>>(a.slot_offsets, tiles_of(s.count), u32(world), u32(me), row);
    SB_CUDA_CHECK_LAUNCH();
  } else {
    SB_CUDA_CHECK(cudaMemsetAsync(row, 0, world * sizeof(u64), stream));
  }
  SB_NCCL_CHECK(ncclAllGather(row, a.counts, world, ncclUint64, rank.comm(), stream), me);
  std::vector<u64> counts(std::size_t(world) * world);  // counts[q * world + d]: from rank q to rank d
  rank.to_host(counts.data(), a.counts, counts.size() * sizeof(u64));
  const u64 total = counts[std::size_t(me) * world + me] + partition_receive_layout(counts, me, world)[world];
  if (total > b.capacity)
    throw Error(ExitCode::internal,
                fmt::format("rank {}: the splitters send it {} keys, more than the {} its buffers hold (the partition "
                            "exchange's sampling margin, dist_index.hpp partition_receive_capacity); run it with "
                            "--param exchange=sort, and report the input",
                            me, total, b.capacity));
  marks.mark(0, stream);
  return exchange_sort_and_merge(col, b, a, counts, sort, rank, marks, 1, 2);
}

// dist-hp with values on two ranks: the same exchange of a slice split at the boundary key
// (dist_split_at_boundary.cuh), sorted on the range's bits or on the present keys' ranks; ranks
// that fit two bytes (ranks_in_two_bytes) cross, sort and merge as 2-byte keys, in a view of
// the same buffers, and the merge writes the keys they stand for.
using TwoByteRank = std::uint16_t;

template <typename K, typename V>
RankResult run_boundary_typed(const SortProblem& p, const RankSlice& s, const Columns<K, V>& col,
                              const RankBuffers& b, void* workspace, const Rank& rank, const PhaseMarks& marks,
                              const BoundarySplit& split) {
  const std::size_t phase = split.done_phase;
  const KeyOfRank<K> key_of_rank{split.bin_of_rank, p.facts.min_ordered};
  if (ranks_in_two_bytes(split.rank_bits)) {
    Columns<TwoByteRank, V> ranks;
    for (int i = 0; i < 2; ++i) {
      ranks.keys[i] = reinterpret_cast<TwoByteRank*>(col.keys[i]);
      ranks.vals[i] = col.vals[i];
    }
    PartitionArrays<TwoByteRank, V> a(static_cast<char*>(workspace), s.count, b.capacity, rank.world(),
                                      SortWholeKeys::bytes<TwoByteRank, V>(b.capacity));
    return exchange_sort_and_merge(ranks, b, a, split.counts, SortPresentRanks{split.rank_bits}, rank, marks, phase,
                                   phase, key_of_rank, col.keys);
  }
  PartitionArrays<K, V> a(static_cast<char*>(workspace), s.count, b.capacity, rank.world(),
                          range_radix_sort_bytes(slice_problem(p, b.capacity)));
  if (split.rank_bits == 0)
    return exchange_sort_and_merge(col, b, a, split.counts, SortRangeBits{&p, &rank.ctx()}, rank, marks, phase, phase);
  return exchange_sort_and_merge(col, b, a, split.counts, SortPresentRanks{split.rank_bits}, rank, marks, phase, phase,
                                 key_of_rank);
}

}  // namespace

SampleSortExchange sample_sort_exchange(const SortProblem& p) {
  const auto it = p.params.find("exchange");
  if (it == p.params.end() || it->second == "sort") return SampleSortExchange::sort_first;
  if (it->second == "partition") return SampleSortExchange::partition_first;
  throw UsageError(fmt::format("--param exchange={} is not sort or partition", it->second));
}

std::uint64_t partition_first_capacity(std::uint64_t n, int world) {
  return partition_receive_capacity(n, std::uint64_t(world), kSamplesPerRank, kExactCapacityBelow);
}

std::size_t partition_first_workspace_bytes(const SortProblem& p, const RankSlice& s, std::uint64_t capacity,
                                            const DeviceContext& d) {
  if (d.world > kMaxWorld)
    throw UsageError(fmt::format("dist-sample-sort --param exchange=partition takes at most {} ranks, not {}; use "
                                 "--param exchange=sort",
                                 kMaxWorld, d.world));
  // Keys only: with values the sample sort runs sort-first (dist_sample_sort.cu).
  return dispatch_key<ScalarKeys>(p.shape.key, [&](auto k) {
    using K = decltype(k);
    return PartitionArrays<K, NoValue>(nullptr, s.count, capacity, d.world, SortWholeKeys::bytes<K, NoValue>(capacity))
        .bytes;
  });
}

RankResult run_partition_first(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                               const PhaseMarks& marks) {
  return dispatch_key<ScalarKeys>(p.shape.key, [&](auto k) {
    using K = decltype(k);
    Columns<K, NoValue> col;
    col.keys[0] = static_cast<K*>(b.keys[0]);
    col.keys[1] = static_cast<K*>(b.keys[1]);
    return run_typed<K, NoValue>(s, col, b, rank, marks);
  });
}

std::size_t boundary_split_workspace_bytes(const SortProblem& p, const RankSlice& s, std::uint64_t capacity,
                                           int world) {
  return dispatch_element<IntegerKeys, PairValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    using K = decltype(k);
    using V = decltype(v);
    const std::size_t keys_sort = range_radix_sort_bytes(slice_problem(p, capacity));
    const std::size_t ranks_sort = SortWholeKeys::bytes<TwoByteRank, V>(capacity);
    return std::max(PartitionArrays<K, V>(nullptr, s.count, capacity, world, keys_sort).bytes,
                    PartitionArrays<TwoByteRank, V>(nullptr, s.count, capacity, world, ranks_sort).bytes);
  });
}

RankResult run_boundary_split(const SortProblem& p, const RankSlice& s, const RankBuffers& b, void* workspace,
                              const Rank& rank, const PhaseMarks& marks, const BoundarySplit& split) {
  return dispatch_element<IntegerKeys, PairValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    using K = decltype(k);
    using V = decltype(v);
    Columns<K, V> col;
    for (int i = 0; i < 2; ++i) {
      col.keys[i] = static_cast<K*>(b.keys[i]);
      col.vals[i] = static_cast<V*>(b.values[i]);
    }
    return run_boundary_typed<K, V>(p, s, col, b, workspace, rank, marks, split);
  });
}

Details partition_first_details(int world) {
  return Details{{"exchange", "partition"},
                 {"samples_per_rank", std::to_string(kSamplesPerRank)},
                 {"split", world == 2 ? "two ends, one pass" : "stable, counted per tile"},
                 {"phases", "local: stratified samples, splitters, split by destination, counts; exchange: the "
                            "all-to-all beside the sort of the kept part (ends when both have); merge: the sort of "
                            "the received part and one merge of the two runs"}};
}

}  // namespace sb::dist
