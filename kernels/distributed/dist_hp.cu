// dist-hp: the H-P sort (seed 004, Kozakai 2022) over G GPUs that moves histograms, not keys
// (issues 15, 38). For a bounded key range every rank only needs the global histogram:
//   1. local histogram of the rank's slice with the single-GPU fast path (hp::histogram: the
//      variant hp-auto's rule picks for n/G keys — hp-tiled, in two levels past one level's
//      buckets, shared-memory privatized, hybrid, or global atomics);
//   2. on two ranks ncclReduceScatter of the range-bin histogram (4 bytes a bin, 8 from 2^32
//      keys; O(range), not O(n), crosses; more ranks all-reduce it, see scatter_reduce): rank q
//      gets the global counts of its share of the bins, scans them into runs (value, end) with
//      hp's fused scan, and one all-gather of each rank's key count places every share in the
//      global order (dist_index.hpp expand_pieces);
//   3. every rank clips its runs to each output slice [r*n/G, (r+1)*n/G) they reach and expands
//      them with hp's expansion kernels, its own slice's part in place and the few keys of its
//      bins that other slices hold into its input buffer, exchanged once. Where those would not
//      fit (the keys in few ranks' bins), the shares are all-gathered and every rank scans all
//      the bins and expands its own slice, as --param reduce=all always does (an all-reduce).
// Departure from the single-GPU hp-auto: no CUB fallback (dist-auto chooses another sort where
// this one loses); ranges past 2^32 bins and slices of 2^32 keys or more are unsupported.
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

template <typename Count>
using RunsIn = thrust::transform_iterator<PackBin<Count>, thrust::counting_iterator<u64>>;
template <typename W, typename Count>
using RunsOut = thrust::tabulate_output_iterator<EmitRun<W, Count>>;

// Global counts are 4 bytes a bin below 2^32 keys and 8 from there (the slice's own histogram
// stays 4 bytes: a slice holds fewer than 2^32 keys).
bool wide_counts(const SortProblem& p) {
  if (p.params.count("count_bits")) return p.param_int("count_bits", 32) == 64;
  return p.n() >= (u64{1} << 32);
}

// The rank's workspace: hp's histogram workspace (the slice's histogram, made global by the
// all-reduce where counts are 4 bytes), the 8-byte global histogram where they are not, the
// runs of the non-empty bins with their global ends, those ends clipped to the rank's slice,
// the expansion windows, and the scan's temporary storage. p: the whole input; local: the slice.
template <typename W, typename Count>
struct HpArrays {
  void* histogram;
  Count* global = nullptr;  // 8-byte counts only
  Count *run_end, *len;
  u32 *clip_end, *clip_len;  // the expansion searches 4-byte positions in the slice
  W* run_val;
  uint2* window;
  u64* totals;  // every rank's key count in its share of the bins
  void* temp;
  std::size_t temp_bytes = 0, bytes = 0;
  HpArrays(char* base, const SortProblem& p, const SortProblem& local, u64 slice, int world) {
    Carve c;
    const u64 range = hp::problem_range(p);
    const u64 m = hp::min_u64(p.n(), range);
    histogram = base + c.take(hp::histogram_bytes(local, slice));
    if constexpr (sizeof(Count) == 8) global = reinterpret_cast<Count*>(base + c.take(range * sizeof(Count)));
    run_end = reinterpret_cast<Count*>(base + c.take(m * sizeof(Count)));
    clip_end = reinterpret_cast<u32*>(base + c.take(m * sizeof(u32)));
    run_val = reinterpret_cast<W*>(base + c.take(m * sizeof(W)));
    len = reinterpret_cast<Count*>(base + c.take(sizeof(Count)));
    clip_len = reinterpret_cast<u32*>(base + c.take(sizeof(u32)));
    window = reinterpret_cast<uint2*>(base + c.take(hp::ceil_div(slice ? slice : 1, kExpandTile) * sizeof(uint2)));
    totals = reinterpret_cast<u64*>(base + c.take(std::size_t(world) * sizeof(u64)));
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes,
                                                RunsIn<Count>(thrust::counting_iterator<u64>(0), PackBin<Count>{}),
                                                RunsOut<W, Count>(EmitRun<W, Count>{}), static_cast<std::int64_t>(range)));
    temp = base + c.take(temp_bytes);
    bytes = c.used;
  }
};

__global__ void widen_counts(const u32* in, u64 bins, u64* out) {
  for (u64 i = global_thread(); i < bins; i += global_threads()) out[i] = in[i];
}

