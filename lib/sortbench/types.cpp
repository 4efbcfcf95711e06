#include "sortbench/types.hpp"

#include <array>
#include <utility>

namespace sb {
namespace {

template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view s) {
  for (const auto& [value, name] : table)
    if (name == s) return value;
  return std::nullopt;
}

template <typename E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

constexpr std::array<std::pair<KeyType, std::string_view>, 4> kKeyNames{
    {{KeyType::u32, "u32"}, {KeyType::i32, "i32"}, {KeyType::f32, "f32"}, {KeyType::u32x4, "u32x4"}}};
constexpr std::array<std::pair<Payload, std::string_view>, 2> kPayloadNames{
    {{Payload::none, "none"}, {Payload::index, "index"}}};
constexpr std::array<std::pair<Distribution, std::string_view>, 7> kDistNames{{
    {Distribution::uniform, "uniform"},
    {Distribution::distinct, "distinct"},
    {Distribution::sorted, "sorted"},
    {Distribution::reverse, "reverse"},
    {Distribution::nearly_sorted, "nearly-sorted"},
    {Distribution::equal, "equal"},
    {Distribution::zipf, "zipf"},
}};
constexpr std::array<std::pair<Backend, std::string_view>, 2> kBackendNames{
    {{Backend::gpu, "gpu"}, {Backend::cpu, "cpu"}}};

}  // namespace

std::size_t key_bytes(KeyType k) { return k == KeyType::u32x4 ? sizeof(Row4) : 4; }
std::size_t payload_bytes(Payload p) { return p == Payload::index ? sizeof(index_t) : 0; }

std::string_view to_string(KeyType k) { return name_of(kKeyNames, k); }
std::string_view to_string(Payload p) { return name_of(kPayloadNames, p); }
std::string_view to_string(Distribution d) { return name_of(kDistNames, d); }
std::string_view to_string(Backend b) { return name_of(kBackendNames, b); }

std::optional<KeyType> parse_key_type(std::string_view s) { return lookup(kKeyNames, s); }
std::optional<Payload> parse_payload(std::string_view s) { return lookup(kPayloadNames, s); }
std::optional<Distribution> parse_distribution(std::string_view s) { return lookup(kDistNames, s); }
std::optional<Backend> parse_backend(std::string_view s) { return lookup(kBackendNames, s); }

const std::vector<KeyType>& all_key_types() {
  static const std::vector<KeyType> v{KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4};
  return v;
}
const std::vector<Distribution>& all_distributions() {
  static const std::vector<Distribution> v{Distribution::uniform,      Distribution::distinct,
                                           Distribution::sorted,       Distribution::reverse,
                                           Distribution::nearly_sorted, Distribution::equal,
                                           Distribution::zipf};
  return v;
}

}  // namespace sb
