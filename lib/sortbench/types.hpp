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
enum class KeyType { u32, i32, f32, u32x4 };
enum class Payload { none, index };
enum class Distribution { uniform, distinct, sorted, reverse, nearly_sorted, equal, zipf };
enum class Backend { gpu, cpu };

// The payload of an element is its position in the generated input.
using index_t = std::uint32_t;

struct Row4 {
  std::uint32_t w[4];
};

std::size_t key_bytes(KeyType k);
std::size_t payload_bytes(Payload p);

std::string_view to_string(KeyType k);
std::string_view to_string(Payload p);
std::string_view to_string(Distribution d);
std::string_view to_string(Backend b);

std::optional<KeyType> parse_key_type(std::string_view s);
std::optional<Payload> parse_payload(std::string_view s);
std::optional<Distribution> parse_distribution(std::string_view s);
std::optional<Backend> parse_backend(std::string_view s);

const std::vector<KeyType>& all_key_types();
const std::vector<Distribution>& all_distributions();

}  // namespace sb
