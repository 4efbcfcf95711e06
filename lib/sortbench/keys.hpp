// Key types as C++ types: conversion from generated integer values, ordering, bitwise
// equality and the multiset fingerprint the verifier sums. Shared by host and device code.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "sortbench/hd.hpp"
#include "sortbench/random.hpp"
#include "sortbench/types.hpp"

namespace sb {

SB_HD_INLINE std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

template <typename K>
struct KeyTraits;

template <>
struct KeyTraits<std::uint32_t> {
  static constexpr KeyType type = KeyType::u32;
  SB_HD_INLINE static std::uint32_t from_value(std::int64_t v, unsigned /*word*/ = 0) {
    return static_cast<std::uint32_t>(v);
  }
  SB_HD_INLINE static bool less(std::uint32_t a, std::uint32_t b) { return a < b; }
  SB_HD_INLINE static std::uint64_t bits(std::uint32_t a) { return a; }
  // Unsigned integer whose order is the key order (radix-sortable form).
  SB_HD_INLINE static std::uint32_t ordered(std::uint32_t a) { return a; }
};

template <>
struct KeyTraits<std::int32_t> {
  static constexpr KeyType type = KeyType::i32;
  SB_HD_INLINE static std::int32_t from_value(std::int64_t v, unsigned = 0) { return static_cast<std::int32_t>(v); }
  SB_HD_INLINE static bool less(std::int32_t a, std::int32_t b) { return a < b; }
  SB_HD_INLINE static std::uint64_t bits(std::int32_t a) { return static_cast<std::uint32_t>(a); }
  SB_HD_INLINE static std::uint32_t ordered(std::int32_t a) { return static_cast<std::uint32_t>(a) ^ 0x80000000u; }
};

template <>
struct KeyTraits<float> {
  static constexpr KeyType type = KeyType::f32;
  // Generated values are integers with |v| <= 2^24, which a float holds exactly.
  SB_HD_INLINE static float from_value(std::int64_t v, unsigned = 0) { return static_cast<float>(v); }
  SB_HD_INLINE static bool less(float a, float b) { return a < b; }
  SB_HD_INLINE static std::uint64_t bits(float a) { return float_bits(a); }
  // Negative floats reverse their order; -0.0 lands just below +0.0.
  SB_HD_INLINE static std::uint32_t ordered(float a) {
    const std::uint32_t u = float_bits(a);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
};

template <>
struct KeyTraits<Row4> {
  static constexpr KeyType type = KeyType::u32x4;
  SB_HD_INLINE static bool less(const Row4& a, const Row4& b) {
    for (int i = 0; i < 4; ++i)
      if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
    return false;
  }
  SB_HD_INLINE static std::uint64_t bits(const Row4& a) {
    return random64(random64(a.w[0], a.w[1]) ^ a.w[2], a.w[3]);
  }
};

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

// Calls f(K{}) with the C++ type of a key type: one switch for every template dispatch.
template <typename F>
decltype(auto) dispatch_key(KeyType k, F&& f) {
  switch (k) {
    case KeyType::u32: return std::forward<F>(f)(std::uint32_t{});
    case KeyType::i32: return std::forward<F>(f)(std::int32_t{});
    case KeyType::f32: return std::forward<F>(f)(float{});
    case KeyType::u32x4: break;
  }
  return std::forward<F>(f)(Row4{});
}

}  // namespace sb
