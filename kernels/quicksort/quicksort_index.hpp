// Index arithmetic of the quicksort family (seed 002, Kimura 2016: P-Quick, its K-way
// Partition, and the DP merge sort), shared by the kernels and their CPU tests. No CUDA
// includes: plain g++ compiles this file.
//
// Departures from the paper, all for inputs that break naive quicksort:
//  - Every split is three-way per pivot: keys equal to a pivot form a bucket of their own
//    that is finished at once. The paper's two-way `pivot < a[i]` split never shrinks a
//    segment of equal keys.
//  - Pivots are sample medians: the 2-way split takes the median of three keys spread
//    over the segment (the middle one is the paper's pivot a[n/2]); a K-way split sorts
//    `samples` spread keys and takes every (samples/K)-th. The middle key alone is the
//    maximum of an organ-pipe input, which makes the recursion O(n) deep.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sortbench/core/hd.hpp"

namespace sb::qs {

using u64 = std::uint64_t;

inline constexpr int kMaxArity = 8;                     // split arity K: 2, 4 or 8
inline constexpr int kMaxPivots = kMaxArity - 1;
inline constexpr int kMaxBuckets = 2 * kMaxArity - 1;   // K ranges + K-1 "equal to pivot" ranges
inline constexpr u64 kSelectionBelow = 32;              // P-Quick: selection sort when r - l < 32
inline constexpr int kMaxNestingDepth = 24;             // CUDA Dynamic Parallelism nesting limit

SB_HD_INLINE bool valid_arity(long k) { return k == 2 || k == 4 || k == 8; }
SB_HD_INLINE constexpr int bucket_count(int npivots) { return 2 * npivots + 1; }
// Odd buckets hold the keys equal to a pivot: already in their final place.
SB_HD_INLINE bool is_equal_bucket(int b) { return (b & 1) != 0; }
// Rounds of two-way splits that make K parts (Prefix, P-Prefix, Sequential): log2 K.
SB_HD_INLINE int split_rounds(int arity) { return arity == 8 ? 3 : arity == 4 ? 2 : 1; }

// Bucket of key x among sorted pivots p[0..np): 2j for p[j-1] < x < p[j], 2j+1 for x == p[j].
template <typename T>
SB_HD_INLINE int bucket_of(T x, const T* p, int np) {
  int j = 0;
  while (j < np && p[j] < x) ++j;
  return (j < np && !(x < p[j])) ? 2 * j + 1 : 2 * j;
}

// Output offsets of the buckets: exclusive prefix sum of the counts, from `begin`.
SB_HD_INLINE void bucket_offsets(const u64* counts, int nb, u64 begin, u64* offsets) {
  u64 at = begin;
  for (int b = 0; b < nb; ++b) {
    offsets[b] = at;
    at += counts[b];
  }
}

// Position of sample i of s spread evenly over [begin, begin + len): centres of s equal strata.
SB_HD_INLINE u64 sample_position(u64 begin, u64 len, int i, int s) {
  return begin + (len / u64(2 * s)) * u64(2 * i + 1) + (len % u64(2 * s)) * u64(2 * i + 1) / u64(2 * s);
}

// Samples used to pick the K-1 pivots of one split.
SB_HD_INLINE constexpr int sample_count(int npivots, int oversampling) { return (npivots + 1) * oversampling - 1; }

template <typename T>
SB_HD_INLINE void selection_sort(T* a, u64 len) {
  for (u64 i = 0; i + 1 < len; ++i) {
    u64 m = i;
    for (u64 j = i + 1; j < len; ++j)
      if (a[j] < a[m]) m = j;
    if (m != i) {
      const T t = a[i];
      a[i] = a[m];
      a[m] = t;
    }
  }
}

// Which of s sorted samples is pivot j of npivots: the (j+1)/(np+1) quantile.
SB_HD_INLINE constexpr int pivot_sample(int j, int s, int npivots) { return (j + 1) * (s + 1) / (npivots + 1) - 1; }

// Sorts samples[0..s) in place and writes the npivots pivots (pivot_sample).
template <typename T>
SB_HD_INLINE void pivots_from_samples(T* samples, int s, int npivots, T* pivots) {
  selection_sort(samples, u64(s));
  for (int j = 0; j < npivots; ++j) pivots[j] = samples[pivot_sample(j, s, npivots)];
}

// Place of samples[i] when samples[0..s) are sorted, ties broken by index: one thread per
// sample writes sorted[sample_rank(..., i)] = samples[i], the order pivots_from_samples sorts to.
template <typename T>
SB_HD_INLINE int sample_rank(const T* samples, int s, int i) {
  int r = 0;
  for (int j = 0; j < s; ++j) r += (samples[j] < samples[i] || (j < i && !(samples[i] < samples[j]))) ? 1 : 0;
  return r;
}

// quick-fast's leaf radix sorts work on a key's ordered form (KeyTraits<K>::Ordered, u32 or
// u64: ordered(a) < ordered(b) for keys a < b). Ordered forms in [lo, hi] share every bit above
// the lowest differing_low_bits(lo, hi): a radix sort of them needs only those low bits (0: all
// equal).
template <typename U>
SB_HD_INLINE int differing_low_bits(U lo, U hi) {
  static_assert(std::is_unsigned_v<U>, "ordered key forms are unsigned");
  int n = 0;
  for (U d = lo ^ hi; d != 0; d >>= 1) ++n;
  return n;
}

// quick-fast's per-thread tiles and shared-memory leaf buffers depend on the bytes of one
// element (key plus value, 4 to 16): a wider element takes fewer items per thread (registers)
// and fewer elements per buffer (shared memory), so 4-byte keys keep the tiles tuned for them
// and 16-byte elements still fit.
//
// Items per thread in a tile of at most budget_bytes per thread: a power of two, at least 1.
SB_HD_INLINE constexpr int items_per_thread(int budget_bytes, int element_bytes) {
  int items = 1;
  while (items * 2 * element_bytes <= budget_bytes) items *= 2;
  return items;
}
inline constexpr int kGridTileBytes = 64;     // grid splits: 16 items of a 4-byte key
inline constexpr int kLeafSplitBytes = 32;    // leaf splits: 8 items of a 4-byte key
inline constexpr int kLargeRadixBytes = 32;   // BlockRadixSort up to 8 x 512 4-byte keys
inline constexpr int kSmallRadixBytes = 8;    // and a small one up to 2 x 512

// The two shared-memory buffers of a leaf block hold 2 * 2^smem_log2 elements: by default
// 64 KiB (two leaf blocks per SM), at most 128 KiB.
inline constexpr u64 kLeafBuffersDefaultBytes = u64(64) << 10;
inline constexpr u64 kLeafBuffersMaxBytes = u64(128) << 10;
inline constexpr int kLeafSmemLog2Min = 11;
SB_HD_INLINE constexpr u64 leaf_buffers_bytes(int smem_log2, int element_bytes) {
  return 2 * (u64(1) << smem_log2) * u64(element_bytes);
}
// The largest smem_log2 whose two buffers fit in `bytes`.
SB_HD_INLINE constexpr int leaf_smem_log2_within(u64 bytes, int element_bytes) {
  int s = 0;
  while (leaf_buffers_bytes(s + 1, element_bytes) <= bytes) ++s;
  return s;
}

// Bitonic sort of any length, all comparators ascending (min to the lower index): step j of
// stage k pairs i with its mirror i ^ (k-1) when j == k/2, else with i ^ j. Positions past
// the end act as +infinity, so pairs with partner >= len are skipped and no padding is needed.
SB_HD_INLINE u64 bitonic_partner(u64 i, u64 k, u64 j) { return j == k / 2 ? (i ^ (k - 1)) : (i ^ j); }
SB_HD_INLINE u64 pow2_at_least(u64 x) {
  u64 p = 1;
  while (p < x) p <<= 1;
  return p;
}

// Merge path: how many of the first `diag` outputs of merge(a, b) come from a (ties take a).
template <typename T>
SB_HD_INLINE u64 merge_path(const T* a, u64 na, const T* b, u64 nb, u64 diag) {
  u64 lo = diag > nb ? diag - nb : 0;
  u64 hi = diag < na ? diag : na;
  while (lo < hi) {
    const u64 mid = lo + (hi - lo) / 2;
    if (!(b[diag - 1 - mid] < a[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- quick-sample: sample sort (issue 18) ----
// A split takes 2^bits - 1 pivots (bits <= kSampleMaxBits) from kSampleOversampling sorted
// samples per bucket, and gives 2^(bits+1) - 1 buckets: a level of 255 pivots does what eight
// levels of quick-fast's K = 8 splits do.
inline constexpr int kSampleMaxBits = 8;
inline constexpr int kSampleMaxPivots = (1 << kSampleMaxBits) - 1;
inline constexpr int kSampleMaxBuckets = bucket_count(kSampleMaxPivots);
inline constexpr int kSampleOversampling = 16;

SB_HD_INLINE constexpr int ceil_log2(u64 x) {
  int b = 0;
  while (b < 63 && (u64(1) << b) < x) ++b;
  return b;
}

// Pivot bits of the split of a segment of len > 2 * leaf_target elements: the halvings still
// needed to bring it to leaf_target, spread evenly over the fewest levels of at most
// kSampleMaxBits each, one halving left to the leaves' slack (a leaf holds 4 targets). 2^26
// keys to 2^10: 8 bits, then 8 (not 6, 5 and 5); a bucket a little above 2^18 takes 8 bits
// and leaves of up to 2 targets, not 5 + 4 bits and a third level for almost nothing.
SB_HD_INLINE constexpr int sample_split_bits(u64 len, u64 leaf_target) {
  const int need = ceil_log2((len + leaf_target - 1) / leaf_target);
  if (need <= 1) return 1;
  const int levels = need - 1 <= kSampleMaxBits ? 1 : (need - 1 + kSampleMaxBits - 1) / kSampleMaxBits;
  const int bits = (need + levels - 1) / levels;
  return bits < kSampleMaxBits ? bits : kSampleMaxBits;
}

// Bucket of x among the 2^bits - 1 sorted pivots p, as bucket_of (2t for p[t-1] < x < p[t],
// 2t+1 for x == p[t]) but in `bits` steps of a branch-free binary search, the same steps for
// every key of a warp.
template <typename T>
SB_HD_INLINE int sample_bucket(T x, const T* p, int bits) {
  const int np = (1 << bits) - 1;
  int t = 0;
  for (int step = 1 << (bits - 1); step > 0; step >>= 1)
    if (p[t + step - 1] < x) t += step;
  return (t < np && !(x < p[t])) ? 2 * t + 1 : 2 * t;
}

// The same bucket in kSampleMaxBits steps whatever the split's bits, so that the grids' search
// unrolls over a tile's keys (independent chains in flight) instead of looping `bits` times
// per key: the pivots spread over a search tree of kSampleMaxPivots entries, pivot g repeated
// 2^(kSampleMaxBits - bits) times and the last group of entries at the key's maximum (never
// below a key), so that the entries below x, shifted down, count the pivots below x. The tree is
// laid out breadth-first (node j's children are 2j and 2j+1, root 1): each step reads one
// entry and takes one compare, the layout of super scalar sample sort.
inline constexpr int kSampleTreeNodes = kSampleMaxPivots;

// Node of the breadth-first tree that holds the s-th smallest entry (s < kSampleTreeNodes).
SB_HD_INLINE int sample_tree_node(int s) {
  int below = 0;  // trailing zero bits of s + 1: the entry's height in the tree
  while (((s + 1) >> below & 1) == 0) ++below;
  const int depth = kSampleMaxBits - 1 - below;
  return (1 << depth) + ((s + 1) >> (below + 1));
}

// The s-th smallest entry of the tree of a split with 2^bits - 1 pivots p; top: the key's maximum.
template <typename T>
SB_HD_INLINE T sample_tree_entry(int s, const T* p, int bits, T top) {
  const int group = s >> (kSampleMaxBits - bits);
  return group < (1 << bits) - 1 ? p[group] : top;
}

// Bucket of x (as sample_bucket) from the tree (tree[1..kSampleTreeNodes]) and the pivots p.
template <typename T>
SB_HD_INLINE int sample_tree_bucket(T x, const T* tree, const T* p, int bits) {
  int j = 1;
  for (int step = 0; step < kSampleMaxBits; ++step) j = 2 * j + (tree[j] < x ? 1 : 0);
  const int t = (j - (1 << kSampleMaxBits)) >> (kSampleMaxBits - bits);
  return (t < (1 << bits) - 1 && !(x < p[t])) ? 2 * t + 1 : 2 * t;
}

// The high 64 bits of a * b.
SB_HD_INLINE u64 mul_high(u64 a, u64 b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return u64((unsigned __int128)a * b >> 64);
#endif
}

// Offset of sample i of a segment of len elements that starts at `begin`: hashed rather than
// strided, so that a periodic input (organ pipe, sawtooth) cannot hand every sample the same
// few keys; the segment's start seeds it, so segments draw different offsets.
SB_HD_INLINE u64 sample_offset(u64 len, u64 begin, u64 i) {
  u64 z = begin * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return mul_high(z, len);  // z * len / 2^64: in [0, len) without a 64-bit division
}

// Grid tiles and leaf sizes of an element of element_bytes (key plus value), the Elem sizes
// of quick-fast: 4096 elements a tile and 4096 a leaf for 4-byte keys.
SB_HD_INLINE constexpr u64 grid_tile_elements(int element_bytes) {
  return u64(256) * items_per_thread(kGridTileBytes, element_bytes);
}
SB_HD_INLINE constexpr u64 radix_leaf_elements(int element_bytes) {
  return u64(512) * items_per_thread(kLargeRadixBytes, element_bytes);
}

// The bucket size a split aims at, a quarter of the leaf: buckets drawn from
// kSampleOversampling samples each vary by about a quarter, so at a quarter almost none
// overflows a leaf (which would cost a level), and the plan gathers neighbouring buckets into
// full leaves anyway.
SB_HD_INLINE constexpr u64 sample_leaf_target(u64 leaf_max) { return leaf_max / 4; }

// Levels a segment of len elements is expected to take when every split gives buckets of the
// same size: quick-sample-nodp queues its leaf grid after the level it expects to be the last
// instead of first reading the next level back (a bucket that still overflows a leaf costs one
// more level and one more leaf grid, never a wrong sort).
SB_HD_INLINE constexpr int sample_expected_levels(u64 len, u64 leaf_max) {
  int levels = 0;
  for (; len > leaf_max; ++levels) {
    const int bits = sample_split_bits(len, sample_leaf_target(leaf_max));
    len = (len + (u64(1) << bits) - 1) >> bits;
  }
  return levels;
}

// Pivot j of a split's (np + 1) * kSampleOversampling sorted samples is the last sample of
// the j-th group of kSampleOversampling (pivot_sample): thread j of a block that holds
// kSampleOversampling sorted samples a thread (blocked) holds it as its last.
SB_HD_INLINE constexpr bool pivot_is_group_last(int j, int np) {
  return pivot_sample(j, (np + 1) * kSampleOversampling, np) == (j + 1) * kSampleOversampling - 1;
}

// The leaves of a split segment's small buckets (size at most leaf_max), bucket k being
// [start[k], start[k + 1]): consecutive small buckets are gathered greedily, in order, into
// runs of at most leaf_max elements, so that a leaf sort is filled rather than run on one
// small bucket; a bucket above leaf_max (a segment of the next level, or a copied equal-key
// bucket) ends the run. emit(begin, len, equal_only) gets each run; equal_only: every bucket
// of the run holds keys equal to a pivot (already in order).
template <typename Offset, typename Emit>
SB_HD_INLINE void sample_leaf_runs(const Offset* start, int nb, u64 leaf_max, Emit&& emit) {
  u64 begin = 0, len = 0;
  bool equal_only = true;
  for (int k = 0; k < nb; ++k) {
    const u64 n = start[k + 1] - start[k];
    if (n == 0) continue;
    if (len > 0 && (n > leaf_max || len + n > leaf_max)) {
      emit(begin, len, equal_only);
      len = 0;
      equal_only = true;
    }
    if (n > leaf_max) continue;
    if (len == 0) begin = start[k];
    len += n;
    equal_only = equal_only && is_equal_bucket(k);
  }
  if (len > 0) emit(begin, len, equal_only);
}

// What one level of quick-sample may hold at most, for the workspace. A level's segments are
// disjoint and longer than leaf_max; a segment of len elements takes at most
// 2 * len / leaf_target + 1 pivots (sample_split_bits: 2^bits < 2 * ceil(len / leaf_target)),
// twice as many buckets plus one, a count/place block per block_elements begun, and a bucket
// size per block and bucket: at most 4 * len / leaf_target + 3 for a segment of one block, at
// most 2 * len / block_elements * kSampleMaxBuckets for a longer one. Leaves are counted over
// all levels: per level one per bucket between pivots (a sort), one per equal bucket and per
// copy_chunk elements (a copy), one per segment (a part a refused launch left behind).
struct SampleCapacity {
  u64 segments, blocks, pivots, buckets, hists, leaves;
};
SB_HD_INLINE constexpr SampleCapacity sample_capacity(u64 n, u64 block_elements, u64 leaf_max, u64 copy_chunk,
                                                      int levels) {
  SampleCapacity c{};
  const u64 leaf_target = sample_leaf_target(leaf_max);
  c.segments = n / (leaf_max + 1) + 1;
  c.blocks = n / block_elements + c.segments;
  c.pivots = 2 * (n / leaf_target) + 3 * c.segments;
  c.buckets = 2 * c.pivots + c.segments;
  c.hists = 4 * (n / leaf_target) + 7 * c.segments + 2 * (n / block_elements + 1) * u64(kSampleMaxBuckets);
  c.leaves = u64(levels) * (c.buckets + n / copy_chunk + 2 * c.segments) + 1;
  return c;
}

// Pending device launches the tree may need: every launched child holds at least
// `min_child` keys and the children of one level are disjoint.
SB_HD_INLINE u64 pending_launch_bound(u64 n, u64 min_child, u64 floor_count, u64 cap) {
  u64 c = n / min_child + 1;
  if (c < floor_count) c = floor_count;
  return c > cap ? cap : c;
}

// The pending-launch limit after asking set(want) for `count`, then half of it, and so on
// while above `current`, until set accepts one (the buffer takes device memory, and the
// runtime may refuse a size; launches that do not fit fall back to the launching block, so
// any size is correct): the value accepted, or `current` where none was (or none was needed).
template <typename Set>
u64 raise_by_halves(u64 current, u64 count, Set&& set) {
  for (u64 want = count; want > current; want /= 2)
    if (set(want)) return want;
  return current;
}

}  // namespace sb::qs
