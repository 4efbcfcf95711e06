// The local sorts of the partition-first exchange (dist_sample_sort_partition.cu, steps 3 and 4):
// CUB's radix sort of the kept and the received parts on the whole keys (the sample sort), on
// the range's bits (dist-hp with a payload) or on the present keys' ranks, with the maps from a
// key to its rank and back (dist_index.hpp present_bin; dist-hp's split first, issue 50).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/keys.hpp"
#include "distributed.hpp"

namespace sb::dist {

template <typename V>
constexpr bool kHasValues = !std::is_same_v<V, NoValue>;

// CUB's double-buffer sort of n elements from cur (spare alt) on the key's bits [0, end_bit);
// returns 0 when the result is in the buffer it started in, 1 when in the spare one. CUB
// decides it on the host.
template <typename K, typename V>
int sort_on_low_bits(void* temp, std::size_t temp_bytes, K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n,
                     int end_bit, cudaStream_t stream) {
  cub::DoubleBuffer<K> k(keys, keys_alt);
  if constexpr (kHasValues<V>) {
    cub::DoubleBuffer<V> v(vals, vals_alt);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, std::int64_t(n), 0, end_bit, stream));
  } else {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, k, std::int64_t(n), 0, end_bit, stream));
  }
  return k.selector;
}

// On every bit of the key.
struct SortWholeKeys {
  template <typename K, typename V>
  int operator()(void* temp, std::size_t temp_bytes, K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n,
                 cudaStream_t stream) const {
    return sort_on_low_bits(temp, temp_bytes, keys, keys_alt, vals, vals_alt, n, int(sizeof(K) * 8), stream);
  }
  // Its temporary storage for up to `capacity` elements.
  template <typename K, typename V>
  static std::size_t bytes(std::uint64_t capacity) {
    std::size_t sort_bytes = 0;
    cub::DoubleBuffer<K> keys(nullptr, nullptr);
    if constexpr (kHasValues<V>) {
      cub::DoubleBuffer<V> vals(nullptr, nullptr);
      SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, vals, std::int64_t(capacity)));
    } else {
      SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys, std::int64_t(capacity)));
    }
    return sort_bytes;
  }
};

// dist-hp's: CUB on the bits of the input's range (range_radix_sort), as its sort-first path.
struct SortRangeBits {
  const SortProblem* problem;
  const DeviceContext* device;
  template <typename K, typename V>
  int operator()(void* temp, std::size_t temp_bytes, K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n,
                 cudaStream_t stream) const {
    DeviceBuffers run;
    run.keys[0] = keys, run.keys[1] = keys_alt;
    run.vals[0] = vals, run.vals[1] = vals_alt;
    run.workspace = temp;
    run.workspace_bytes = temp_bytes;
    run.stream = stream;
    run.device = device;
    return range_radix_sort(slice_problem(*problem, n), run);
  }
};

// dist-hp's split first on the present keys' ranks: ranks below 2^bits, written in the keys'
// place by the split (dist_split_at_boundary.cuh), whose sign bit (signed keys) lies above them.
struct SortPresentRanks {
  int bits;
  template <typename K, typename V>
  int operator()(void* temp, std::size_t temp_bytes, K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n,
                 cudaStream_t stream) const {
    return sort_on_low_bits(temp, temp_bytes, keys, keys_alt, vals, vals_alt, n, bits, stream);
  }
};

// The key a rank stands for.
template <typename K>
struct KeyOfRank {
  const std::uint32_t* bin_of_rank;
  std::uint64_t min_ordered;
  __host__ __device__ K operator()(K rank) const {
    using Ordered = typename KeyTraits<K>::Ordered;
    return KeyTraits<K>::from_ordered(static_cast<Ordered>(min_ordered + bin_of_rank[static_cast<std::uint64_t>(rank)]));
  }
};

// Each key of from[0, count) as key_out writes it, at the same index of `to` (from itself where
// the types match).
template <typename K, typename OutK, typename KeyOut>
__global__ void write_keys_out(const K* from, OutK* to, std::uint64_t count, KeyOut key_out) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count; i += stride)
    to[i] = key_out(from[i]);
}

}  // namespace sb::dist
