// Input generator. Definitions of the parameters: seed 004 sections 1.3 and 6.2.
// Element i of the shuffled base sequence is
//     value(i) = minVal + Q(J(P(i)))
// P: keyed permutation of the n positions (the shuffle); J: the rank drawn at a position
// (positions p < len take rank p, so each of the len ranks occurs; the rest draw a rank
// uniformly, or log-uniformly for zipf); Q: keyed permutation of [0, range), so the len
// values are a random subset of the range, not evenly spaced. sorted/reverse/nearly-sorted
// sort the uniform sequence and then rearrange it. Each u32x4 word has its own P and J.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "sortbench/hd.hpp"
#include "sortbench/input_spec.hpp"
#include "sortbench/random.hpp"
#include "sortbench/types.hpp"

namespace sb {

// Plain data: passed by value to the generation kernel.
struct GeneratorPlan {
  std::uint64_t n = 0;
  std::uint64_t len = 1;
  std::int64_t min_val = 0;
  Distribution dist = Distribution::uniform;
  std::uint64_t seed = 1;
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

// The value at position i of the shuffled base sequence (before any sorting).
SB_HD_INLINE std::int64_t base_value(const GeneratorPlan& g, std::uint64_t i, unsigned word = 0) {
  const Bijection shuffle = make_bijection(g.n, stream_key(g.seed, kStreamShuffle + word));
  const std::uint64_t p = permute(shuffle, i);
  const std::uint64_t rank = draw_rank(g, p, word);
  return g.min_val + static_cast<std::int64_t>(permute(g.values, rank));
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

// Realized statistics of a generated input (u32x4: over all words).
struct InputStats {
  std::uint64_t n = 0;
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::uint64_t len = 0;  // distinct values
};

// Fills keys (n * key_bytes) and, with an index payload, vals[i] = i.
void generate_host(const InputSpec& spec, void* keys, index_t* vals);
InputStats input_stats_host(const InputSpec& spec, const void* keys);

// Device versions; temporary buffers are allocated and freed inside (generation is untimed).
void generate_device(const InputSpec& spec, void* d_keys, index_t* d_vals, cudaStream_t stream);
InputStats input_stats_device(const InputSpec& spec, const void* d_keys, cudaStream_t stream);

}  // namespace sb
