// CUB radix sort on the bits of the realized key range (range_radix_sort.hpp).
#include <cub/device/device_radix_sort.cuh>

#include "sortbench/cuda_check.hpp"
#include "sortbench/keys.hpp"
#include "sortbench/launch.hpp"
#include "sortbench/random.hpp"
#include "sortbench/range_radix_sort.hpp"

namespace sb {
namespace {

constexpr unsigned kBlock = 256;

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

// Sorts 4-byte words keys[0] (and vals[0] when vals is set) on bits [0, end_bit); returns
// the DoubleBuffer selector. With temp == nullptr only sets temp_bytes.
int sort_words(void* temp, std::size_t& temp_bytes, void* const keys[2], index_t* const vals[2], std::uint64_t n,
               int end_bit, cudaStream_t stream) {
  cub::DoubleBuffer<std::uint32_t> d_keys(static_cast<std::uint32_t*>(keys[0]), static_cast<std::uint32_t*>(keys[1]));
  if (vals) {
    cub::DoubleBuffer<index_t> d_vals(vals[0], vals[1]);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, d_vals, n, 0, end_bit, stream));
  } else {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, n, 0, end_bit, stream));
  }
  return d_keys.selector;
}

std::uint32_t ordered_value(KeyType key, std::int64_t v) {
  return dispatch_key(key, [&](auto k) -> std::uint32_t {
    using K = decltype(k);
    if constexpr (std::is_same_v<K, Row4>) return 0;
    else return KeyTraits<K>::ordered(KeyTraits<K>::from_value(v));
  });
}

int significant_bits(const SortProblem& p) {
  const std::uint32_t span = ordered_value(p.spec.key, p.realized.max) - ordered_value(p.spec.key, p.realized.min);
  return static_cast<int>(bit_width64(span));
}

// u32 keys whose own top bits are zero sort on [0, bit_width(max)) without the offset
// passes, when that costs no more 8-bit digit passes than the offset's bit width.
int direct_end_bit(const SortProblem& p) { return static_cast<int>(bit_width64(static_cast<std::uint64_t>(p.realized.max))); }
bool sorts_in_place(const SortProblem& p) {
  return p.spec.key == KeyType::u32 && (direct_end_bit(p) + 7) / 8 <= (significant_bits(p) + 7) / 8;
}

}  // namespace

std::size_t range_radix_sort_bytes(const SortProblem& p) {
  std::size_t bytes = 0;
  void* keys[2] = {nullptr, nullptr};
  index_t* vals[2] = {nullptr, nullptr};
  sort_words(nullptr, bytes, keys, p.has_payload() ? vals : nullptr, p.n(), 32, nullptr);
  return bytes;
}

int range_radix_sort(const SortProblem& p, const DeviceBuffers& b) {
  const int end_bit = significant_bits(p);
  if (end_bit == 0 || p.n() < 2) return 0;  // one distinct key: already sorted, stably
  index_t* const* vals = p.has_payload() ? b.vals : nullptr;
  std::size_t bytes = b.workspace_bytes;
  if (sorts_in_place(p)) return sort_words(b.workspace, bytes, b.keys, vals, p.n(), direct_end_bit(p), b.stream);
  const std::uint32_t omin = ordered_value(p.spec.key, p.realized.min);
  const unsigned grid = grid_for(p.n(), kBlock);
  int sel = 0;
  dispatch_key(p.spec.key, [&](auto k) {
    using K = decltype(k);
    if constexpr (!std::is_same_v<K, Row4>) {
      keys_to_offsets<K><<<grid, kBlock, 0, b.stream>>>(b.keys[0], p.n(), omin);
      SB_CUDA_CHECK_LAUNCH();
      sel = sort_words(b.workspace, bytes, b.keys, vals, p.n(), end_bit, b.stream);
      offsets_to_keys<K><<<grid, kBlock, 0, b.stream>>>(b.keys[sel], p.n(), omin);
      SB_CUDA_CHECK_LAUNCH();
    }
  });
  return sel;
}

Details range_radix_sort_details(const SortProblem& p) {
  if (sorts_in_place(p)) return Details{{"end_bit", std::to_string(direct_end_bit(p))}, {"offset", "none"}};
  return Details{{"end_bit", std::to_string(significant_bits(p))}, {"offset", "key - min"}};
}

}  // namespace sb
