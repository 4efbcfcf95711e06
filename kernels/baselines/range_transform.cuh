// Element-wise maps between a key and its radix-sortable offset from the input's minimum,
// so a radix sort needs only bit_width(max - min) bits (cub-radix-bits).
#pragma once

#include <cstdint>

#include "sortbench/keys.hpp"

namespace sb::baselines {

// In place: a key of 4 bytes becomes the 4-byte offset ordered(key) - ordered(min).
template <typename K>
__global__ void keys_to_offsets(void* keys, std::uint64_t n, std::uint32_t ordered_min) {
  static_assert(sizeof(K) == sizeof(std::uint32_t));
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const K k = static_cast<K*>(keys)[i];
    static_cast<std::uint32_t*>(keys)[i] = KeyTraits<K>::ordered(k) - ordered_min;
  }
}

template <typename K>
__device__ K key_from_ordered(std::uint32_t u);
template <>
__device__ inline std::uint32_t key_from_ordered<std::uint32_t>(std::uint32_t u) { return u; }
template <>
__device__ inline std::int32_t key_from_ordered<std::int32_t>(std::uint32_t u) {
  return static_cast<std::int32_t>(u ^ 0x80000000u);
}
template <>
__device__ inline float key_from_ordered<float>(std::uint32_t u) {
  return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

template <typename K>
__global__ void offsets_to_keys(void* keys, std::uint64_t n, std::uint32_t ordered_min) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t u = static_cast<std::uint32_t*>(keys)[i] + ordered_min;
    static_cast<K*>(keys)[i] = key_from_ordered<K>(u);
  }
}

}  // namespace sb::baselines
