#include "sortbench/core/types.hpp"

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

constexpr std::array<std::pair<KeyType, std::string_view>, 7> kKeyNames{{{KeyType::u32, "u32"},
                                                                       {KeyType::i32, "i32"},
                                                                       {KeyType::f32, "f32"},
                                                                       {KeyType::u64, "u64"},
                                                                       {KeyType::i64, "i64"},
                                                                       {KeyType::f64, "f64"},
                                                                       {KeyType::u32x4, "u32x4"}}};
constexpr std::array<std::pair<Payload, std::string_view>, 4> kPayloadNames{
    {{Payload::none, "none"}, {Payload::index, "index"}, {Payload::u32, "u32"}, {Payload::u64, "u64"}}};
constexpr std::array<std::pair<Distribution, std::string_view>, 9> kDistNames{{
    {Distribution::uniform, "uniform"},
    {Distribution::distinct, "distinct"},
    {Distribution::sorted, "sorted"},
    {Distribution::reverse, "reverse"},
    {Distribution::nearly_sorted, "nearly-sorted"},
    {Distribution::equal, "equal"},
    {Distribution::zipf, "zipf"},
    {Distribution::real, "real"},
    {Distribution::entropy, "entropy"},
}};
constexpr std::array<std::pair<Backend, std::string_view>, 2> kBackendNames{
    {{Backend::gpu, "gpu"}, {Backend::cpu, "cpu"}}};

template <typename E, std::size_t N>
std::string choices(const std::array<std::pair<E, std::string_view>, N>& table) {
  std::string out;
  for (const auto& [value, name] : table) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

}  // namespace

std::string key_type_choices() { return choices(kKeyNames); }
std::string payload_choices() { return choices(kPayloadNames); }
std::string distribution_choices() { return choices(kDistNames); }

std::size_t key_bytes(KeyType k) {
  switch (k) {
    case KeyType::u32x4: return sizeof(Row4);
    case KeyType::u64:
    case KeyType::i64:
    case KeyType::f64: return 8;
    default: return 4;
  }
}
std::size_t payload_bytes(Payload p) {
  switch (p) {
    case Payload::none: return 0;
    case Payload::u64: return 8;
    default: return 4;
  }
}
bool is_float_key(KeyType k) { return k == KeyType::f32 || k == KeyType::f64; }
bool is_64bit_key(KeyType k) { return k == KeyType::u64 || k == KeyType::i64 || k == KeyType::f64; }

std::string wide_text(wide_t v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 m = negative ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string digits;
  while (m) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return negative ? "-" + digits : digits;
}

std::string_view to_string(KeyType k) { return name_of(kKeyNames, k); }
std::string_view to_string(Payload p) { return name_of(kPayloadNames, p); }
std::string_view to_string(Distribution d) { return name_of(kDistNames, d); }
std::string_view to_string(Backend b) { return name_of(kBackendNames, b); }

std::optional<KeyType> parse_key_type(std::string_view s) { return lookup(kKeyNames, s); }
std::optional<Payload> parse_payload(std::string_view s) { return lookup(kPayloadNames, s); }
std::optional<Distribution> parse_distribution(std::string_view s) { return lookup(kDistNames, s); }
std::optional<Backend> parse_backend(std::string_view s) { return lookup(kBackendNames, s); }

const std::vector<KeyType>& all_key_types() {
  static const std::vector<KeyType> v{KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64,
                                      KeyType::i64, KeyType::f64, KeyType::u32x4};
  return v;
}
const std::vector<Payload>& all_payloads() {
  static const std::vector<Payload> v{Payload::none, Payload::index, Payload::u32, Payload::u64};
  return v;
}
const std::vector<Distribution>& all_distributions() {
  static const std::vector<Distribution> v{Distribution::uniform,      Distribution::distinct,
                                           Distribution::sorted,       Distribution::reverse,
                                           Distribution::nearly_sorted, Distribution::equal,
                                           Distribution::zipf,          Distribution::real,
                                           Distribution::entropy};
  return v;
}

std::string_view to_string(RangeMode m) { return m == RangeMode::given ? "given" : "measured"; }

std::optional<RangeMode> parse_range_mode(std::string_view s) {
  if (s == "given") return RangeMode::given;
  if (s == "measured") return RangeMode::measured;
  return std::nullopt;
}

}  // namespace sb
