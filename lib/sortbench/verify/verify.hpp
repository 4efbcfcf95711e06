// The one verifier: a result is accepted when its keys are non-decreasing and form the same
// multiset as the input (order-free fingerprint sums), and, with a payload, every output
// value names an input element (values.hpp) with the same key and occurs once; for stable
// algorithms equal keys keep increasing positions. GPU and CPU versions share these checks.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "sortbench/core/element.hpp"
#include "sortbench/core/hd.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

// The payload's input contract is the generator's: input position i holds
// encode_value(payload, i). A value column that was not generated (a user's --values file)
// names no position: give vals_in, and the fingerprint sums run over (key, value) pairs
// instead, so an output is accepted when it is sorted and the same multiset of pairs.
struct VerifyInput {
  KeyType key = KeyType::u32;
  Payload payload = Payload::index;  // what vals_out holds (unused when vals_out is null)
  std::uint64_t n = 0;
  const void* keys_in = nullptr;
  const void* keys_out = nullptr;
  const void* vals_out = nullptr;  // null: no payload to check
  const void* vals_in = nullptr;   // set: values are data, checked as pairs (no stability check)
  bool check_stable = false;
};

// Counts of violations; the first offending output position of each kind (or n).
struct VerifyCounts {
  std::uint64_t unsorted = 0, first_unsorted = 0;
  std::uint64_t fp_in_a = 0, fp_in_b = 0, fp_out_a = 0, fp_out_b = 0;
  std::uint64_t bad_index = 0, first_bad_index = 0;      // names no input position
  std::uint64_t wrong_key = 0, first_wrong_key = 0;      // index names another key
  std::uint64_t repeated_index = 0, first_repeated_index = 0;
  std::uint64_t unstable = 0, first_unstable = 0;
};

struct VerifyReport {
  bool ok = true;
  std::string message;  // "passed" or the first failed check, in one line
};

// pairs: the sums were taken over (key, value) pairs.
VerifyReport summarize(const VerifyCounts& c, std::uint64_t n, bool pairs = false);

VerifyReport verify_host(const VerifyInput& in);

// The same checks over an input and an output that pass through the GPU a chunk at a time
// (issue 37: neither fits there whole): fingerprints add up over chunks, sortedness and
// stability are checked inside each output chunk and across its boundary with the one before.
// With a payload the sums run over (key, value) pairs, which also proves every value was moved
// with its key and none repeats (the random index checks need the whole input); positions are
// still decoded for the stability check and for values that name no input element.
class ChunkVerifier {
 public:
  // positions: the values name input positions (a generated payload), not data.
  ChunkVerifier(KeyType key, Payload payload, std::uint64_t n, bool positions, cudaStream_t stream);
  ~ChunkVerifier();
  ChunkVerifier(const ChunkVerifier&) = delete;
  ChunkVerifier& operator=(const ChunkVerifier&) = delete;
  // Device chunks; vals null without a payload. Input chunks in any order, once each.
  void add_input(const void* keys, const void* vals, std::uint64_t count);
  // Output chunks in order from position 0, once each per run.
  void add_output(const void* keys, const void* vals, std::uint64_t count, bool check_stable);
  // Synchronizes; the verdict on every output chunk added since the last start_output().
  VerifyReport report();
  // Forgets the output (a new run of the same input).
  void start_output();

 private:
  struct State;
  State* state_;
};
// Runs on the stream, synchronizes before returning.
VerifyReport verify_device(const VerifyInput& in, cudaStream_t stream);

// The order-free summand of one (key, value) pair: the value's bits are mixed into the key's
// before the same two hashes as fingerprint_of.
template <typename K, typename V>
SB_HD_INLINE Fingerprint pair_fingerprint(const K& k, const V& v) {
  const std::uint64_t bits = KeyTraits<K>::bits(k) ^ mix64(static_cast<std::uint64_t>(v) + 0x2545f4914f6cdd1dULL);
  return {mix64(bits ^ 0x5851f42d4c957f2dULL), random64(0x14057b7ef767814fULL, bits)};
}

// The summands of input element i and output element j: pairs when the values are data.
template <typename K, typename V>
SB_HD_INLINE void add_fingerprints(const VerifyInput& in, std::uint64_t i, std::uint64_t& in_a, std::uint64_t& in_b,
                                   std::uint64_t& out_a, std::uint64_t& out_b) {
  const K* kin = static_cast<const K*>(in.keys_in);
  const K* kout = static_cast<const K*>(in.keys_out);
  Fingerprint a, b;
  if constexpr (!std::is_same_v<V, NoValue>) {
    if (in.vals_in) {
      a = pair_fingerprint(kin[i], static_cast<const V*>(in.vals_in)[i]);
      b = pair_fingerprint(kout[i], static_cast<const V*>(in.vals_out)[i]);
      in_a += a.a, in_b += a.b, out_a += b.a, out_b += b.b;
      return;
    }
  }
  a = fingerprint_of(kin[i]);
  b = fingerprint_of(kout[i]);
  in_a += a.a, in_b += a.b, out_a += b.a, out_b += b.b;
}

// Per-position predicates shared by both verifiers.
template <typename K>
SB_HD_INLINE bool out_of_order(const K* out, std::uint64_t j) {
  return KeyTraits<K>::less(out[j + 1], out[j]);
}
// Equal keys whose positions (decoded values) decrease.
template <typename K>
SB_HD_INLINE bool breaks_stability(const K* out, std::uint64_t position_j, std::uint64_t position_next,
                                   std::uint64_t j) {
  return bits_equal(out[j], out[j + 1]) && position_j > position_next;
}

}  // namespace sb
