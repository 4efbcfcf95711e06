// Key types as C++ types: conversion from generated integer values, ordering, the ordered
// (radix-sortable) form and its inverse, bitwise equality and the multiset fingerprint the
// verifier sums. Shared by host and device code; the one place a key type is described.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/random.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

template <typename To, typename From>
SB_HD_INLINE To bit_cast_hd(const From& f) {
  static_assert(sizeof(To) == sizeof(From));
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(To) == 4) {
    if constexpr (std::is_same_v<From, float>) return __float_as_uint(f);
    else return __uint_as_float(f);
  } else {
    if constexpr (std::is_same_v<From, double>) return __double_as_longlong(f);
    else return __longlong_as_double(f);
  }
#else
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
#endif
}

SB_HD_INLINE std::uint32_t float_bits(float f) { return bit_cast_hd<std::uint32_t>(f); }

// Generated values arrive as the two's-complement bits of a 64-bit integer (so u64 values
// past 2^63 pass through unchanged); each key type takes the part it holds.
template <typename K>
struct KeyTraits;

// Integer keys: Ordered is the unsigned type of the same width; signed keys flip the sign bit.
template <typename K, typename U>
struct IntegerKeyTraits {
  using Ordered = U;
  static constexpr bool is_float = false;
  SB_HD_INLINE static K from_value(std::int64_t v) { return static_cast<K>(v); }
  SB_HD_INLINE static bool less(K a, K b) { return a < b; }
  SB_HD_INLINE static std::uint64_t bits(K a) { return static_cast<U>(a); }
  SB_HD_INLINE static U ordered(K a) {
    if constexpr (std::is_signed_v<K>) return static_cast<U>(a) ^ (U{1} << (sizeof(U) * 8 - 1));
    else return a;
  }
  SB_HD_INLINE static K from_ordered(U u) {
    if constexpr (std::is_signed_v<K>) return static_cast<K>(u ^ (U{1} << (sizeof(U) * 8 - 1)));
    else return u;
  }
};

// Float keys order as IEEE 754 '<' does: -0.0 equals +0.0 (a sort may keep either first),
// NaN never occurs (the generator and the file readers refuse it). ordered() is the radix
// form: negative floats reverse their order, -0.0 lands just below +0.0.
template <typename K, typename U>
struct FloatKeyTraits {
  using Ordered = U;
  static constexpr bool is_float = true;
  static constexpr U kSign = U{1} << (sizeof(U) * 8 - 1);
  // Generated integer values are exact up to 2^24 (f32) and 2^53 (f64).
  SB_HD_INLINE static K from_value(std::int64_t v) { return static_cast<K>(v); }
  SB_HD_INLINE static bool less(K a, K b) { return a < b; }
  SB_HD_INLINE static std::uint64_t bits(K a) { return bit_cast_hd<U>(a); }
  SB_HD_INLINE static U ordered(K a) {
    const U u = bit_cast_hd<U>(a);
    return (u & kSign) ? ~u : (u | kSign);
  }
  SB_HD_INLINE static K from_ordered(U u) { return bit_cast_hd<K>((u & kSign) ? (u & ~kSign) : ~u); }
};

template <>
struct KeyTraits<std::uint32_t> : IntegerKeyTraits<std::uint32_t, std::uint32_t> {
  static constexpr KeyType type = KeyType::u32;
};
template <>
struct KeyTraits<std::int32_t> : IntegerKeyTraits<std::int32_t, std::uint32_t> {
  static constexpr KeyType type = KeyType::i32;
};
template <>
struct KeyTraits<std::uint64_t> : IntegerKeyTraits<std::uint64_t, std::uint64_t> {
  static constexpr KeyType type = KeyType::u64;
};
template <>
struct KeyTraits<std::int64_t> : IntegerKeyTraits<std::int64_t, std::uint64_t> {
  static constexpr KeyType type = KeyType::i64;
};
template <>
struct KeyTraits<float> : FloatKeyTraits<float, std::uint32_t> {
  static constexpr KeyType type = KeyType::f32;
};
template <>
struct KeyTraits<double> : FloatKeyTraits<double, std::uint64_t> {
  static constexpr KeyType type = KeyType::f64;
};

template <>
struct KeyTraits<Row4> {
  static constexpr KeyType type = KeyType::u32x4;
  static constexpr bool is_float = false;
  SB_HD_INLINE static bool less(const Row4& a, const Row4& b) {
    for (int i = 0; i < 4; ++i)
      if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
    return false;
  }
  SB_HD_INLINE static std::uint64_t bits(const Row4& a) {
    return random64(random64(a.w[0], a.w[1]) ^ a.w[2], a.w[3]);
  }
};

// Scalar keys have an ordered (radix) form; rows do not.
template <typename K>
inline constexpr bool has_ordered_v = !std::is_same_v<K, Row4>;

template <typename K>
SB_HD_INLINE bool bits_equal(const K& a, const K& b) {
  return KeyTraits<K>::bits(a) == KeyTraits<K>::bits(b);
}
SB_HD_INLINE bool bits_equal(const Row4& a, const Row4& b) {
  return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2] && a.w[3] == b.w[3];
}

// Two independent order-free summands of a key: the sums over a sequence identify its
// multiset up to a 2^-128 collision chance, whatever order the elements come in.
struct Fingerprint {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
};
template <typename K>
SB_HD_INLINE Fingerprint fingerprint_of(const K& k) {
  const std::uint64_t bits = KeyTraits<K>::bits(k);
  return {mix64(bits ^ 0x5851f42d4c957f2dULL), random64(0x14057b7ef767814fULL, bits)};
}

}  // namespace sb
