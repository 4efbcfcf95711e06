// Index arithmetic of the distributed family (issue 15), shared by the kernels, the rank
// harness and the CPU tests. No CUDA includes: g++ compiles this file.
//
// Slices (core/slices.hpp): rank r of G owns global positions [slice_begin(r), slice_begin(r + 1)):
// the input rank r holds and the output slice the H-P sort writes. Sample sort: regular sampling (PSRS, Shi and Schaeffer 1992; the sample
// sort of the SIGMOD 2022 multi-GPU sorting study, Maltenberger et al.) with splitters that
// break ties by (rank, local index), so that all-equal keys still split evenly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include "sortbench/algo/peer_transfer.hpp"
#include "sortbench/core/hd.hpp"
#include "sortbench/core/random.hpp"
#include "sortbench/core/slices.hpp"

namespace sb::dist {

// ---- sample sort ----

// Sample j (0 <= j < samples) of a sorted local run of m elements: regular positions
// (j + 1) * m / (samples + 1), so the samples cut the run into samples + 1 near-equal parts.
SB_HD_INLINE std::uint64_t sample_position(std::uint64_t j, std::uint64_t samples, std::uint64_t m) {
  return slice_begin(j + 1, m, samples + 1);
}

// A sample names its key by position: (key, rank, local index) orders every element of the
// global input uniquely, equal keys by rank and then by position in the rank's sorted run.
struct SampleTag {
  std::uint32_t rank;
  std::uint64_t index;
};

// How many elements of rank r's sorted run fall below the splitter (key, tag), given the run's
// lower and upper bounds of that key: [lower, upper) holds the elements equal to it.
SB_HD_INLINE std::uint64_t split_point(std::uint64_t lower, std::uint64_t upper, std::uint32_t r,
                                       const SampleTag& tag) {
  if (r < tag.rank) return upper;
  if (r > tag.rank) return lower;
  return tag.index < lower ? lower : (tag.index > upper ? upper : tag.index);
}

// Splitter d (1 <= d < G) among the G * s samples sorted by (key, rank, index): the sample at
// d * s, which leaves s samples (about m / G elements of each rank) per destination.
SB_HD_INLINE std::uint64_t splitter_sample(std::uint64_t d, std::uint64_t per_rank_samples) {
  return d * per_rank_samples;
}

// Receive capacity a rank sizes its buffers for: regular sampling bounds every destination's
// share of rank q's run by (s + 1) consecutive gaps of ceil(m_q / (s + 1)) elements, i.e.
// n / G + G * ceil(m_max / (s + 1)) over all ranks; the exchange checks the real counts.
SB_HD_INLINE std::uint64_t receive_capacity(std::uint64_t n, std::uint64_t world, std::uint64_t samples) {
  const std::uint64_t m_max = largest_slice(n, world);
  return m_max + world * ((m_max + samples) / (samples + 1)) + world;
}

// ---- sort first on two ranks: the exchange in chunks, each merged as it lands (issue 51) ----
// The exchange of sort-first costs about 6 ms for 2^30 keys a rank on two H200s and its merge
// 2.5 more after it. Cut at the same C - 1 keys on both ranks, the pieces cross in C chunks, and
// chunk j of the output (the kept and the received keys in [v_j, v_{j+1})) is merged while the
// chunks after it travel: only the last merge follows the exchange. The keys come from the
// sorted samples between this destination's splitters, so for any input the chunks hold about
// equal shares of it.

// The chunks of sort-first's exchange: two ranks only (with more, each received run would need
// its pairwise rounds per chunk), and at least 2^24 elements a chunk on average, since each
// chunk costs an exchange of its own (the ranks meet on the host, copies start) and a merge launch.
constexpr int kMaxExchangeChunks = 8;
constexpr std::uint64_t kMinChunkElements = std::uint64_t{1} << 24;
inline int sort_first_chunks(std::uint64_t n, std::uint64_t world) {
  if (world != 2) return 1;
  const std::uint64_t chunks = n / 4 / kMinChunkElements;  // a piece holds about n / 4
  return int(std::clamp<std::uint64_t>(chunks, 1, kMaxExchangeChunks));
}

// Index into the G * s sorted samples of chunk boundary j (1 <= j < chunks) of destination d:
// evenly between the samples that open d and d + 1 (splitter_sample).
SB_HD_INLINE std::uint64_t chunk_boundary_sample(std::uint64_t d, std::uint64_t j, std::uint64_t chunks,
                                                std::uint64_t per_rank_samples) {
  return splitter_sample(d, per_rank_samples) + per_rank_samples * j / chunks;
}

// Where a rank's chunk pieces lie: positions [begin, first boundary, ..., end] of one piece
// [begin, end) of the sorted run, from the lower bounds of the boundary keys in the whole run
// (chunks - 1 of them, ascending), clamped to the piece: keys at a splitter cut by rank and index
// stay in the piece that holds them.
inline std::vector<std::uint64_t> chunk_cuts(std::uint64_t begin, std::uint64_t end, const std::uint64_t* lower_bounds,
                                             int chunks) {
  std::vector<std::uint64_t> at(chunks + 1, begin);
  for (int j = 1; j < chunks; ++j) at[j] = std::min(end, std::max(at[j - 1], lower_bounds[j - 1]));
  at[chunks] = end;
  return at;
}

// How one rank merges the chunks: the received piece lands at capacity - R of the output buffer,
// chunk j at capacity - R + r_j, and the merge of chunk j writes the output's
// [o_j + r_j, o_{j+1} + r_{j+1}) from the front (o, r: prefix sums of the kept and received
// chunk sizes). That never reaches a later chunk (o_{j+1} <= K <= capacity - R), but it reaches
// into chunk j itself once the kept run is nearly used up (the last chunk, always, unless the
// buffer has a chunk to spare). From the first such chunk on, the received tail waits for the
// whole exchange, is copied into the place of the piece this rank sent (free by then) and is
// merged once. Where that tail does not fit there, fits is false: the exchange is not chunked.
struct ChunkedMerge {
  bool fits = false;
  int on_arrival = 0;             // chunks [0, on_arrival) merged as they land
  std::uint64_t kept_before = 0;  // o and r at the tail's first chunk
  std::uint64_t received_before = 0;
};
inline ChunkedMerge plan_chunked_merge(std::uint64_t capacity, const std::uint64_t* kept_chunks,
                                       const std::uint64_t* received_chunks, int chunks, std::uint64_t sent) {
  std::uint64_t kept = 0, received = 0;
  for (int j = 0; j < chunks; ++j) kept += kept_chunks[j], received += received_chunks[j];
  ChunkedMerge m;
  if (kept + received > capacity) return m;
  const std::uint64_t landing = capacity - received;
  std::uint64_t o = 0, r = 0;
  int j = 0;
  for (; j < chunks; ++j) {
    const bool reaches_its_input = received_chunks[j] && o + kept_chunks[j] + r + received_chunks[j] > landing + r;
    if (reaches_its_input) break;
    o += kept_chunks[j], r += received_chunks[j];
  }
  m.on_arrival = j;
  m.kept_before = o;
  m.received_before = r;
  m.fits = received - r <= sent;
  return m;
}

// ---- sample sort, partition first (issue 38) ----
// The splitters come from the UNSORTED slice, so the slice can be split by destination before
// any sort and the exchange can run beside the local sort of the part a rank keeps. Every
// element is named by (ordered key bits, rank, index in the rank's input slice): a total order
// in which equal keys follow rank and input position, so an input of one repeated key still
// splits evenly. Destinations are intervals of that order between consecutive splitters.

// A splitter in the (key, rank, index) order; an empty rank's sample has rank == world, after
// every real rank's element of the largest key.
struct Splitter {
  std::uint64_t key;
  std::uint32_t rank;
  std::uint64_t index;
};

// Whether the element (key, rank, index) comes before the splitter in the total order.
SB_HD_INLINE bool precedes(std::uint64_t key, std::uint32_t rank, std::uint64_t index, const Splitter& s) {
  if (key != s.key) return key < s.key;
  if (rank != s.rank) return rank < s.rank;
  return index < s.index;
}

// The destination rank of the element: how many of the `count` splitters (sorted in the
// order) it does not precede. A splitter's own element goes to the rank the splitter opens,
// as split_point sends it in the sort-first path; a binary search, log2 G comparisons.
SB_HD_INLINE std::uint32_t destination_of(std::uint64_t key, std::uint32_t rank, std::uint64_t index,
                                          const Splitter* splitters, std::uint32_t count) {
  std::uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (precedes(key, rank, index, splitters[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// A sample as the ranks exchange it: ordered key bits, rank, index in the rank's slice; an
// empty rank's samples are all ones and sort last.
struct TaggedSample {
  std::uint64_t key, rank, index;
};
inline bool tagged_before(const TaggedSample& x, const TaggedSample& y) {
  return std::tie(x.key, x.rank, x.index) < std::tie(y.key, y.rank, y.index);
}

// The G - 1 splitters from all G * s samples: the samples at d * s (splitter_sample) of their
// (key, rank, index) order, the ones sort-first takes from the sorted samples. nth_element
// finds each in the part after the previous one, O(G s) instead of a sort on the host's
// critical path. Reorders `samples`.
inline std::vector<Splitter> select_splitters(std::vector<TaggedSample>& samples, std::uint32_t world,
                                              std::uint64_t per_rank) {
  std::vector<Splitter> splitters;
  auto from = samples.begin();
  for (std::uint32_t d = 1; d < world; ++d) {
    const auto at = samples.begin() + static_cast<std::ptrdiff_t>(splitter_sample(d, per_rank));
    std::nth_element(from, at, samples.end(), tagged_before);
    from = at + 1;
    splitters.push_back({at->key, at->rank == ~std::uint64_t{0} ? world : static_cast<std::uint32_t>(at->rank),
                         at->index});
  }
  return splitters;
}

// One column of the all-to-all's buffers on one rank (keys, or values): its sorted run and its
// receive region, elements `width` bytes wide.
struct ExchangeColumn {
  const void* sorted;
  void* received;
  std::size_t width;
};

// Where the run from each rank lands in rank me's receive region, laid out by source rank:
// [0, ..., total], from counts[q * world + d] (elements rank q sends rank d).
inline std::vector<std::uint64_t> receive_layout(const std::vector<std::uint64_t>& counts, int me, int world) {
  std::vector<std::uint64_t> run_begin(world + 1, 0);
  for (int q = 0; q < world; ++q) run_begin[q + 1] = run_begin[q] + counts[std::size_t(q) * world + me];
  return run_begin;
}

// Rank me's transfers in the all-to-all (exchange_and_merge): piece q = [cut[q], cut[q + 1]) of
// its sorted run to rank q, and from rank q its piece into receive_layout's place; per peer the
// columns in order, so each send meets its receive. The rank's own piece is no transfer.
inline std::vector<PeerTransfer> all_to_all_transfers(int me, int world, const std::vector<std::uint64_t>& cut,
                                                      const std::vector<std::uint64_t>& counts,
                                                      const std::vector<ExchangeColumn>& columns) {
  const std::vector<std::uint64_t> run_begin = receive_layout(counts, me, world);
  std::vector<PeerTransfer> transfers;
  for (int q = 0; q < world; ++q) {
    if (q == me) continue;
    const std::uint64_t send = cut[q + 1] - cut[q], recv = counts[std::size_t(q) * world + me];
    for (const ExchangeColumn& c : columns)
      transfers.push_back({q, static_cast<const char*>(c.sorted) + cut[q] * c.width, send * c.width,
                           static_cast<char*>(c.received) + run_begin[q] * c.width, recv * c.width});
  }
  return transfers;
}

// One round of the pairwise merge of the received runs (exchange_and_merge): runs holds the
// boundaries [0, b_1, ..., total] of the runs as they lie; adjacent runs are merged in pairs,
// lower ranks first, into the other buffer, and an odd last run is copied across (merge false).
// Returns the next round's boundaries; rounds continue while more than one run is left (log2 G
// rounds, ping-ponging between the two buffers).
struct MergeStep {
  std::uint64_t first, middle, last;  // [first, middle) merged with [middle, last), or copied
  bool merge;
};
inline std::vector<std::uint64_t> merge_round(const std::vector<std::uint64_t>& runs, std::vector<MergeStep>& steps) {
  steps.clear();
  std::vector<std::uint64_t> next{0};
  for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
    const bool pair = i + 2 < runs.size();
    const std::uint64_t last = pair ? runs[i + 2] : runs[i + 1];
    steps.push_back({runs[i], runs[i + 1], last, pair});
    next.push_back(last);
  }
  return next;
}

// Where a rank puts its part for destination d in the partitioned slice: its own part first
// (slot 0, so the kept part starts at 0 and its sort needs no offset), then the ranks after it.
SB_HD_INLINE std::uint32_t destination_slot(std::uint32_t d, std::uint32_t me, std::uint32_t world) {
  return (d + world - me) % world;
}

// ---- partition first on two ranks: one pass (dist_split_in_two.cuh split_in_two) ----
// Keys alone need no order inside a destination (the receiver sorts its part), so with G = 2
// the split places the rank's own part from the front of the split slice and the peer's part
// from the back, each tile taking its places at both ends with one atomic add per end: one read
// and one write of the slice, no counting pass and no scan of per-tile offsets. The slots come
// out as destination_slot lays them: the own part at [0, front), the peer's at [front, count).
// A tile's (item, warp) groups count both ends in one word, the front in its low half and the
// back in its high half, so one scan serves both (a tile holds fewer than 2^16 elements).
constexpr std::uint32_t kEndBits = 16;
SB_HD_INLINE std::uint32_t pack_ends(std::uint32_t front, std::uint32_t back) { return front | back << kEndBits; }
SB_HD_INLINE std::uint32_t front_of(std::uint32_t packed) { return packed & ((1u << kEndBits) - 1); }
SB_HD_INLINE std::uint32_t back_of(std::uint32_t packed) { return packed >> kEndBits; }

// The place of an element in the split slice of `count` elements, `taken` places of its end
// before it (its tile's base at that end, its group's prefix, the lanes of its group below it):
// the front's k-th place is k, the back's k-th is count - 1 - k.
SB_HD_INLINE std::uint64_t two_way_place(bool front, std::uint64_t taken, std::uint64_t count) {
  return front ? taken : count - 1 - taken;
}

// Partition-first's exchange (dist_sample_sort_partition.cu), from counts[q * world + d] (elements
// rank q sends rank d): where each slot starts in rank me's split slice, slot
// destination_slot(d, me, world) holding its part for rank d (its own part first, kept in place).
inline std::vector<std::uint64_t> partition_slot_begin(const std::vector<std::uint64_t>& counts, int me, int world) {
  std::vector<std::uint64_t> begin(world + 1, 0);
  for (int slot = 0; slot < world; ++slot)
    begin[slot + 1] = begin[slot] + counts[std::size_t(me) * world + (me + slot) % world];
  return begin;
}
// Where the part from each rank lands in rank me's received region, by source rank; its own part
// takes no room there.
inline std::vector<std::uint64_t> partition_receive_layout(const std::vector<std::uint64_t>& counts, int me,
                                                           int world) {
  std::vector<std::uint64_t> begin(world + 1, 0);
  for (int q = 0; q < world; ++q) begin[q + 1] = begin[q] + (q == me ? 0 : counts[std::size_t(q) * world + me]);
  return begin;
}
// Rank me's transfers: its part for each other rank q, from its slot of the split slice (column
// `sorted`), to q; from q its part into the received region (column `received`); per peer the
// columns in order.
inline std::vector<PeerTransfer> partition_transfers(int me, int world, const std::vector<std::uint64_t>& counts,
                                                     const std::vector<ExchangeColumn>& columns) {
  const std::vector<std::uint64_t> slot_begin = partition_slot_begin(counts, me, world);
  const std::vector<std::uint64_t> recv_begin = partition_receive_layout(counts, me, world);
  std::vector<PeerTransfer> transfers;
  for (int q = 0; q < world; ++q) {
    if (q == me) continue;
    const std::uint64_t at = slot_begin[destination_slot(std::uint32_t(q), std::uint32_t(me), std::uint32_t(world))];
    const std::uint64_t send = counts[std::size_t(me) * world + q], recv = counts[std::size_t(q) * world + me];
    for (const ExchangeColumn& c : columns)
      transfers.push_back({q, static_cast<const char*>(c.sorted) + at * c.width, send * c.width,
                           static_cast<char*>(c.received) + recv_begin[q] * c.width, recv * c.width});
  }
  return transfers;
}

// Sample j of an unsorted slice of m >= 1 elements: one position in each of `samples` equal
// strata, at a hashed offset inside the stratum. A stratified sample, not a regular one: on an
// unsorted slice no position is known to hold a given rank, and a fixed stride would alias
// with a periodic input; the hash keeps it deterministic. Strata of m < samples may be empty;
// their samples repeat the next element.
SB_HD_INLINE std::uint64_t stratified_sample_position(std::uint64_t j, std::uint64_t samples, std::uint64_t m) {
  const std::uint64_t begin = slice_begin(j, m, samples);
  const std::uint64_t size = slice_begin(j + 1, m, samples) - begin;
  if (size == 0) return begin < m ? begin : m - 1;
  std::uint64_t h = (j + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64's finalizer
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  return begin + h % size;
}

// Receive capacity of the partition-first exchange. Its G * s samples are a stratified sample
// of the input, so the fraction of it below a splitter misses its target d / G by a standard
// deviation of at most 1 / (2 sqrt(G s)), i.e. sqrt(G / s) / 2 of a slice m; a destination lies
// between two splitters. The margin is 6 sqrt(G / s) m (six such deviations at each end): at
// G = 2 and s = 16384, 6.6 % of a slice. Small inputs (n <= exact_below) take n: any split fits.
// The exchange still checks the real counts and stops with a message if one does not fit.
inline std::uint64_t partition_receive_capacity(std::uint64_t n, std::uint64_t world, std::uint64_t samples,
                                                std::uint64_t exact_below) {
  if (n <= exact_below || world <= 1) return n;
  const std::uint64_t m_max = largest_slice(n, world);
  const double margin = 6.0 * std::sqrt(double(world) / double(samples)) * double(m_max);
  const std::uint64_t c = m_max + static_cast<std::uint64_t>(std::ceil(margin)) + world;
  return c < n ? c : n;
}

// ---- dist-hp keys alone: the histogram reduce-scattered (issue 51) ----
// An all-reduce sends every rank 2 (G - 1) / G of the range's counts; a reduce-scatter half
// of that, and each rank then scans only its share of the bins. Rank q's bins are
// [q h, (q + 1) h), h = range / G, the last rank's also the range % G bins after G h (those
// all-reduced). They hold the global positions [P_q, P_q + T_q) (T_q: their keys, P_q: the
// keys of the ranks before), which cross the output slices: a rank expands each slice's part
// of its positions, its own into its output and the others' into its input buffer (free once
// counted), from which they are exchanged.

SB_HD_INLINE std::uint64_t scatter_bins_begin(std::uint64_t q, std::uint64_t range, std::uint64_t world) {
  return q >= world ? range : q * (range / world);
}

// Rather than NCCL's reduce-scatter after the whole histogram, the shares travel while it is
// counted: rank `me` counts the shares in turn me + 1, ..., me + G - 1 (mod G), then its own, and
// after the j-th sends it to its rank (over the copy engines, beside the next share's counting)
// while receiving its own share's counts from rank me - 1 - j, which counted it j-th too.
SB_HD_INLINE int share_in_turn(int me, int j, int world) { return (me + 1 + j) % world; }
SB_HD_INLINE int share_sender(int me, int j, int world) { return ((me - 1 - j) % world + world) % world; }
// Whether the G - 1 received shares fit the input buffer (capacity_bytes; its keys are counted,
// so free, by then), one slot of the largest share (the last rank's) each. Where they do not (a
// range of more bins than keys) the ranks reduce-scatter after counting, as NCCL does.
SB_HD_INLINE bool received_shares_fit(std::uint64_t range, std::uint64_t world, std::uint64_t capacity_bytes,
                                      std::uint64_t count_bytes) {
  const std::uint64_t largest = range - scatter_bins_begin(world - 1, range, world);
  return (world - 1) * largest * count_bytes <= capacity_bytes;
}

// One slice's part of a rank's positions: [begin, end) of the global order, for rank dest.
struct ExpandPiece {
  int dest;
  std::uint64_t begin, end;
};

// Rank q's positions by the slice they fall in, in slice order (empty parts left out), from
// every rank's key count `totals`.
inline std::vector<ExpandPiece> expand_pieces(const std::vector<std::uint64_t>& totals, int q, std::uint64_t n) {
  const int world = int(totals.size());
  std::uint64_t first = 0;
  for (int r = 0; r < q; ++r) first += totals[r];
  const std::uint64_t last = first + totals[q];
  std::vector<ExpandPiece> pieces;
  for (int d = 0; d < world; ++d) {
    const std::uint64_t b = std::max(first, slice_begin(d, n, world)), e = std::min(last, slice_begin(d + 1, n, world));
    if (b < e) pieces.push_back({d, b, e});
  }
  return pieces;
}

// Whether every rank's positions for the other ranks fit its input buffer of `capacity` keys
// (far from it where the keys are spread over the range; all of them in one rank's bins would
// not). Where one does not, the ranks all-gather the reduced bins instead and each scans all.
inline bool expand_pieces_fit(const std::vector<std::uint64_t>& totals, std::uint64_t n, std::uint64_t capacity) {
  for (int q = 0; q < int(totals.size()); ++q) {
    std::uint64_t others = 0;
    for (const ExpandPiece& piece : expand_pieces(totals, q, n))
      if (piece.dest != q) others += piece.end - piece.begin;
    if (others > capacity) return false;
  }
  return true;
}

// ---- H-P with a payload: the boundary bins ----

// Rank r's elements in a bin b with global start S (exclusive prefix of the global histogram),
// global count C, rank-prefix P (the bin's count on ranks < r) and local count c take global
// positions S + P + [0, c) in stable order. Of those, how many lie below position B (a slice
// boundary): clamp(B - S - P, 0, c).
SB_HD_INLINE std::uint64_t below_in_bin(std::uint64_t boundary, std::uint64_t bin_start, std::uint64_t rank_prefix,
                                        std::uint64_t local_count) {
  const std::uint64_t first = bin_start + rank_prefix;
  if (boundary <= first) return 0;
  const std::uint64_t d = boundary - first;
  return d < local_count ? d : local_count;
}

// The boundaries that fall in a bin: destination boundary d (1 <= d < G) lies at global position
// slice_begin(d, n, G), and the bin covering [bin_start, bin_end) holds boundaries
// first_boundary_from(bin_start) .. while slice_begin(d) < bin_end. The smallest d >= 1 whose
// boundary is not below `position`; G when none is.
SB_HD_INLINE std::uint64_t first_boundary_from(std::uint64_t position, std::uint64_t n, std::uint64_t world) {
  std::uint64_t lo = 1, hi = world;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (slice_begin(mid, n, world) >= position) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The bin `bin` covers global positions [begin, end) of the sorted input (a non-empty bin of the
// global histogram): records it and its start for every boundary d it holds, at d - 1 of bins
// and starts (several boundaries when one key spans slices).
SB_HD_INLINE void record_boundary_bin(std::uint64_t bin, std::uint64_t begin, std::uint64_t end, std::uint64_t n,
                                      std::uint64_t world, std::uint64_t* bins, std::uint64_t* starts) {
  for (std::uint64_t d = first_boundary_from(begin, n, world); d < world && slice_begin(d, n, world) < end; ++d) {
    bins[d - 1] = bin;
    starts[d - 1] = begin;
  }
}

// Every rank's piece sizes for the exchange, counts[q * G + d] from rank q to rank d, from the
// G - 1 boundary bins: bin_start[d - 1] is the global start of the bin holding boundary d,
// below[q * (G - 1) + d - 1] the number of rank q's elements in lower bins and
// in_bin[q * (G - 1) + d - 1] its elements in that bin. Rank q cuts its sorted run for boundary
// d at below + below_in_bin(boundary, bin start, the bin's count on ranks < q, in_bin); every
// destination receives exactly its slice (a bin's elements take global positions in rank order,
// so the pieces concatenate to the global order and the result is stable). 64-bit throughout.
inline void hp_pair_send_counts(std::uint64_t n, std::uint64_t world, const std::uint64_t* bin_start,
                                const std::uint64_t* below, const std::uint64_t* in_bin, std::uint64_t* counts) {
  const std::uint64_t bounds = world - 1;
  for (std::uint64_t q = 0; q < world; ++q) {
    std::uint64_t previous = 0;
    for (std::uint64_t d = 1; d <= world; ++d) {
      std::uint64_t cut = slice_size(q, n, world);
      if (d < world) {
        std::uint64_t rank_prefix = 0;
        for (std::uint64_t r = 0; r < q; ++r) rank_prefix += in_bin[r * bounds + d - 1];
        cut = below[q * bounds + d - 1] +
              below_in_bin(slice_begin(d, n, world), bin_start[d - 1], rank_prefix, in_bin[q * bounds + d - 1]);
      }
      counts[q * world + d - 1] = cut - previous;
      previous = cut;
    }
  }
}

// ---- H-P with a payload, split first on two ranks ----
// The cuts are known before any sort (the boundary bin, and each rank's counts below and in it
// from its own histogram), so a rank splits its unsorted slice by where its elements fall
// around the one boundary key: below it, equal to it, above it (boundary_key_slot's slots 0, 1
// and 2), each in input order. The equal slot keeps input order, so its first (cut - below)
// elements are the ones the sorted run would have sent below the cut: each rank's piece is a
// contiguous range of the split, as of the sorted run. Every term of the split's places is
// known before the pass, so it is one pass (CUB's three-way partition), planned on the GPU
// from the boundary words: it need not wait for the host to learn the cuts.
SB_HD_INLINE std::uint32_t boundary_key_slot(std::uint64_t ordered, const std::uint64_t* boundary_keys,
                                             std::uint32_t keys) {
  std::uint32_t lo = 0, hi = keys;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (boundary_keys[mid] < ordered) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo + (lo < keys && boundary_keys[lo] == ordered ? 1u : 0u);
}

// The split's place of an element at `at` in the key order, turned so the rank's own piece
// (from `own_begin`) comes first and the peer's follows, wrapping around: destination_slot's
// order, which the partition-first exchange sends from.
SB_HD_INLINE std::uint64_t own_first_place(std::uint64_t at, std::uint64_t own_begin, std::uint64_t count) {
  return at >= own_begin ? at - own_begin : at + (count - own_begin);
}

// One rank's split of two: the boundary key (ordered form), its elements below it and equal to
// it in key order (the slots' first places: 0, below, below + equal), where its own piece
// begins in that order, and its element count.
// rank_bits > 0: the split writes each key as its rank among the present keys (present_bin),
// which the sorts take on that many bits.
struct TwoWaySplit {
  std::uint64_t key = 0;
  std::uint64_t below = 0, equal = 0;
  std::uint64_t own_begin = 0;
  std::uint64_t count = 0;
  int rank_bits = 0;
};

// From the boundary words of two ranks: the boundary bin and its global start, and each rank q's
// counts below and in it at around[2 q] and around[2 q + 1]. Rank 1's own piece begins where its
// elements for rank 0 end: hp_pair_send_counts's cut, below + below_in_bin.
SB_HD_INLINE TwoWaySplit two_way_split(std::uint64_t n, std::uint32_t me, std::uint64_t bin, std::uint64_t bin_start,
                                       const std::uint64_t* around, std::uint64_t min_ordered, std::uint64_t count) {
  TwoWaySplit s;
  s.key = min_ordered + bin;
  s.below = around[2 * me];
  s.equal = around[2 * me + 1];
  const std::uint64_t rank_prefix = me == 0 ? 0 : around[1];
  s.own_begin = me == 0 ? 0 : s.below + below_in_bin(slice_begin(1, n, 2), bin_start, rank_prefix, s.equal);
  s.count = count;
  return s;
}

// ---- H-P with a payload, split first: the present keys' ranks ----
// The global histogram names every key present, so a rank can sort its pairs on a key's rank
// among the present keys (the 0-compressed H-P idea) instead of its offset in the range: at
// delta = sigma = 50 and 2^26 keys, 27 K present keys need 15 bits where the range's 1.3 M bins
// need 21, two 8-bit radix passes instead of three. Ranks keep the keys' order and equality,
// so the sort stays stable. present_through[b] (an inclusive scan of the bins' presence) counts
// the present bins up to b: a present bin's rank is that count less one.
SB_HD_INLINE bool present_bin(const std::uint32_t* present_through, std::uint64_t bin) {
  return present_through[bin] != (bin ? present_through[bin - 1] : 0u);
}
// The map back: the bin of each rank (bin_of_rank[rank] = bin for every present bin).
SB_HD_INLINE void record_present_bin(const std::uint32_t* present_through, std::uint64_t bin,
                                     std::uint32_t* bin_of_rank) {
  if (present_bin(present_through, bin)) bin_of_rank[present_through[bin] - 1] = static_cast<std::uint32_t>(bin);
}
// Whether counting the present keys can pay: the range's sort needs two 8-bit passes or more
// (range_bits, the bits range_radix_plan sorts on), and the scan over the range's bins reads
// no more bins than the rank's slice has keys (delta >= 1 over G ranks).
inline bool present_ranks_worth_counting(std::uint64_t range, std::uint64_t slice, int range_bits) {
  return range <= slice && range_bits > 8;
}
// Ranks of up to 16 bits travel as 2-byte keys: the split writes them so, and the exchange, both
// sorts and the merge's reads move 2 bytes a key instead of the key's 4 or 8 (at 2^26 u32
// pairs over two ranks, 6 bytes a pair instead of 8).
SB_HD_INLINE bool ranks_in_two_bytes(int rank_bits) { return rank_bits > 0 && rank_bits <= 16; }
// The bits to sort the ranks of `distinct` present keys on, where they need fewer 8-bit passes
// than the range's bits; 0 where they do not (the keys sort as they are).
SB_HD_INLINE int present_rank_bits(std::uint64_t distinct, int range_bits) {
  if (distinct < 2) return 0;
  const int bits = static_cast<int>(bit_width64(distinct - 1));  // ranks 0 .. distinct - 1
  return (bits + 7) / 8 < (range_bits + 7) / 8 ? bits : 0;
}

}  // namespace sb::dist
