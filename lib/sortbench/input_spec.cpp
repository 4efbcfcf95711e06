// Parameter derivation for seed 004's (n, delta, sigma, len, minVal, maxVal).
#include "sortbench/input_spec.hpp"

#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sortbench/errors.hpp"

namespace sb {
namespace {

constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;
constexpr std::int64_t kTwo32 = std::int64_t{1} << 32;
constexpr std::int64_t kTwo24 = std::int64_t{1} << 24;

std::uint64_t round_positive(double x) { return static_cast<std::uint64_t>(std::llround(x)); }

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::fmax(std::fabs(a), std::fabs(b)); }

// [lo, hi] inclusive bounds of the values a key type holds exactly.
std::pair<std::int64_t, std::int64_t> value_bounds(KeyType k) {
  switch (k) {
    case KeyType::i32: return {-kTwo31, kTwo31 - 1};
    case KeyType::f32: return {-kTwo24, kTwo24};
    case KeyType::u32:
    case KeyType::u32x4: return {0, kTwo32 - 1};
  }
  return {0, 0};
}

}  // namespace

std::uint64_t parse_count(std::string_view text, std::string_view option) {
  const std::string s(text);
  auto fail = [&](const char* why) -> UsageError {
    return UsageError(fmt::format("{} '{}' is {}; give a count such as 16777216, 16M or 2^24", option, s, why));
  };
  if (s.empty()) throw fail("empty");
  if (s[0] == '-') throw fail("negative");
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  auto digits = [&](const std::string& d) -> std::uint64_t {
    if (d.empty()) throw fail("not a number");
    std::uint64_t v = 0;
    for (char c : d) {
      if (!std::isdigit(static_cast<unsigned char>(c))) throw fail("not a number");
      const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
      if (v > (limit - digit) / 10) throw fail("too large");
      v = v * 10 + digit;
    }
    return v;
  };
  std::uint64_t value = 0;
  if (auto caret = s.find('^'); caret != std::string::npos) {
    const std::uint64_t base = digits(s.substr(0, caret));
    const std::uint64_t exp = digits(s.substr(caret + 1));
    value = 1;
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (base != 0 && value > limit / base) throw fail("too large");
      value *= base;
    }
  } else if (auto e = s.find_first_of("eE"); e != std::string::npos) {
    const std::uint64_t mant = digits(s.substr(0, e));
    const std::uint64_t exp = digits(s.substr(e + 1));
    value = mant;
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (value > limit / 10) throw fail("too large");
      value *= 10;
    }
  } else {
    std::uint64_t scale = 1;
    std::string d = s;
    switch (std::toupper(static_cast<unsigned char>(s.back()))) {
      case 'K': scale = std::uint64_t{1} << 10; d.pop_back(); break;
      case 'M': scale = std::uint64_t{1} << 20; d.pop_back(); break;
      case 'G': scale = std::uint64_t{1} << 30; d.pop_back(); break;
      default: break;
    }
    value = digits(d);
    if (value > limit / scale) throw fail("too large");
    value *= scale;
  }
  return value;
}

std::int64_t parse_value(std::string_view text, std::string_view option) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::uint64_t magnitude = parse_count(negative ? text.substr(1) : text, option);
  if (magnitude > (std::uint64_t{1} << 40))
    throw UsageError(fmt::format("{} {} is outside 32 bits; keys lie within [-2^31, 2^32)", option, text));
  const auto v = static_cast<std::int64_t>(magnitude);
  return negative ? -v : v;
}

