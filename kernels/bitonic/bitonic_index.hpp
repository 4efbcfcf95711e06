// Index arithmetic of the bitonic network, shared by the kernels and their CPU tests.
// Seed 003 (compute-shader article) kernel B2 and its B4/B8/B16/C2/C4 relatives; seed 000
// ("bitonic split"). Notation: the network sorts N = 2^L elements; stage s = 1..L merges
// blocks of width 2^s (the article's `dir`), step j = s-1..0 compares elements 2^j apart
// (the article's `inc`). An element i is in an ascending block of stage s iff bit s of i is 0.
//
// A "group" is what one thread of a k-step kernel holds: 2^k elements spaced 2^(j-k+1)
// apart, so that steps j, j-1, ..., j-k+1 pair elements of the same group only. B2 is the
// k = 1 case: the article's `low = t & (inc-1); i = (t << 1) - low` is group_base(t, j, 1).
#pragma once

#include <cstdint>

#include "sortbench/core/hd.hpp"

namespace sb::bitonic {

// t with k zero bits inserted at bit position pos.
SB_HD_INLINE std::uint64_t insert_zero_bits(std::uint64_t t, unsigned pos, unsigned k) {
  const std::uint64_t low = t & ((std::uint64_t{1} << pos) - 1);
  return ((t - low) << k) | low;
}

// Smallest spacing of a group doing steps j .. j-k+1.
SB_HD_INLINE unsigned group_low_step(unsigned j, unsigned k) { return j + 1 - k; }

// First element of group t (t = 0 .. N/2^k - 1) for steps j .. j-k+1.
SB_HD_INLINE std::uint64_t group_base(std::uint64_t t, unsigned j, unsigned k) {
  return insert_zero_bits(t, group_low_step(j, k), k);
}

// Element m (m = 0 .. 2^k - 1) of the group starting at base.
SB_HD_INLINE std::uint64_t group_element(std::uint64_t base, unsigned j, unsigned k, unsigned m) {
  return base + (std::uint64_t{m} << group_low_step(j, k));
}

// Inside a group, step j - (k-1-b) pairs local elements m and m + 2^b (bit b of m clear);
// the p-th such pair (p = 0 .. 2^(k-1) - 1) starts at:
SB_HD_INLINE unsigned group_pair_first(unsigned p, unsigned b) {
  return static_cast<unsigned>(insert_zero_bits(p, b, 1));
}

// Direction of element i's block in stage s. Every element of a group shares it, since the
// group's spacings are all below 2^s.
SB_HD_INLINE bool ascending(std::uint64_t i, unsigned s) { return ((i >> s) & 1) == 0; }

// Where tile element i lives in shared memory: each 32-word row XORed with its row number, so
// that the groups of a warp, whose elements lie 2^low apart, spread over the banks when
// low < 5 (up to 16-way conflicts without it). Rows stay in place: coalesced copies of a
// row still hit 32 distinct banks. Our addition, not the article's.
SB_HD_INLINE unsigned tile_slot(unsigned i) { return i ^ ((i >> 5) & 31u); }

// The rounds of one shared-memory launch, in order: stage first_stage from step first_step,
// then every stage up to last_stage from step s-1, each down to step 0, at most max_round
// steps per round. Calls round(s, j, k, first, last): steps j .. j-k+1 of stage s; `first`
// (the round reads global memory) and `last` (it writes global memory) mark the ends.
template <typename Round>
SB_HD_INLINE void for_each_tile_round(unsigned first_stage, unsigned first_step, unsigned last_stage,
                                      unsigned max_round, Round&& round) {
  bool first = true;
  for (unsigned s = first_stage; s <= last_stage; ++s) {
    for (int j = static_cast<int>(s == first_stage ? first_step : s - 1); j >= 0;) {
      const unsigned left = static_cast<unsigned>(j) + 1;
      const unsigned k = left < max_round ? left : max_round;
      const bool last = s == last_stage && k == left;
      round(s, static_cast<unsigned>(j), k, first, last);
      first = false;
      j -= static_cast<int>(k);
    }
  }
}

// Seed 000 "bitonic split": work item gid of N acts iff gid % (2 * distance) < distance and
// pairs gid with gid + distance. The block direction comes from the stage width 2^s
// (algorithms.md: the printed kernel's middle = 2 * distance is right only for step s-1):
// gid % (2 * 2^s) >= 2^s means descending.
SB_HD_INLINE bool split_active(std::uint64_t gid, unsigned j) { return ((gid >> j) & 1) == 0; }
SB_HD_INLINE bool split_descending(std::uint64_t gid, unsigned s) {
  return gid % (std::uint64_t{2} << s) >= (std::uint64_t{1} << s);
}

// Exponent of the padded size: smallest L with 2^L >= n.
SB_HD_INLINE unsigned ceil_log2(std::uint64_t n) {
  unsigned l = 0;
  while ((std::uint64_t{1} << l) < n) ++l;
  return l;
}

// Compare-exchange decision shared by every kernel: with ascending order, swap when b < a;
// with descending, when a < b (equal elements may swap either way: the sort is not stable).
template <typename Less, typename T>
SB_HD_INLINE bool must_swap(const T& a, const T& b, bool asc, Less less) {
  return asc ? less(b, a) : less(a, b);
}

// The k steps of one group, in order: calls cx(first, second) for each local pair, where the
// smaller element goes to `first` in ascending blocks. Loops have constant trip counts so
// that kernels holding the group in registers unroll them.
template <unsigned K, typename CompareExchange>
SB_HD_INLINE void group_steps(CompareExchange&& cx) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int b = static_cast<int>(K) - 1; b >= 0; --b) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (unsigned p = 0; p < (1u << (K - 1)); ++p) {
      const unsigned m = group_pair_first(p, static_cast<unsigned>(b));
      cx(m, m + (1u << b));
    }
  }
}

}  // namespace sb::bitonic
