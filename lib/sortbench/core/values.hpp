// Payload columns: what value the element at input position i carries, and how the verifier
// recovers i from a value. Every payload names its element, so a value that is truncated,
// mixed up with another or left unwritten is caught, whatever its width:
//   index  i itself (the 32-bit argsort column)
//   u32    an odd-multiplier bijection of i modulo 2^32: unlike index, equal to no position
//   u64    i in the low 40 bits and 24 check bits of a hash of i above them, so n may pass 2^32
#pragma once

#include <cstdint>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/random.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

inline constexpr unsigned kValuePositionBits = 40;
inline constexpr std::uint32_t kValueMul32 = 0x9E3779B1u;
inline constexpr std::uint32_t kValueMul32Inverse = 0x0E8B2F51u;  // kValueMul32 * this == 1 mod 2^32
inline constexpr std::uint32_t kValueAdd32 = 0x7F4A7C15u;

SB_HD_INLINE std::uint64_t value_check_bits(std::uint64_t position) {
  return mix64(position ^ 0xa0761d6478bd642fULL) >> kValuePositionBits;
}

// The value of input position i for a payload stored in V (index and u32: 32 bits; u64: 64).
template <typename V>
SB_HD_INLINE V encode_value(Payload p, std::uint64_t i) {
  if constexpr (sizeof(V) == 8) {
    return i | (value_check_bits(i) << kValuePositionBits);
  } else {
    const auto x = static_cast<std::uint32_t>(i);
    return p == Payload::index ? x : x * kValueMul32 + kValueAdd32;
  }
}

// The input position a value names; false when the value names none (corrupted).
template <typename V>
SB_HD_INLINE bool decode_value(Payload p, V v, std::uint64_t& position) {
  if constexpr (sizeof(V) == 8) {
    position = v & ((std::uint64_t{1} << kValuePositionBits) - 1);
    return (v >> kValuePositionBits) == value_check_bits(position);
  } else {
    position = p == Payload::index ? v : static_cast<std::uint32_t>((v - kValueAdd32) * kValueMul32Inverse);
    return true;
  }
}

}  // namespace sb