InputSpec derive_input_spec(const InputRequest& r) {
  InputSpec spec;
  spec.dist = r.dist;
  spec.key = r.key;
  spec.payload = r.payload;
  spec.seed = r.seed;

  if (r.delta && !(*r.delta > 0))
    throw UsageError(fmt::format("--delta {} must be > 0 (delta = n / range); give e.g. --delta 1", *r.delta));
  if (r.sigma && !(*r.sigma >= 1))
    throw UsageError(fmt::format("--sigma {} must be >= 1 (sigma = range / len); give e.g. --sigma 1", *r.sigma));
  if (r.len && *r.len == 0 && !(r.n && *r.n == 0))
    throw UsageError("--len 0 leaves no values to draw from; give --len >= 1");

  spec.min_val = r.min_val.value_or(0);
  if (r.max_val && *r.max_val <= spec.min_val)
    throw UsageError(fmt::format("--min-val {} must be below --max-val {} (keys lie in [minVal, maxVal))",
                                 spec.min_val, *r.max_val));
  if (spec.min_val < -kTwo31 || (r.max_val && *r.max_val > kTwo32))
    throw UsageError(fmt::format("values outside 32 bits: keys must lie within [-2^31, 2^32); got [{}, {})",
                                 spec.min_val, r.max_val ? fmt::format("{}", *r.max_val) : std::string("?")));

  // The range follows from maxVal, or from n and delta, or from len and sigma.
  std::optional<std::uint64_t> range;
  if (r.max_val) range = static_cast<std::uint64_t>(*r.max_val - spec.min_val);
  if (!range && r.len && r.sigma && !r.delta) range = std::max<std::uint64_t>(1, round_positive(*r.len * *r.sigma));

  if (r.n) {
    spec.n = *r.n;
  } else if (r.delta && range) {
    spec.n = round_positive(*r.delta * static_cast<double>(*range));
  } else {
    spec.n = kDefaultN;
  }
  if (spec.n > kMaxN)
    throw UsageError(fmt::format("-n {} is above the supported maximum 2^36; give a smaller -n", spec.n));

  if (range && r.delta && spec.n > 0) {
    const double realized = static_cast<double>(spec.n) / static_cast<double>(*range);
    if (!close(realized, *r.delta) && round_positive(spec.n / *r.delta) != *range)
      throw UsageError(fmt::format(
          "-n {} and --delta {} give range {}, but the other values give range {}; "
          "give at most two of -n, --delta, --max-val",
          spec.n, *r.delta, round_positive(spec.n / *r.delta), *range));
  }
  if (!range) {
    if (r.delta)
      range = std::max<std::uint64_t>(1, round_positive(static_cast<double>(spec.n) / *r.delta));
    else
      range = std::max<std::uint64_t>(1, spec.n);  // delta = 1
  }
  spec.range = *range;
  if (spec.range > static_cast<std::uint64_t>(kTwo32) ||
      spec.min_val + static_cast<std::int64_t>(spec.range) > kTwo32)
    throw UsageError(fmt::format(
        "values outside 32 bits: minVal {} + range {} passes 2^32; lower -n, raise --delta or lower --min-val",
        spec.min_val, spec.range));
  spec.max_val = spec.min_val + static_cast<std::int64_t>(spec.range);

  const auto [lo, hi] = value_bounds(spec.key);
  if (spec.min_val < lo || spec.max_val - 1 > hi)
    throw UsageError(fmt::format(
        "--key {} holds values in [{}, {}] exactly, but the input spans [{}, {}]; "
        "change --min-val/--max-val (or -n/--delta) or the key type",
        to_string(spec.key), lo, hi, spec.min_val, spec.max_val - 1));

  // len, from sigma or the distribution's default.
  if (spec.n == 0) {
    if (r.len && *r.len > 0)
      throw UsageError(fmt::format("--len {} exceeds -n 0; give -n >= --len", *r.len));
    spec.len = 0;
  } else if (r.len) {
    spec.len = *r.len;
    if (r.sigma) {
      const std::uint64_t from_sigma = std::max<std::uint64_t>(1, round_positive(spec.range / *r.sigma));
      if (from_sigma != spec.len)
        throw UsageError(fmt::format(
            "--len {} and --sigma {} conflict: range {} / sigma {} gives len {}; give only one of --len, --sigma",
            spec.len, *r.sigma, spec.range, *r.sigma, from_sigma));
    }
  } else if (r.sigma) {
    spec.len = std::max<std::uint64_t>(1, round_positive(spec.range / *r.sigma));
  } else if (spec.dist == Distribution::distinct) {
    spec.len = spec.n;
  } else if (spec.dist == Distribution::equal) {
    spec.len = 1;
  } else {
    spec.len = std::min(spec.n, spec.range);
  }

  if (spec.len > spec.range)
    throw UsageError(fmt::format(
        "--len {} exceeds range {} (maxVal - minVal): only {} distinct values fit; raise --max-val or lower --len",
        spec.len, spec.range, spec.range));
  if (spec.dist == Distribution::distinct && spec.len != spec.n)
    throw UsageError(fmt::format(
        "--dist distinct needs len = n = {}, but len is {}{}; drop --len/--sigma or raise --max-val",
        spec.n, spec.len, spec.range < spec.n ? fmt::format(" (range {} < n)", spec.range) : std::string()));
  if (spec.len > spec.n)
    throw UsageError(fmt::format(
        "--len {} exceeds -n {}: {} keys cannot hold {} distinct values; lower --len or use --dist distinct",
        spec.len, spec.n, spec.n, spec.len));
  if (spec.dist == Distribution::equal && spec.n > 0 && spec.len != 1)
    throw UsageError(fmt::format("--dist equal has len 1, but len is {}; drop --len/--sigma", spec.len));
  if (spec.payload == Payload::index && spec.n > (std::uint64_t{1} << 32))
    throw UsageError(fmt::format("--payload index holds 32-bit positions, so -n must be <= 2^32; got {}", spec.n));
  return spec;
}

}  // namespace sb
