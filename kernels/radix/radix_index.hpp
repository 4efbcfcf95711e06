// Index arithmetic of the radix family (seed 001, LSD radix sort of 4-word rows; radix-lsd
// also of 64-bit keys), shared by the kernels and the CPU tests: which digit a pass reads, the Blelloch scan's element
// pairs, the (digit, block) layout of the counts, the split of the input into tiles and
// blocks, and the warp-segment order the parallel scatter loads a tile in.
// Plain C++ (no CUDA includes): g++ compiles it for tests/radix/.
#pragma once

#include <cstdint>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::radix {

inline constexpr unsigned kMaxRadixBits = 8;
inline constexpr unsigned kDefaultRadixBits = 8;
inline constexpr unsigned kWarp = 32;

SB_HD_INLINE constexpr unsigned radix_bins(unsigned bits) { return 1u << bits; }

SB_HD_INLINE unsigned bit_width32(std::uint32_t x) {
  unsigned w = 0;
  while (x) ++w, x >>= 1;
  return w;
}

// ---- Digits --------------------------------------------------------------------------

// The radix-sortable words of a key: scalar keys have one, their order-preserving bit
// transform KeyTraits<K>::ordered, as wide as the key (Ordered: u32 or u64; i32/i64 sign
// flipped, f32/f64 negatives inverted); a row has four 32-bit words used as they are (word 0
// most significant).
template <typename K>
struct RadixWord {
  using type = typename KeyTraits<K>::Ordered;
  static constexpr unsigned count = 1;
};
template <>
struct RadixWord<Row4> {
  using type = std::uint32_t;
  static constexpr unsigned count = 4;
};
template <typename K>
using radix_word_t = typename RadixWord<K>::type;

template <typename K>
SB_HD_INLINE constexpr unsigned words_of() {
  return RadixWord<K>::count;
}
template <typename K>
SB_HD_INLINE constexpr unsigned word_bits_of() {
  return 8 * sizeof(radix_word_t<K>);
}

SB_HD_INLINE unsigned bit_width64(std::uint64_t x) {
  unsigned w = 0;
  while (x) ++w, x >>= 1;
  return w;
}

// Word `word` of a key. Float keys fold -0.0 onto +0.0 (as CUB does): '<' does not tell the
// two zeros apart, so a stable sort keeps them in input order.
template <typename K>
SB_HD_INLINE radix_word_t<K> ordered_word(const K& key, unsigned /*word*/) {
  using U = radix_word_t<K>;
  const U u = KeyTraits<K>::ordered(key);
  if constexpr (KeyTraits<K>::is_float) {
    constexpr U kMinusZero = ~(U{1} << (8 * sizeof(U) - 1));  // ordered(-0.0)
    return u == kMinusZero ? U(kMinusZero + 1) : u;           // ordered(+0.0)
  } else {
    return u;
  }
}
// A select chain rather than key.w[word]: a dynamic index would push a row held in
// registers out to local memory.
SB_HD_INLINE std::uint32_t ordered_word(const Row4& key, unsigned word) {
  return word == 0 ? key.w[0] : word == 1 ? key.w[1] : word == 2 ? key.w[2] : key.w[3];
}

// Bits [shift, shift + bits) of a 32- or 64-bit word (shift < the word's width).
template <typename U>
SB_HD_INLINE unsigned digit_of(U word_value, unsigned shift, unsigned bits) {
  return static_cast<unsigned>(word_value >> shift) & (radix_bins(bits) - 1u);
}

// ---- Passes --------------------------------------------------------------------------

// The LSD pass sequence: the least significant word first (a row's word 3, the seed's
// order), inside a word the digits from bit 0 up. Only the low `key_bits` bits of each
// word are sorted: every key's word lies between the input's minimum and maximum ordered
// word (realized by the generator; rows: over all words), so above the highest bit where
// those two differ all keys agree and a pass there would move nothing. A u64 key over the
// full domain needs all 64 bits; u64 keys below 2^26 need 26, like u32.
struct PassPlan {
  unsigned bits = kDefaultRadixBits;  // digit width
  unsigned words = 1;                 // 4 for rows
  unsigned word_bits = 32;            // width of a word: 32, or 64 for u64/i64/f64
  unsigned key_bits = 32;             // bits sorted per word (<= word_bits)
  unsigned passes_per_word = 0;

  SB_HD unsigned passes() const { return words * passes_per_word; }
  SB_HD unsigned bins() const { return radix_bins(bits); }
};

// ordered_min and ordered_max: the least and greatest word value of the input (a word of
// word_bits bits; the bits above key_bits, where they agree, are not sorted).
SB_HD_INLINE PassPlan make_pass_plan(unsigned bits, unsigned words, std::uint64_t ordered_min,
                                     std::uint64_t ordered_max, unsigned word_bits = 32) {
  PassPlan p;
  p.bits = bits;
  p.words = words;
  p.word_bits = word_bits;
  p.key_bits = bit_width64(ordered_min ^ ordered_max);
  if (p.key_bits > word_bits) p.key_bits = word_bits;
  p.passes_per_word = (p.key_bits + bits - 1) / bits;
  return p;
}

// The plan for key type K: words and word width from K (RadixWord), min and max as the
// generator reports them (KeyFacts::min_ordered / max_ordered).
template <typename K>
SB_HD_INLINE PassPlan make_pass_plan_for(unsigned bits, std::uint64_t ordered_min, std::uint64_t ordered_max) {
  // A float zero at either end is reported as -0.0 (lowest) or +0.0 (highest); the folded
  // word of a zero (+0.0) lies between them, so the bounds still hold every word.
  return make_pass_plan(bits, words_of<K>(), static_cast<radix_word_t<K>>(ordered_min),
                        static_cast<radix_word_t<K>>(ordered_max), word_bits_of<K>());
}

