// Input generator. Definitions of the parameters: seed 004 sections 1.3 and 6.2.
// Element i of the shuffled base sequence is
//     value(i) = minVal + Q(J(P(i)))
// P: keyed permutation of the n positions (the shuffle); J: the rank drawn at a position
// (positions p < len take rank p, so each of the len ranks occurs; the rest draw a rank
// uniformly, or log-uniformly for zipf); Q: keyed permutation of [0, range), so the len
// values are a random subset of the range, not evenly spaced. sorted/reverse/nearly-sorted
// sort the uniform sequence and then rearrange it. Each u32x4 word has its own P and J.
// Values are computed as 64-bit two's-complement bits (u64 keys past 2^63 included) and each
// key type takes the part it holds (KeyTraits::from_value).
// real (float keys): value(i) + 1/2 or 3/4, so no value is an integer and distinct ranks
// stay distinct; with len >= 3 the ranks 0, 1, 2 are -inf, +inf and zero, the zero drawn as
// -0.0 or +0.0 by position: the radix-ordering edge cases. entropy: the bitwise AND of k
// uniform 64-bit words per key (CUB's bit-entropy axis), ignoring Q and J.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/key_facts.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/random.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

// Plain data: passed by value to the generation kernel.
struct GeneratorPlan {
  std::uint64_t n = 0;
  std::uint64_t len = 1;
  std::uint64_t min_bits = 0;  // minVal as 64-bit two's complement
  Distribution dist = Distribution::uniform;
  std::uint64_t seed = 1;
  unsigned entropy_words = 1;
  Bijection values;  // Q
};

GeneratorPlan make_generator_plan(const InputSpec& spec);

// Streams of random64: each purpose draws from its own key.
enum GeneratorStream : std::uint64_t {
  kStreamValues = 1,
  kStreamShuffle = 16,  // + word
  kStreamRank = 32,     // + word
  kStreamOctave = 48,   // + word
  kStreamNearly = 64,
  kStreamFraction = 80,
  kStreamZeroSign = 81,
  kStreamEntropy = 96,  // + 8 * word + k
};

SB_HD_INLINE std::uint64_t draw_rank(const GeneratorPlan& g, std::uint64_t p, unsigned word) {
  if (p < g.len) return p;
  const std::uint64_t r = random64(stream_key(g.seed, kStreamRank + word), p);
  if (g.dist != Distribution::zipf) return below(r, g.len);
  // Zipf(s = 1), piecewise: pick an octave [2^k - 1, 2^(k+1) - 1) uniformly, then a rank
  // uniformly inside it, so P(rank r) falls as about 1 / r. Integer-only, so CPU == GPU.
  const unsigned octaves = bit_width64(g.len);
  const unsigned k = static_cast<unsigned>(below(random64(stream_key(g.seed, kStreamOctave + word), p), octaves));
  const std::uint64_t lo = (std::uint64_t{1} << k) - 1;
  std::uint64_t hi = (std::uint64_t{1} << (k + 1)) - 1;
  if (hi > g.len) hi = g.len;
  return lo + below(r, hi - lo);
}

SB_HD_INLINE std::uint64_t rank_at(const GeneratorPlan& g, std::uint64_t i, unsigned word) {
  const Bijection shuffle = make_bijection(g.n, stream_key(g.seed, kStreamShuffle + word));
  return draw_rank(g, permute(shuffle, i), word);
}

// The value at position i of the shuffled base sequence (before any sorting).
SB_HD_INLINE std::int64_t base_value(const GeneratorPlan& g, std::uint64_t i, unsigned word = 0) {
  return static_cast<std::int64_t>(g.min_bits + permute(g.values, rank_at(g, i, word)));
}

SB_HD_INLINE double real_value(const GeneratorPlan& g, std::uint64_t i) {
  const std::uint64_t rank = rank_at(g, i, 0);
  if (g.len >= 3 && rank < 3) {
    const double inf = bit_cast_hd<double>(std::uint64_t{0x7ff0000000000000ULL});
    if (rank == 0) return -inf;
    if (rank == 1) return inf;
    return (random64(stream_key(g.seed, kStreamZeroSign), i) & 1) ? -0.0 : 0.0;
  }
  const auto v = static_cast<std::int64_t>(g.min_bits + permute(g.values, rank));
  const double fraction = (random64(stream_key(g.seed, kStreamFraction), rank) & 1) ? 0.75 : 0.5;
  return static_cast<double>(v) + fraction;
}

