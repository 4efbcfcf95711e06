// Input parameters (seed 004, sections 1.3 and 6.2; docs: ../shared/docs/algorithms.md).
// n keys in [minVal, maxVal); range = maxVal - minVal; len = distinct values that occur;
// delta = n / range; sigma = range / len. A request names any consistent subset; the rest follows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sortbench/types.hpp"

namespace sb {

inline constexpr std::uint64_t kDefaultN = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kMaxN = std::uint64_t{1} << 36;

// What the user asked for; unset fields are derived.
struct InputRequest {
  std::optional<std::uint64_t> n;
  std::optional<double> delta;
  std::optional<double> sigma;
  std::optional<std::uint64_t> len;
  std::optional<std::int64_t> min_val;
  std::optional<std::int64_t> max_val;
  Distribution dist = Distribution::uniform;
  KeyType key = KeyType::u32;
  Payload payload = Payload::none;
  std::uint64_t seed = 1;
};

// A complete, consistent input description. Keys lie in [min_val, max_val).
struct InputSpec {
  std::uint64_t n = 0;
  std::int64_t min_val = 0;
  std::int64_t max_val = 1;
  std::uint64_t range = 1;
  std::uint64_t len = 0;
  Distribution dist = Distribution::uniform;
  KeyType key = KeyType::u32;
  Payload payload = Payload::none;
  std::uint64_t seed = 1;

  double delta() const { return static_cast<double>(n) / static_cast<double>(range); }
  double sigma() const { return len ? static_cast<double>(range) / static_cast<double>(len) : 0.0; }
  std::size_t element_bytes() const { return key_bytes(key) + payload_bytes(payload); }
};

// Throws UsageError naming the conflicting or impossible values and how to fix them.
InputSpec derive_input_spec(const InputRequest& request);

// Parses an element count: "16777216", "16M" (K, M, G are powers of 2^10), "2^24", "1e6".
// Throws UsageError for negative, non-numeric or overflowing text.
std::uint64_t parse_count(std::string_view text, std::string_view option = "-n");
// Parses a key value for --min-val / --max-val: an optional '-', then a count as above.
std::int64_t parse_value(std::string_view text, std::string_view option);

}  // namespace sb