// The run ends as positions in the slice [begin, end), `lead` positions after the start of
// the expansion's output: runs before the slice end at lead (the first of them fills the lead),
// runs after it at lead + its length, so hp's tile search skips both. The lead lets an
// expansion into a place that is not 16-byte aligned start at the aligned address before it
// (expand_runs stores 16 bytes at a time).
template <typename Count>
__global__ void clip_runs(const Count* run_end, const Count* len, u64 begin, u64 end, u32 lead, u32* clip_end,
                          u32* clip_len) {
  const u64 runs = *len;
  if (global_thread() == 0) *clip_len = static_cast<u32>(runs);  // runs <= range <= 2^32 - 1 bins
  for (u64 j = global_thread(); j < runs; j += global_threads()) {
    const u64 e = run_end[j];
    clip_end[j] = static_cast<u32>((e < begin ? begin : (e > end ? end : e)) - begin + lead);
  }
}

// Own share's counts, A[0, bins), plus the `shares` others' received beside one another.
template <typename Count>
__global__ void add_received(Count* A, const Count* received, u64 bins, u32 shares) {
  for (u64 i = global_thread(); i < bins; i += global_threads()) {
    Count sum = A[i];
    for (u32 k = 0; k < shares; ++k) sum += received[k * bins + i];
    A[i] = sum;
  }
}

// The transfer with peer q in a rank's list (one per peer: the pairing of an exchange matches a
// peer's k-th transfer with the k-th naming this rank there).
PeerTransfer& transfer_with(std::vector<PeerTransfer>& transfers, int q) {
  for (PeerTransfer& t : transfers)
    if (t.peer == q) return t;
  return transfers.emplace_back(PeerTransfer{q, nullptr, 0, nullptr, 0});
}

// The keys in the scanned bins: the last run's end.
template <typename Count>
__global__ void runs_total(const Count* run_end, const Count* len, u64* total) {
  if (global_thread() == 0) *total = *len ? u64{run_end[*len - 1]} : 0;
}

// Whether the ranks reduce-scatter the histogram or all-reduce it: --param reduce=scatter|all,
// scatter by default on two ranks. On four H200s (6ca2b09) the scatter verified at 2^32 keys and
// on zipf keys but not for n = 3 (ranks with one key or none), which is not yet understood; so
// more than two ranks all-reduce, and asking them to scatter is a usage error.
bool scatter_reduce(const SortProblem& p, int world) {
  const auto it = p.params.find("reduce");
  if (it == p.params.end()) return world == 2;
  if (it->second == "all") return false;
  if (it->second != "scatter")
    throw UsageError(fmt::format("dist-hp: --param reduce={} is not scatter or all", it->second));
  if (world > 2)
    throw UsageError(fmt::format("dist-hp: --param reduce=scatter is verified on two ranks, not {}; leave it out "
                                 "(more ranks all-reduce)",
                                 world));
  return true;
}

// Whether the scatter's shares travel in turn while counting (their counts fit the input
// buffer: details.shares = in-turn) or NCCL reduce-scatters them after it (nccl).
bool sends_shares_in_turn(const SortProblem& p, int world, u64 capacity) {
  return received_shares_fit(hp::problem_range(p), u64(world), capacity * key_bytes(p.shape.key),
                             wide_counts(p) ? 8 : 4);
}

template <typename Count>
constexpr ncclDataType_t nccl_count_type() {
  return sizeof(Count) == 8 ? ncclUint64 : ncclUint32;
}

