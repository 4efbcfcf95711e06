// Input parameters (seed 004, sections 1.3 and 6.2; docs/inputs.md).
// n keys in [minVal, maxVal); range = maxVal - minVal; len = distinct values that occur;
// delta = n / range; sigma = range / len. A request names any consistent subset; the rest follows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sortbench/core/types.hpp"

namespace sb {

inline constexpr std::uint64_t kDefaultN = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kMaxN = std::uint64_t{1} << 36;

// What the user asked for; unset fields are derived.
struct InputRequest {
  std::optional<std::uint64_t> n;
  std::optional<double> delta;
  std::optional<double> sigma;
  std::optional<std::uint64_t> len;
  std::optional<wide_t> min_val;
  std::optional<wide_t> max_val;
  std::optional<double> entropy;  // with --dist entropy
  Distribution dist = Distribution::uniform;
  KeyType key = KeyType::u32;
  Payload payload = Payload::none;
  std::uint64_t seed = 1;
};

// A complete, consistent input description. Keys lie in [min_val, max_val). The bounds are
// wide so that the whole u64 domain [0, 2^64) and the i64 one [-2^63, 2^63) are expressible:
// range = 2^64 fits a wide_t, and so does every value of every key type.
struct InputSpec {
  std::uint64_t n = 0;
  wide_t min_val = 0;
  wide_t max_val = 1;
  wide_t range = 1;
  std::uint64_t len = 0;
  double entropy = 1.0;  // --dist entropy: bits of entropy per key bit (CUB's levels)
  unsigned entropy_words = 1;  // uniform words ANDed per key; 0: every key is zero
  Distribution dist = Distribution::uniform;
  KeyType key = KeyType::u32;
  Payload payload = Payload::none;
  std::uint64_t seed = 1;

  double delta() const { return static_cast<double>(n) / static_cast<double>(range); }
  double sigma() const { return len ? static_cast<double>(range) / static_cast<double>(len) : 0.0; }
  std::size_t element_bytes() const { return key_bytes(key) + payload_bytes(payload); }
  InputShape shape() const { return {n, key, payload}; }
};

// Throws UsageError naming the conflicting or impossible values and how to fix them.
InputSpec derive_input_spec(const InputRequest& request);

// Parses an element count: "16777216", "16M" (K, M, G are powers of 2^10), "2^24", "1e6".
// Throws UsageError for negative, non-numeric or overflowing text.
std::uint64_t parse_count(std::string_view text, std::string_view option = "-n");
// Parses a key value for --min-val / --max-val: an optional '-', then a count as above, of
// magnitude up to 2^64 (the exclusive bound of the u64 domain).
wide_t parse_value(std::string_view text, std::string_view option);

// [lo, hi]: the values a key type holds exactly (floats: the integers they hold exactly).
std::pair<wide_t, wide_t> value_bounds(KeyType k);

// CUB's bit-entropy levels: 1 (uniform), 0.811, 0.544, 0.337, 0.201 (the AND of 2..5 uniform
// words) and 0 (all keys equal); the number of words, or nullopt for another value.
std::optional<unsigned> entropy_words(double entropy);

}  // namespace sb
