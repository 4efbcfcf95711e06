// Parameter derivation for seed 004's (n, delta, sigma, len, minVal, maxVal).
#include "sortbench/input/input_params.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {
namespace {

constexpr wide_t pow2(int k) { return wide_t{1} << k; }

std::uint64_t round_positive(double x) { return static_cast<std::uint64_t>(std::llround(x)); }

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::fmax(std::fabs(a), std::fabs(b)); }

using uwide_t = unsigned __int128;

// A count of magnitude up to limit: "16777216", "16M", "2^24", "1e6".
uwide_t parse_magnitude(std::string_view text, std::string_view option, uwide_t limit) {
  const std::string s(text);
  auto fail = [&](const char* why) -> UsageError {
    return UsageError(fmt::format("{} '{}' is {}; give a count such as 16777216, 16M or 2^24", option, s, why));
  };
  if (s.empty()) throw fail("empty");
  if (s[0] == '-') throw fail("negative");
  auto digits = [&](const std::string& d) -> uwide_t {
    if (d.empty()) throw fail("not a number");
    if (d.find('.') != std::string::npos) throw fail("not a whole number");
    uwide_t v = 0;
    for (char c : d) {
      if (!std::isdigit(static_cast<unsigned char>(c))) throw fail("not a number");
      const auto digit = static_cast<uwide_t>(c - '0');
      if (v > (limit - digit) / 10) throw fail("too large");
      v = v * 10 + digit;
    }
    return v;
  };
  uwide_t value = 0;
  if (auto caret = s.find('^'); caret != std::string::npos) {
    const uwide_t base = digits(s.substr(0, caret));
    const uwide_t exp = digits(s.substr(caret + 1));
    value = 1;
    for (uwide_t i = 0; i < exp; ++i) {
      if (base != 0 && value > limit / base) throw fail("too large");
      value *= base;
    }
  } else if (auto e = s.find_first_of("eE"); e != std::string::npos) {
    const uwide_t mant = digits(s.substr(0, e));
    const uwide_t exp = digits(s.substr(e + 1));
    value = mant;
    for (uwide_t i = 0; i < exp; ++i) {
      if (value > limit / 10) throw fail("too large");
      value *= 10;
    }
  } else {
    uwide_t scale = 1;
    std::string d = s;
    switch (std::toupper(static_cast<unsigned char>(s.back()))) {
      case 'K': scale = uwide_t{1} << 10; d.pop_back(); break;
      case 'M': scale = uwide_t{1} << 20; d.pop_back(); break;
      case 'G': scale = uwide_t{1} << 30; d.pop_back(); break;
      default: break;
    }
    value = digits(d);
    if (value > limit / scale) throw fail("too large");
    value *= scale;
  }
  return value;
}

std::string text(wide_t v) { return wide_text(v); }

}  // namespace

std::pair<wide_t, wide_t> value_bounds(KeyType k) {
  switch (k) {
    case KeyType::i32: return {-pow2(31), pow2(31) - 1};
    case KeyType::f32: return {-pow2(24), pow2(24)};
    case KeyType::u64: return {0, pow2(64) - 1};
    case KeyType::i64: return {-pow2(63), pow2(63) - 1};
    case KeyType::f64: return {-pow2(53), pow2(53)};
    case KeyType::u32:
    case KeyType::u32x4: return {0, pow2(32) - 1};
  }
  return {0, 0};
}

std::optional<unsigned> entropy_words(double entropy) {
  // CUB's benchmarks name these levels by their entropy, rounded to three digits.
  constexpr double kLevels[] = {0.0, 1.0, 0.811, 0.544, 0.337, 0.201};
  for (unsigned words = 0; words < 6; ++words)
    if (std::fabs(entropy - kLevels[words]) < 5e-4) return words;
  return std::nullopt;
}

std::uint64_t parse_count(std::string_view text, std::string_view option) {
  return static_cast<std::uint64_t>(parse_magnitude(text, option, std::numeric_limits<std::uint64_t>::max()));
}

