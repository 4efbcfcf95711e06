// Counter-based random numbers and keyed bijections, element-wise so that the GPU and the CPU
// compute bit-identical inputs: value i depends only on (seed, i), never on a sequential state.
#pragma once

#include <cstdint>

#include "sortbench/core/hd.hpp"

namespace sb {

// splitmix64's finalizer: a bijective 64-bit mixer with full avalanche.
SB_HD_INLINE std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Random 64 bits for (key, counter): a different key gives an unrelated stream.
SB_HD_INLINE std::uint64_t random64(std::uint64_t key, std::uint64_t counter) {
  return mix64(mix64(key) ^ (counter * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

SB_HD_INLINE std::uint64_t stream_key(std::uint64_t seed, std::uint64_t stream) {
  return mix64(seed * 0xd1b54a32d192ed03ULL + stream);
}

SB_HD_INLINE std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// A number in [0, m) from 64 random bits (Lemire's multiply; bias below m / 2^64).
SB_HD_INLINE std::uint64_t below(std::uint64_t random, std::uint64_t m) { return mul_hi64(random, m); }

SB_HD_INLINE unsigned bit_width64(std::uint64_t x) {
  unsigned w = 0;
  while (x) {
    ++w;
    x >>= 1;
  }
  return w;
}

// A keyed permutation of [0, last]: a 4-round balanced Feistel network on the smallest even
// number of bits covering it, with cycle walking back into [0, last]. The Feistel domain is
// under 4 (last + 1), so a value walks fewer than 4 times on average. Holding the last
// element rather than the size lets the domain be all 2^64 values.
struct Bijection {
  std::uint64_t last = 0;
  std::uint64_t key = 0;
  unsigned half_bits = 1;
};

SB_HD_INLINE Bijection make_bijection_last(std::uint64_t last, std::uint64_t key) {
  Bijection b;
  b.last = last;
  b.key = key;
  const unsigned bits = last > 0 ? bit_width64(last) : 1;
  b.half_bits = (bits + 1) / 2;
  return b;
}

// A keyed permutation of [0, m), m >= 1.
SB_HD_INLINE Bijection make_bijection(std::uint64_t m, std::uint64_t key) {
  return make_bijection_last(m > 0 ? m - 1 : 0, key);
}

SB_HD_INLINE std::uint64_t feistel(const Bijection& b, std::uint64_t x) {
  const std::uint64_t mask = (std::uint64_t{1} << b.half_bits) - 1;
  std::uint64_t left = x >> b.half_bits;
  std::uint64_t right = x & mask;
  for (std::uint64_t round = 0; round < 4; ++round) {
    const std::uint64_t next = left ^ (random64(b.key + round, right) & mask);
    left = right;
    right = next;
  }
  return (left << b.half_bits) | right;
}

SB_HD_INLINE std::uint64_t permute(const Bijection& b, std::uint64_t x) {
  do {
    x = feistel(b, x);
  } while (x > b.last);
  return x;
}

}  // namespace sb