// p: the whole input (range, n for the run ends); local: the same with the slice's n (hp's
// histogram of the slice).
template <typename K, typename Count>
RankResult run_keys(const SortProblem& p, const SortProblem& local, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                    const PhaseMarks& marks) {
  using W = typename KeyTraits<K>::Ordered;
  const DeviceContext& dev = rank.ctx();
  const cudaStream_t stream = rank.stream();
  const u64 range = hp::problem_range(p);
  const W min_word = hp::min_word_of<K>(p.facts.min_ordered);
  const u64 begin = s.begin, count = s.count;  // the output slice is the input slice's positions
  const int world = rank.world(), me = rank.rank();
  HpArrays<W, Count> a(static_cast<char*>(b.workspace), p, local, count, world);
  const u64 share = range / u64(world), first = scatter_bins_begin(u64(me), range, u64(world));
  const u64 tail = range - share * u64(world);  // the last rank's bins past G shares
  const u64 own_bins = scatter_bins_begin(u64(me) + 1, range, u64(world)) - first;
  const bool scatter = world > 1 && scatter_reduce(p, world);
  const bool send_shares = scatter && sends_shares_in_turn(p, world, b.capacity);
  auto widen = [&](const u32* from, u64 bins, u64* to) {
    widen_counts<<<grid_for(bins, 256, u64(dev.props.multiProcessorCount) * 8), 256, 0, stream>>>(from, bins, to);
    SB_CUDA_CHECK_LAUNCH();
  };
  // The counted shares of the bins: each to its rank while the next is counted (share_in_turn),
  // own share's counts from the others into the input buffer, whose keys are counted by then.
  Count* received = static_cast<Count*>(b.keys[0]);
  hp::BinOrder order;
  for (int j = 0; j < world; ++j) {
    const u64 q = u64(share_in_turn(me, j, world));
    order.bins.emplace_back(scatter_bins_begin(q, range, u64(world)), scatter_bins_begin(q + 1, range, u64(world)));
  }
  order.done = [&](std::size_t j, const u32* counts) {
    const auto [lo, hi] = order.bins[j];
    const Count* at;
    if constexpr (sizeof(Count) == 8) {
      widen(counts + lo, hi - lo, a.global + lo);
      at = a.global;
    } else {
      at = counts;
    }
    if (int(j) + 1 == world) return;  // its own share, counted last
    std::vector<PeerTransfer> transfers;
    PeerTransfer& to = transfer_with(transfers, share_in_turn(me, int(j), world));
    to.send = at + lo;
    to.send_bytes = (hi - lo) * sizeof(Count);
    PeerTransfer& from = transfer_with(transfers, share_sender(me, int(j), world));
    from.recv = received + j * own_bins;
    from.recv_bytes = own_bins * sizeof(Count);
    rank.exchange_aside(transfers);
  };
  // hp-tiled's grouped low bits and the hybrid's use the output buffer until the expansion.
  u32* counts = hp::histogram(local, b.keys[0], count, b.keys[1], a.histogram, dev, send_shares ? &order : nullptr);
  marks.mark(0, stream);
  Count* A;
  if constexpr (sizeof(Count) == 8) {
    if (!send_shares) widen(counts, range, a.global);
    A = a.global;
  } else {
    A = counts;
  }
  constexpr ncclDataType_t kCount = nccl_count_type<Count>();
  W* out = static_cast<W*>(b.keys[1]);
  const u64 runs_max = hp::min_u64(s.n, range);
  // Scans bins [first, first + bins) of A into runs whose ends count from the first bin.
  auto scan = [&](u64 first, u64 bins) {
    SB_CUDA_CHECK(cudaMemsetAsync(a.len, 0, sizeof(Count), stream));  // no bins: no runs (the scan writes none)
    std::size_t temp_bytes = a.temp_bytes;
    const W first_word = static_cast<W>(min_word + static_cast<W>(first));
    SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
        a.temp, temp_bytes, RunsIn<Count>(thrust::counting_iterator<u64>(0), PackBin<Count>{A + first}),
        RunsOut<W, Count>(EmitRun<W, Count>{A + first, a.run_end, a.run_val, a.len, bins, first_word}),
        static_cast<std::int64_t>(bins), stream));
  };
  // Expands the runs' positions [lo, hi) (counted as their ends are) into to[0, hi - lo). A
  // `to` off 16-byte alignment (a slice's part that another rank's keys precede) starts at the
  // aligned address before it: those few places get the first run's value until that rank's
  // keys arrive over them in the exchange, which follows.
  auto expand = [&](u64 lo, u64 hi, W* to) {
    if (lo >= hi) return;
    const u32 lead = static_cast<u32>(reinterpret_cast<std::uintptr_t>(to) % 16 / sizeof(W));
    const u64 length = hi - lo + lead;
    clip_runs<Count><<<grid_for(runs_max, 256), 256, 0, stream>>>(a.run_end, a.len, lo, hi, lead, a.clip_end,
                                                                  a.clip_len);
    SB_CUDA_CHECK_LAUNCH();
    const u64 tiles = hp::ceil_div(length, kExpandTile);
    locate_tiles<<<grid_for(tiles * kLocateThreadsPerTile, 256), 256, 0, stream>>>(a.clip_end, a.clip_len, 0, length,
                                                                                   a.window);
    SB_CUDA_CHECK_LAUNCH();
    expand_runs<W><<<static_cast<unsigned>(tiles), kExpandBlock, 0, stream>>>(a.clip_end, a.run_val, min_word,
                                                                               a.window, length, to - lead);
    SB_CUDA_CHECK_LAUNCH();
  };

  if (send_shares) {
    rank.join();
    if (own_bins)
      add_received<Count><<<grid_for(own_bins, 256, u64(dev.props.multiProcessorCount) * 8), 256, 0, stream>>>(
          A + first, received, own_bins, u32(world - 1));
    SB_CUDA_CHECK_LAUNCH();
  } else if (scatter) {
    if (share)
      SB_NCCL_CHECK(ncclReduceScatter(A, A + first, share, kCount, ncclSum, rank.comm(), stream), me);
    if (tail)
      SB_NCCL_CHECK(
          ncclAllReduce(A + share * world, A + share * world, tail, kCount, ncclSum, rank.comm(), stream), me);
  }
  if (scatter) {
    scan(first, own_bins);
    runs_total<Count><<<1, 32, 0, stream>>>(a.run_end, a.len, a.totals + me);
    SB_CUDA_CHECK_LAUNCH();
    SB_NCCL_CHECK(ncclAllGather(a.totals + me, a.totals, 1, ncclUint64, rank.comm(), stream), me);
    std::vector<u64> totals(world);
    rank.to_host(totals.data(), a.totals, world * sizeof(u64));
    marks.mark(1, stream);
    constexpr u64 kAsideAlign = 16 / sizeof(W);
    if (expand_pieces_fit(totals, s.n, b.capacity - std::min<u64>(b.capacity, kAsideAlign * u64(world)))) {
      // This rank's positions: its slice's part in place, the other slices' into the input
      // buffer; then each part to its rank.
      u64 before = 0;
      for (int q = 0; q < me; ++q) before += totals[q];
      W* aside = static_cast<W*>(b.keys[0]);
      std::vector<PeerTransfer> transfers;
      u64 aside_used = 0;
      for (const ExpandPiece& piece : expand_pieces(totals, me, s.n)) {
        if (piece.dest == me) {
          expand(piece.begin - before, piece.end - before, out + (piece.begin - begin));
        } else {
          aside_used = hp::ceil_div(aside_used, kAsideAlign) * kAsideAlign;  // whole 16-byte stores
          expand(piece.begin - before, piece.end - before, aside + aside_used);
          PeerTransfer& t = transfer_with(transfers, piece.dest);
          t.send = aside + aside_used;
          t.send_bytes = (piece.end - piece.begin) * sizeof(W);
          aside_used += piece.end - piece.begin;
        }
      }
      bool any_crosses = false;
      for (int q = 0; q < world; ++q)
        for (const ExpandPiece& piece : expand_pieces(totals, q, s.n)) {
          if (piece.dest == q) continue;
          any_crosses = true;
          if (piece.dest != me) continue;
          PeerTransfer& t = transfer_with(transfers, q);
          t.recv = out + (piece.begin - begin);
          t.recv_bytes = (piece.end - piece.begin) * sizeof(W);
        }
      if (any_crosses) rank.exchange(transfers);  // every rank knows whether any piece crosses
      marks.mark(2, stream);
      return {1, count};
    }
    // Some rank's bins hold more of the other slices than its buffer: every rank takes every
    // share and expands its own slice from all the bins (the tail, sent with the last share,
    // from the last rank).
    if (share) SB_NCCL_CHECK(ncclAllGather(A + first, A, share, kCount, rank.comm(), stream), me);
    if (send_shares && tail)
      SB_NCCL_CHECK(ncclBroadcast(A + share * world, A + share * world, tail, kCount, world - 1, rank.comm(), stream),
                    me);
  } else {
    SB_NCCL_CHECK(ncclAllReduce(A, A, range, kCount, ncclSum, rank.comm(), stream), me);
    marks.mark(1, stream);
  }
  scan(0, range);
  expand(begin, begin + count, out);
  marks.mark(2, stream);
  return {1, count};
}