SB_HD_INLINE std::uint64_t entropy_bits(const GeneratorPlan& g, std::uint64_t i, unsigned word = 0) {
  if (g.entropy_words == 0) return 0;
  std::uint64_t bits = ~std::uint64_t{0};
  for (unsigned k = 0; k < g.entropy_words; ++k) bits &= random64(stream_key(g.seed, kStreamEntropy + 8 * word + k), i);
  return bits;
}

// Key i of the shuffled base sequence, for every key type and distribution.
template <typename K>
SB_HD_INLINE K base_key(const GeneratorPlan& g, std::uint64_t i) {
  if constexpr (std::is_same_v<K, Row4>) {
    Row4 r;
    for (unsigned w = 0; w < 4; ++w)
      r.w[w] = static_cast<std::uint32_t>(g.dist == Distribution::entropy ? entropy_bits(g, i, w)
                                                                           : base_value(g, i, w));
    return r;
  } else {
    if (g.dist == Distribution::entropy) return KeyTraits<K>::from_value(static_cast<std::int64_t>(entropy_bits(g, i)));
    if constexpr (KeyTraits<K>::is_float)
      if (g.dist == Distribution::real) return static_cast<K>(real_value(g, i));
    return KeyTraits<K>::from_value(base_value(g, i));
  }
}

// nearly-sorted: in one aligned 64-element block of 16, elements swap by an XOR of their
// offset; an involution, so every position is filled exactly once.
inline constexpr std::uint64_t kNearlyBlock = 64;
SB_HD_INLINE std::uint64_t nearly_sorted_source(std::uint64_t seed, std::uint64_t n, std::uint64_t i) {
  const std::uint64_t block = i / kNearlyBlock;
  const std::uint64_t r = random64(stream_key(seed, kStreamNearly), block);
  if ((r & 15) != 0) return i;
  const std::uint64_t partner = i ^ ((r >> 4) % (kNearlyBlock - 1) + 1);
  return partner < n ? partner : i;
}

// Where element i of the final input comes from in the sorted base sequence.
SB_HD_INLINE std::uint64_t arranged_source(const GeneratorPlan& g, std::uint64_t i) {
  switch (g.dist) {
    case Distribution::reverse: return g.n - 1 - i;
    case Distribution::nearly_sorted: return nearly_sorted_source(g.seed, g.n, i);
    default: return i;
  }
}

inline bool needs_sorting(Distribution d) {
  return d == Distribution::sorted || d == Distribution::reverse || d == Distribution::nearly_sorted;
}

// Fills keys (n * key_bytes) and, with a payload, vals (n * payload_bytes) per values.hpp.
void generate_host(const InputSpec& spec, void* keys, void* vals);
// Elements [begin, begin + count) of the same input, on the host: generate_device_slice's twin (a
// shard or one streamed piece of a generated input). Only for distributions that need no global
// sort (std::logic_error otherwise, and for a range past n).
void generate_host_slice(const InputSpec& spec, std::uint64_t begin, std::uint64_t count, void* keys, void* vals);
// The slice functions' precondition: a distribution without a global sort and a range inside n
// (std::logic_error naming `who` otherwise).
void require_generated_slice(const char* who, const InputSpec& spec, std::uint64_t begin, std::uint64_t count);
KeyFacts input_stats_host(const InputSpec& spec, const void* keys);

// Device versions; temporary buffers are allocated and freed inside (generation is untimed).
void generate_device(const InputSpec& spec, void* d_keys, void* d_vals, cudaStream_t stream);
// The payload column alone (encode_value of each position), queued on the stream.
void generate_values_device(Payload payload, std::uint64_t n, void* d_vals, cudaStream_t stream);
// scratch0, scratch1: two device buffers of the key column's size that the count may
// overwrite (a run's work buffers before its first sample), so that it allocates no copy.
KeyFacts input_stats_device(const InputSpec& spec, const void* d_keys, cudaStream_t stream, void* scratch0 = nullptr,
                            void* scratch1 = nullptr);
// Elements [begin, begin + count) of the same input (keys and, with a payload, the values of
// those global positions), generated where they are needed: a rank of a distributed sort
// makes its own slice. Only for distributions that need no global sort, inside n (require_generated_slice).
void generate_device_slice(const InputSpec& spec, std::uint64_t begin, std::uint64_t count, void* d_keys,
                           void* d_vals, cudaStream_t stream);

}  // namespace sb
