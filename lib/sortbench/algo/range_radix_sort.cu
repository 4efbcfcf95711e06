// CUB radix sort on the bits of the realized key range (range_radix_sort.hpp).
#include <algorithm>

#include <cub/device/device_radix_sort.cuh>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/launch.hpp"
#include "sortbench/core/random.hpp"
#include "sortbench/algo/range_radix_sort.hpp"

namespace sb {
namespace {

constexpr unsigned kBlock = 256;

template <typename K>
using OrderedOf = typename KeyTraits<K>::Ordered;

// In place: a key becomes the offset ordered(key) - ordered(min), of the key's own width.
template <typename K>
__global__ void keys_to_offsets(K* keys, std::uint64_t n, OrderedOf<K> ordered_min) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    reinterpret_cast<OrderedOf<K>*>(keys)[i] = KeyTraits<K>::ordered(keys[i]) - ordered_min;
}

template <typename K>
__global__ void offsets_to_keys(K* keys, std::uint64_t n, OrderedOf<K> ordered_min) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = KeyTraits<K>::from_ordered(reinterpret_cast<OrderedOf<K>*>(keys)[i] + ordered_min);
}

// Sorts words keys[0] (and vals[0] unless V is NoValue) on bits [0, end_bit); returns the
// DoubleBuffer selector. With temp == nullptr only sets temp_bytes.
template <typename U, typename V>
int sort_words(void* temp, std::size_t& temp_bytes, U* const keys[2], V* const vals[2], std::uint64_t n, int end_bit,
               cudaStream_t stream) {
  cub::DoubleBuffer<U> d_keys(keys[0], keys[1]);
  if constexpr (!std::is_same_v<V, NoValue>) {
    cub::DoubleBuffer<V> d_vals(vals[0], vals[1]);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, d_vals, n, 0, end_bit, stream));
  } else {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, n, 0, end_bit, stream));
  }
  return d_keys.selector;
}

RangeRadixPlan plan_of(const SortProblem& p) {
  return range_radix_plan(p.shape.key, p.facts.min_ordered, p.facts.max_ordered);
}

template <typename K, typename V>
int range_sort_typed(const SortProblem& p, const Buffers<K, V>& b) {
  using U = OrderedOf<K>;
  const RangeRadixPlan plan = plan_of(p);
  if (plan.way == RangeRadixWay::already_sorted || p.n() < 2) return 0;  // already sorted, stably
  std::size_t bytes = b.workspace_bytes;
  if (plan.way == RangeRadixWay::whole_keys) return sort_words(b.workspace, bytes, b.keys, b.vals, p.n(), plan.end_bit, b.stream);
  U* words[2] = {reinterpret_cast<U*>(b.keys[0]), reinterpret_cast<U*>(b.keys[1])};
  if (plan.way == RangeRadixWay::own_bits) return sort_words(b.workspace, bytes, words, b.vals, p.n(), plan.end_bit, b.stream);
  const auto omin = static_cast<U>(p.facts.min_ordered);
  const unsigned grid = grid_for(p.n(), kBlock);
  keys_to_offsets<K><<<grid, kBlock, 0, b.stream>>>(b.keys[0], p.n(), omin);
  SB_CUDA_CHECK_LAUNCH();
  const int sel = sort_words(b.workspace, bytes, words, b.vals, p.n(), plan.end_bit, b.stream);
  offsets_to_keys<K><<<grid, kBlock, 0, b.stream>>>(b.keys[sel], p.n(), omin);
  SB_CUDA_CHECK_LAUNCH();
  return sel;
}

}  // namespace

std::size_t range_radix_sort_bytes(const SortProblem& p) {
  return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    using K = decltype(k);
    using U = OrderedOf<K>;
    using V = decltype(v);
    // Offsets of the key's width, or the keys whole: the larger of CUB's two requests.
    std::size_t offsets = 0, whole = 0;
    U* words[2] = {nullptr, nullptr};
    K* keys[2] = {nullptr, nullptr};
    V* vals[2] = {nullptr, nullptr};
    sort_words(nullptr, offsets, words, vals, p.n(), int(sizeof(U) * 8), nullptr);
    sort_words(nullptr, whole, keys, vals, p.n(), int(sizeof(K) * 8), nullptr);
    return std::max(offsets, whole);
  });
}

int range_radix_sort(const SortProblem& p, const DeviceBuffers& b) {
  return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    return range_sort_typed(p, typed_buffers<decltype(k), decltype(v)>(b));
  });
}

Details range_radix_sort_details(const SortProblem& p) {
  const RangeRadixPlan plan = plan_of(p);
  const char* offset = plan.way == RangeRadixWay::offsets      ? "key - min"
                       : plan.way == RangeRadixWay::whole_keys ? "none (the range needs every digit: whole keys)"
                                                               : "none";
  return Details{{"end_bit", std::to_string(plan.end_bit)}, {"offset", offset}};
}

}  // namespace sb