wide_t parse_value(std::string_view text, std::string_view option) {
  const bool negative = !text.empty() && text[0] == '-';
  const uwide_t magnitude = parse_magnitude(negative ? text.substr(1) : text, option, uwide_t{1} << 64);
  const auto v = static_cast<wide_t>(magnitude);
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

  wide_t lo = 0, hi = 0;
  std::tie(lo, hi) = value_bounds(spec.key);
  const std::string key_name(to_string(spec.key));
  if (spec.dist == Distribution::real) {
    // Two fraction bits must stay exact above the integer part.
    hi = spec.key == KeyType::f32 ? pow2(22) - 1 : pow2(51) - 1;
    lo = -hi;
  }
  if (spec.dist == Distribution::real && !is_float_key(spec.key))
    throw UsageError(fmt::format("--dist real makes non-integer values, which --key {} cannot hold; use --key f32 "
                                 "or --key f64",
                                 key_name));
  if (r.entropy && spec.dist != Distribution::entropy)
    throw UsageError("--entropy goes with --dist entropy; add --dist entropy or drop --entropy");
  if (spec.dist == Distribution::entropy) {
    if (is_float_key(spec.key))
      throw UsageError(fmt::format("--dist entropy draws random bit patterns, which --key {} would turn into NaNs; "
                                   "use an integer key type",
                                   key_name));
    if (r.delta || r.sigma || r.len || r.min_val || r.max_val)
      throw UsageError("--dist entropy draws bits over the whole key domain; drop --delta, --sigma, --len, "
                       "--min-val and --max-val");
    const double e = r.entropy.value_or(1.0);
    const auto words = entropy_words(e);
    if (!words)
      throw UsageError(fmt::format("--entropy {} is not one of CUB's levels; give 1, 0.811, 0.544, 0.337, 0.201 or 0",
                                   e));
    spec.entropy = e;
    spec.entropy_words = *words;
    spec.n = r.n.value_or(kDefaultN);
    if (spec.n > kMaxN)
      throw UsageError(fmt::format("-n {} is above the supported maximum 2^36; give a smaller -n", spec.n));
    spec.min_val = lo;
    spec.max_val = hi + 1;
    spec.range = spec.max_val - spec.min_val;
    // Not exact: the distinct count is measured on the generated keys.
    spec.len = spec.n == 0 ? 0 : static_cast<std::uint64_t>(std::min<wide_t>(spec.n, spec.range));
    if (spec.n > (std::uint64_t{1} << 32) && (spec.payload == Payload::index || spec.payload == Payload::u32))
      throw UsageError(fmt::format("--payload {} holds 32-bit positions, so -n must be <= 2^32; got {} (use --payload "
                                   "u64)",
                                   to_string(spec.payload), spec.n));
    return spec;
  }

  spec.min_val = r.min_val.value_or(std::max<wide_t>(0, lo));
  if (r.max_val && *r.max_val <= spec.min_val)
    throw UsageError(fmt::format("--min-val {} must be below --max-val {} (keys lie in [minVal, maxVal))",
                                 text(spec.min_val), text(*r.max_val)));
  auto outside = [&](wide_t first, wide_t last) {
    return UsageError(fmt::format(
        "--key {} holds values in [{}, {}] exactly, but the input spans [{}, {}]; change --min-val/--max-val "
        "(or -n/--delta) or the key type",
        key_name, text(lo), text(hi), text(first), text(last)));
  };
  if (spec.min_val < lo || (r.max_val && *r.max_val - 1 > hi))
    throw outside(spec.min_val, r.max_val ? *r.max_val - 1 : spec.min_val);

  // The range follows from maxVal, or from n and delta, or from len and sigma.
  std::optional<wide_t> range;
  if (r.max_val) range = *r.max_val - spec.min_val;
  if (!range && r.len && r.sigma && !r.delta) range = std::max<wide_t>(1, round_positive(*r.len * *r.sigma));

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
          spec.n, *r.delta, round_positive(spec.n / *r.delta), text(*range)));
  }
  if (!range) {
    if (r.delta) {
      const double wanted = static_cast<double>(spec.n) / *r.delta;
      if (!(wanted <= 18446744073709551616.0))
        throw UsageError(fmt::format("-n {} and --delta {} give a range above 2^64; raise --delta", spec.n, *r.delta));
      range = std::max<wide_t>(1, static_cast<wide_t>(std::round(wanted)));
    } else {
      range = std::max<wide_t>(1, spec.n);  // delta = 1
    }
  }
  spec.range = *range;
  spec.max_val = spec.min_val + spec.range;
  if (spec.max_val - 1 > hi) throw outside(spec.min_val, spec.max_val - 1);

  // len, from sigma or the distribution's default.
  if (spec.n == 0) {
    if (r.len && *r.len > 0)
      throw UsageError(fmt::format("--len {} exceeds -n 0; give -n >= --len", *r.len));
    spec.len = 0;
  } else if (r.len) {
    spec.len = *r.len;
    if (r.sigma) {
      const std::uint64_t from_sigma =
          std::max<std::uint64_t>(1, round_positive(static_cast<double>(spec.range) / *r.sigma));
      if (from_sigma != spec.len)
        throw UsageError(fmt::format(
            "--len {} and --sigma {} conflict: range {} / sigma {} gives len {}; give only one of --len, --sigma",
            spec.len, *r.sigma, text(spec.range), *r.sigma, from_sigma));
    }
  } else if (r.sigma) {
    spec.len = std::max<std::uint64_t>(1, round_positive(static_cast<double>(spec.range) / *r.sigma));
  } else if (spec.dist == Distribution::distinct) {
    spec.len = spec.n;
  } else if (spec.dist == Distribution::equal) {
    spec.len = 1;
  } else {
    spec.len = static_cast<std::uint64_t>(std::min<wide_t>(spec.n, spec.range));
  }

  if (spec.len > spec.range)
    throw UsageError(fmt::format(
        "--len {} exceeds range {} (maxVal - minVal): only {} distinct values fit; raise --max-val or lower --len",
        spec.len, text(spec.range), text(spec.range)));
  if (spec.dist == Distribution::distinct && spec.len != spec.n)
    throw UsageError(fmt::format(
        "--dist distinct needs len = n = {}, but len is {}{}; drop --len/--sigma or raise --max-val", spec.n, spec.len,
        spec.range < spec.n ? fmt::format(" (range {} < n)", text(spec.range)) : std::string()));
  if (spec.len > spec.n)
    throw UsageError(fmt::format(
        "--len {} exceeds -n {}: {} keys cannot hold {} distinct values; lower --len or use --dist distinct",
        spec.len, spec.n, spec.n, spec.len));
  if (spec.dist == Distribution::equal && spec.n > 0 && spec.len != 1)
    throw UsageError(fmt::format("--dist equal has len 1, but len is {}; drop --len/--sigma", spec.len));
  if (spec.n > (std::uint64_t{1} << 32) && (spec.payload == Payload::index || spec.payload == Payload::u32))
    throw UsageError(fmt::format(
        "--payload {} holds 32-bit positions, so -n must be <= 2^32; got {} (use --payload u64)",
        to_string(spec.payload), spec.n));
  return spec;
}

}  // namespace sb
