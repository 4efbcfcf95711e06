// Index arithmetic of hp-hybrid's buffered scatter and of its 2^16-bin histograms (beyond seed
// 004), shared by the kernels, the hybrid's rule and the CPU pipeline model. No CUDA includes:
// g++ compiles this file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sortbench/core/hd.hpp"

namespace sb::hp {

// The hybrid's buffered scatter (bucket_scatter_buffered; docs/hp.md, "The buffered scatter"):
// with thousands of buckets a tile holds a few keys of each, and their 2-byte stores cost a
// partial sector each, so a block keeps two chunks of each bucket in shared memory and stores a
// bucket's low bits only as whole chunks, chunk-aligned, from the front of its (bucket, part)
// region [start, end). A key past the two chunks (a bucket with many keys in one tile) is stored
// at once from the region's tail down: those come in runs. What is left in the buffer at the end
// goes to the positions no chunk took: the unaligned head [start, first front) and [front, tail).
// Positions P are the hybrid's offsets: u32 below 2^32 keys, u64 from there (64-bit counts).
constexpr std::uint32_t kScatterChunk = 16;  // 2-byte low bits: one 32-byte sector
// A block's shared memory for `buckets` buffers of two chunks, their fills and their regions'
// two positions (the positions 8-byte aligned: a word of slack for u64).
template <typename P = std::uint32_t>
SB_HD_INLINE constexpr std::size_t scatter_shared_bytes(std::uint64_t buckets, std::uint32_t chunk = kScatterChunk) {
  const std::size_t per_bucket = 2 * chunk * sizeof(std::uint16_t) + sizeof(std::uint32_t) + 2 * sizeof(P);
  return static_cast<std::size_t>(buckets) * per_bucket + (sizeof(P) - sizeof(std::uint32_t));
}
template <typename P = std::uint32_t>
struct ScatterRegion {
  P front, tail;       // next chunk's position; end of the unwritten tail
  std::uint32_t fill;  // keys in the buffer
};
template <typename P>
SB_HD_INLINE P scatter_first_front(P start, P end, std::uint32_t chunk) {
  const P aligned = (start + chunk - 1) / chunk * chunk;
  return aligned < end ? aligned : end;
}
template <typename P>
SB_HD_INLINE ScatterRegion<P> scatter_region(P start, P end, std::uint32_t chunk) {
  return {scatter_first_front(start, end, chunk), end, 0};
}
// A key that took slot `slot` of its bucket this tile (counted on from the buffer's fill) goes to
// the buffer below two chunks, else to this position (the tail is moved after the tile).
SB_HD_INLINE bool scatter_buffered(std::uint32_t slot, std::uint32_t chunk) { return slot < 2 * chunk; }
template <typename P>
SB_HD_INLINE P scatter_direct_position(P tail, std::uint32_t slot, std::uint32_t chunk) {
  return tail - 1 - (slot - 2 * chunk);
}
// After a tile whose slots ran up to `slots`: the keys stored directly leave the tail, the
// buffer keeps at most two chunks.
template <typename P>
SB_HD_INLINE void scatter_settle(ScatterRegion<P>& r, std::uint32_t slots, std::uint32_t chunk) {
  if (slots > 2 * chunk) {
    r.tail -= slots - 2 * chunk;
    slots = 2 * chunk;
  }
  r.fill = slots;
}
// Whether the buffer's first chunk may leave now: it is full and the aligned room before the
// tail takes it (near a short region's end the rest waits for the final placement).
template <typename P>
SB_HD_INLINE bool scatter_chunk_ready(const ScatterRegion<P>& r, std::uint32_t chunk) {
  return r.fill >= chunk && r.tail - r.front >= chunk;
}
// The buffer's first chunk stored at r.front: the second moves down.
template <typename P>
SB_HD_INLINE void scatter_chunk_left(ScatterRegion<P>& r, std::uint32_t chunk) {
  r.front += chunk;
  r.fill -= chunk;
}
// At the part's end: where buffered key j (j < fill) goes.
template <typename P>
SB_HD_INLINE P scatter_final_position(const ScatterRegion<P>& r, P start, P end, std::uint32_t j, std::uint32_t chunk) {
  const P head = scatter_first_front(start, end, chunk) - start;
  return j < head ? start + j : r.front + (j - head);
}

// bucket_hist's 2^16-bin buckets count as 16-bit pairs (hp_index.hpp's pair_word, pair_add) in
// steps of at most kPairStep keys, with adds that return nothing; between steps every half at
// kPairSpillAt or more leaves for A (pair_step_spill), so no half wraps: below kPairSpillAt before
// a step, at most kPairStep added in it, 2^16 - 1 at most. A low kPairSpillAt makes the steps,
// and so the scans of the counters between them, few; only a bin with 2^12 keys or more in one
// block's slice of its bucket reaches it.
// (Returning atomics that catch the wraps, hp-smem's PairRunCounter, left the histogram at a
// quarter of DRAM's rate: docs/hp.md.)
constexpr std::uint32_t kPairSpillAt = std::uint32_t{1} << 12;
constexpr std::uint32_t kPairStep = (std::uint32_t{1} << 16) - kPairSpillAt;
static_assert(kPairSpillAt - 1 + kPairStep == 0xffffu, "a half's most after a step is 2^16 - 1");
struct PairSpill {
  std::uint32_t even, odd;  // the word's two halves (its even and its odd bin)
  bool even_out, odd_out;   // whether each leaves for A
  std::uint32_t kept;       // the word left in shared memory
};
SB_HD_INLINE PairSpill pair_step_spill(std::uint32_t word) {
  const std::uint32_t even = word & 0xffffu, odd = word >> 16;
  const bool even_out = even >= kPairSpillAt, odd_out = odd >= kPairSpillAt;
  return {even, odd, even_out, odd_out, (even_out ? 0 : even) | (odd_out ? 0 : odd << 16)};
}
// Whether any half of the words OR-ed into `words` is at kPairSpillAt or more (a power of two).
SB_HD_INLINE bool pair_words_spill(std::uint32_t words) {
  constexpr std::uint32_t half = 0xffffu & ~(kPairSpillAt - 1);
  return (words & (half | half << 16)) != 0;
}

// The hybrid's buckets counted a range of bins at a time (hp::BinOrder, bucket_hist's
// [first, end)): calls count(first, end) for each run of buckets of 2^low_bits bins that bins
// [lo, hi) reach and that `counted` does not yet hold, and marks them: after it, every bin of
// [lo, hi) is whole. A bucket astride two ranges is counted with the first that reaches it.
template <typename F>
void count_buckets_of(std::uint64_t lo, std::uint64_t hi, unsigned low_bits, std::vector<bool>& counted, F&& count) {
  const std::uint64_t reach = (hi + (std::uint64_t{1} << low_bits) - 1) >> low_bits;
  const std::uint64_t end = reach < counted.size() ? reach : counted.size();
  for (std::uint64_t b = lo >> low_bits; b < end;) {
    if (counted[b]) {
      ++b;
      continue;
    }
    const std::uint64_t first = b;
    for (; b < end && !counted[b]; ++b) counted[b] = true;
    count(static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(b));
  }
}

}  // namespace sb::hp