using HpKeys = IntegerKeys;

// Ranks the problem runs on: the context's world where the session set it (a support check
// before the ranks start), else one.
int world_of(const SortProblem& p) { return p.device ? std::max(p.device->world, 1) : 1; }

}  // namespace

Algorithm make_dist_hp() {
  RankAlgorithm ranks;
  ranks.phases = {"histogram", "allreduce", "expand"};
  ranks.capacity = [](const SortProblem&, u64 n, int world) { return largest_slice(n, u64(world)); };
  ranks.workspace_bytes = [](const SortProblem& p, const RankSlice& s, u64 capacity, const DeviceContext& d) {
    if (p.has_payload()) return dist_hp_pairs_workspace_bytes(p, s, capacity, d.world);
    return dispatch_key<HpKeys>(p.shape.key, [&](auto k) {
      using W = typename KeyTraits<decltype(k)>::Ordered;
      const SortProblem local = slice_keys_problem(p, s.count);
      return wide_counts(p) ? HpArrays<W, u64>(nullptr, p, local, s.count, d.world).bytes
                            : HpArrays<W, u32>(nullptr, p, local, s.count, d.world).bytes;
    });
  };
  ranks.prepare = [](const SortProblem& p, const DeviceContext& d) {
    const u64 slice = slice_size(d.rank, p.n(), d.world);
    hp::prepare_histogram(slice_keys_problem(p, slice), slice, d);
  };
  ranks.run = [](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                 const PhaseMarks& marks) {
    if (p.has_payload()) return run_dist_hp_pairs(p, s, b, rank, marks);
    const SortProblem local = slice_keys_problem(p, s.count);
    return dispatch_key<HpKeys>(p.shape.key, [&](auto k) {
      using K = decltype(k);
      return wide_counts(p) ? run_keys<K, u64>(p, local, s, b, rank, marks) : run_keys<K, u32>(p, local, s, b, rank, marks);
    });
  };
  ranks.details = [](const SortProblem& p, int world) {
    const u64 slice = slice_size(0, p.n(), world);
    Details d{{"histogram", hp::histogram_name(slice_keys_problem(p, slice), slice)},
              {"histogram_bins", std::to_string(hp::problem_range(p))},
              {"count_bits", wide_counts(p) ? "64" : "32"}};
    if (p.has_payload()) d.emplace_back("exchange", dist_hp_pairs_splits_first(p, world) ? "partition" : "sort");
    if (p.has_payload() && dist_hp_pairs_splits_first(p, world))
      d.emplace_back("sort_on", dist_hp_pairs_may_rank_keys(p) ? "present-key ranks where they take fewer radix passes"
                                                               : "range bits");
    if (!p.has_payload()) {
      const bool scatter = world > 1 && scatter_reduce(p, world);
      d.emplace_back("reduce", scatter ? "scatter" : "all");
      const bool in_turn = scatter && sends_shares_in_turn(p, world, largest_slice(p.n(), u64(world)));
      if (scatter) d.emplace_back("shares", in_turn ? "in-turn" : "nccl");
    }
    return d;
  };
  Algorithm a = distributed_algorithm(
      "dist-hp",
      "issue 15: H-P (seed 004) over NCCL ranks: local histogram (hp fast kernels), ncclAllReduce, each rank "
      "expands its n/G slice from the global prefix sums; no key exchange",
      std::move(ranks));
  a.constraints = "integer keys; range <= 2^32 bins; fewer than 2^32 keys a rank (8-byte global counts from 2^32 keys); "
                  "with a payload the pairs are sorted locally and exchanged once on exact splitters (dist_hp_pairs.cu)";
  // hp's histogram variant and its buckets; count_bits=64 forces the 8-byte global counts;
  // reduce: scatter (the default on two ranks) or all, how keys alone combine the histograms. link: how
  // pairs, and the keys of one rank's bins that other slices hold, cross to other ranks
  // (ranks.hpp ExchangeLink).
  // exchange: with a payload on two ranks, partition (split by the boundary keys, the exchange
  // beside the kept piece's sort; the default) or sort (sort, then exchange and merge).
  // sort_on: split first, auto (the present keys' ranks where they take fewer radix passes than
  // the range's bits; the default) or range.
  a.params = {"histogram", "low_bits", "levels", "fine_bits", "count_bits", "link", "reduce", "exchange", "sort_on"};
  declare_types<HpKeys, AllValues>(a);
  a.stable = true;  // with a payload (dist_hp_pairs.cu): stable local sort, cuts in rank order, lower ranks first
  a.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (p.params.count("count_bits")) {
      const long bits = p.param_int("count_bits", 32);
      if (bits != 32 && bits != 64)
        throw UsageError(fmt::format("dist-hp: count_bits={} is not 32 or 64; use 64 to force 8-byte counts", bits));
      if (bits == 32 && p.n() >= (u64{1} << 32))
        throw UsageError("dist-hp: count_bits=32 cannot count 2^32 keys or more; use 64");
    }
    if (!p.has_payload()) scatter_reduce(p, world_of(p));  // a bad --param reduce: a usage error before any rank starts
    dist_hp_pairs_splits_first(p, world_of(p));          // and a bad --param exchange
    dist_hp_pairs_may_rank_keys(p);                      // or sort_on
    if (p.has_payload() && p.n() >= (u64{1} << 32))
      return std::string("with a payload the global counts are 4 bytes: fewer than 2^32 pairs; use dist-sample-sort");
    const u64 slice = slice_size(0, p.n(), world_of(p));
    return hp::histogram_unsupported(slice_keys_problem(p, slice), slice);
  };
  return a;
}

}  // namespace sb::dist
