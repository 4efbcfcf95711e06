// Vocabulary shared by every part of sortbench: key types, payloads, distributions, backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// u32x4: a row of four 32-bit words ordered lexicographically, word 0 most significant
// (seed 001's 4-word rows).
enum class KeyType { u32, i32, f32, u64, i64, f64, u32x4 };
// The value column an element carries: none; index (its 32-bit input position); u32 or u64
// (value columns of that width whose content still names the element: values.hpp).
enum class Payload { none, index, u32, u64 };
// real: non-integer values with -0.0 and +-inf among them (float keys only); entropy: the
// bitwise AND of k uniform words (CUB's bit-entropy benchmark axis).
enum class Distribution { uniform, distinct, sorted, reverse, nearly_sorted, equal, zipf, real, entropy };
enum class Backend { gpu, cpu };
// Where a range-aware algorithm's key facts (min, max) come from: given (measured outside the
// timed region and handed over, as the papers do) or measured (discovered by the algorithm's
// run inside its timed region, as a user with a file must).
enum class RangeMode { given, measured };

// The input position an index payload holds.
using index_t = std::uint32_t;

// Key values and bounds of every key type in one signed integer: [-2^63, 2^64] fits.
using wide_t = __int128;

struct Row4 {
  std::uint32_t w[4];
};

std::size_t key_bytes(KeyType k);
std::size_t payload_bytes(Payload p);

// The columns a sort works on: n keys of one type, each with a payload element (or none).
struct InputShape {
  std::uint64_t n = 0;
  KeyType key = KeyType::u32;
  Payload payload = Payload::none;

  std::size_t element_bytes() const { return key_bytes(key) + payload_bytes(payload); }
  std::uint64_t key_column_bytes() const { return n * key_bytes(key); }
  std::uint64_t payload_column_bytes() const { return n * payload_bytes(payload); }
};
bool is_float_key(KeyType k);
bool is_64bit_key(KeyType k);
// Decimal text of a wide value (fmt and the standard streams do not print __int128).
std::string wide_text(wide_t v);

std::string_view to_string(KeyType k);
std::string_view to_string(Payload p);
std::string_view to_string(Distribution d);
std::string_view to_string(Backend b);
std::string_view to_string(RangeMode m);

std::optional<KeyType> parse_key_type(std::string_view s);
std::optional<Payload> parse_payload(std::string_view s);
std::optional<Distribution> parse_distribution(std::string_view s);
std::optional<Backend> parse_backend(std::string_view s);
std::optional<RangeMode> parse_range_mode(std::string_view s);

// "u32, i32, ...": the names a parse function accepts, for messages and help texts.
std::string key_type_choices();
std::string payload_choices();
std::string distribution_choices();

const std::vector<KeyType>& all_key_types();
const std::vector<Payload>& all_payloads();
const std::vector<Distribution>& all_distributions();

}  // namespace sb
