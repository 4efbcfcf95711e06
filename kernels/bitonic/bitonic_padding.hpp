// Padding of the bitonic family (any n): the input is copied into power-of-two buffers and
// the rest is filled with a sentinel element that sorts last. Shared by pad_kernel and its
// CPU test (tests/bitonic/network_test.cpp).
//
// The sentinel is the largest element of the type: the maximum key (integers: the type's
// maximum; floats: +inf, so NaN keys are not taken) and, with a value column, the maximum
// value. The kernels order elements by key, then by value (bitonic_kernels.cuh), so a
// sentinel only ties with a real element whose key and value are bitwise the same as its
// own: whichever of the two lands among the first n, the output is the same. Without a value
// column the same holds for the key alone. (The sort is not stable either way.)
#pragma once

#include <cstdint>
#include <type_traits>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::bitonic {

template <typename K>
SB_HD_INLINE K sentinel_key() {
  using U = typename KeyTraits<K>::Ordered;
  if constexpr (!KeyTraits<K>::is_float) {
    // The largest ordered form: u32/u64 all ones, i32/i64 INT_MAX.
    return KeyTraits<K>::from_ordered(static_cast<U>(~U{0}));
  } else if constexpr (sizeof(K) == 4) {
    return bit_cast_hd<K>(U{0x7f800000u});  // +inf
  } else {
    return bit_cast_hd<K>(U{0x7ff0000000000000ull});  // +inf
  }
}

// The largest value of a value column (u32: index and u32 payloads; u64).
template <typename V>
SB_HD_INLINE V sentinel_value() {
  static_assert(std::is_unsigned_v<V>, "value columns are unsigned words");
  return static_cast<V>(~V{0});
}

}  // namespace sb::bitonic