SB_HD_INLINE unsigned pass_word(const PassPlan& p, unsigned pass) {
  return p.words - 1 - pass / p.passes_per_word;
}
SB_HD_INLINE unsigned pass_shift(const PassPlan& p, unsigned pass) {
  return (pass % p.passes_per_word) * p.bits;
}

// What one pass sorts by, resolved on the host (no division per key).
struct DigitSelect {
  unsigned word = 0;
  unsigned shift = 0;
  unsigned bits = kDefaultRadixBits;
};
SB_HD_INLINE DigitSelect pass_select(const PassPlan& p, unsigned pass) {
  return {pass_word(p, pass), pass_shift(p, pass), p.bits};
}
template <typename K>
SB_HD_INLINE unsigned key_digit(const K& key, const DigitSelect& s) {
  return digit_of(ordered_word(key, s.word), s.shift, s.bits);
}

// ---- Blelloch scan (seed 001's up_sweep / down_sweep) --------------------------------

// Stage s combines pairs 2^(s+1) apart: work item gid owns the segment starting at
// gid * 2^(s+1); its left child ends at offset + 2^s - 1, its right child (the segment's
// last element) at offset + 2^(s+1) - 1. These are the seed's `offset`, `left_stride`,
// `right_stride` expressions (2 << stage).
SB_HD_INLINE std::uint32_t blelloch_left(std::uint32_t gid, unsigned stage) {
  return gid * (2u << stage) + (1u << stage) - 1u;
}
SB_HD_INLINE std::uint32_t blelloch_right(std::uint32_t gid, unsigned stage) {
  return gid * (2u << stage) + (2u << stage) - 1u;
}
// Work items of a stage over `bins` elements (a power of two): the seed's BIN_SIZE / (2 << stage).
SB_HD_INLINE std::uint32_t blelloch_work_items(std::uint32_t bins, unsigned stage) { return bins / (2u << stage); }
// Stages of the up-sweep (and of the down-sweep): log2(bins).
SB_HD_INLINE unsigned blelloch_stages(std::uint32_t bins) { return bit_width32(bins) - 1u; }

// One work item of each sweep, on any indexable array (the kernels and the CPU test).
template <typename Array>
SB_HD_INLINE void blelloch_up_step(Array& count, std::uint32_t gid, unsigned stage) {
  count[blelloch_right(gid, stage)] += count[blelloch_left(gid, stage)];
}
template <typename Array>
SB_HD_INLINE void blelloch_down_step(Array& count, std::uint32_t gid, unsigned stage) {
  // The seed holds `tmp` in a uchar, truncating counts above 255; a 32-bit word here.
  const std::uint32_t left = count[blelloch_left(gid, stage)];
  count[blelloch_left(gid, stage)] = count[blelloch_right(gid, stage)];
  count[blelloch_right(gid, stage)] += left;
}

// ---- Tiles and blocks (radix-lsd) -----------------------------------------------------

// The input is cut into tiles of `tile` keys; each block takes a contiguous run of tiles,
// so the blocks' digit counts, laid out digit-major, scan into global output offsets in
// the input's order (which is what keeps the sort stable).
struct TileSplit {
  std::uint64_t tile = 0;
  std::uint64_t tiles = 0;            // ceil(n / tile)
  std::uint64_t tiles_per_block = 0;
  std::uint32_t blocks = 0;           // ceil(tiles / tiles_per_block), no empty block
};

SB_HD_INLINE TileSplit make_tile_split(std::uint64_t n, std::uint64_t tile, std::uint32_t max_blocks) {
  TileSplit s;
  s.tile = tile;
  s.tiles = (n + tile - 1) / tile;
  if (s.tiles == 0) return s;
  s.tiles_per_block = (s.tiles + max_blocks - 1) / max_blocks;
  s.blocks = static_cast<std::uint32_t>((s.tiles + s.tiles_per_block - 1) / s.tiles_per_block);
  return s;
}
// Keys [block_begin, block_end) belong to block b.
SB_HD_INLINE std::uint64_t block_begin(const TileSplit& s, std::uint32_t b, std::uint64_t n) {
  const std::uint64_t i = b * s.tiles_per_block * s.tile;
  return i < n ? i : n;
}
SB_HD_INLINE std::uint64_t block_end(const TileSplit& s, std::uint32_t b, std::uint64_t n) {
  return block_begin(s, b + 1, n);
}

// counts[count_index(d, b)] is block b's number of keys with digit d; an exclusive scan of
// the whole array in this order gives each (digit, block) its first output position.
SB_HD_INLINE std::uint64_t count_index(unsigned digit, std::uint32_t block, std::uint32_t blocks) {
  return std::uint64_t{digit} * blocks + block;
}

// Inside a tile, warp w loads the contiguous segment [w * rounds * 32, (w + 1) * rounds * 32)
// one 32-key round at a time (coalesced), so (warp, round, lane) runs in input order and a
// per-warp running count per digit ranks equal digits stably.
SB_HD_INLINE std::uint32_t tile_offset(unsigned warp, unsigned round, unsigned lane, unsigned rounds) {
  return (warp * rounds + round) * kWarp + lane;
}

}  // namespace sb::radix
