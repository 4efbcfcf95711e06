// The bitonic kernels. Seed 003 (compute-shader article): B2/B4/B8/B16 (global_steps, one
// thread per group of 2/4/8/16 elements, 1..4 steps in registers) and C2/C4 (shared_steps,
// a tile in shared memory, 1 or 2 steps per round); seed 000: split. The index math is in
// bitonic_index.hpp. Beyond the article: B32 (5 steps in registers) and C16 (up to 4 steps
// per shared-memory round), for the bitonic-b32c16 schedule, and a bank swizzle of the tile.
//
// Every kernel is written once over the element type (K, V): K a scalar key type, V the
// value column (NoValue, std::uint32_t for index and u32 payloads, std::uint64_t).
//
// Departures: keys and payloads are separate arrays (the harness's layout) instead of the
// article's {float key; uint index} records; ascending instead of the article's descending
// order; with a value column, equal keys are ordered by value, so that a padding sentinel
// (the largest key and value, bitonic_padding.hpp) ties only with a bitwise-equal element.
#pragma once

#include <cstdint>
#include <type_traits>

#include "bitonic_index.hpp"
#include "bitonic_padding.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/types.hpp"

namespace sb::bitonic {

template <typename V>
inline constexpr bool has_values_v = !std::is_same_v<V, NoValue>;

// (key, value) order: by key, then by value; by key alone without a value column.
template <typename K, typename V>
struct ElementLess {
  __device__ __forceinline__ bool operator()(const K& ka, const V& va, const K& kb, const V& vb) const {
    if constexpr (has_values_v<V>) return KeyTraits<K>::less(ka, kb) || (!KeyTraits<K>::less(kb, ka) && va < vb);
    else return KeyTraits<K>::less(ka, kb);
  }
};

// Branch-free compare-exchange (selects), as the article's `swap = reverse ^ COMPARISON`: one
// comparison, b < a, XOR the direction. In a descending block it also swaps elements that
// compare equal, which changes nothing (equal elements are interchangeable for the order),
// and it saves the second comparison that `asc ? b < a : a < b` evaluates under predication.
template <typename K, typename V>
__device__ __forceinline__ void compare_exchange(K& ka, V& va, K& kb, V& vb, bool asc) {
  const ElementLess<K, V> less;
  const bool swap = less(kb, vb, ka, va) == asc;
  const K k0 = swap ? kb : ka, k1 = swap ? ka : kb;
  ka = k0;
  kb = k1;
  if constexpr (has_values_v<V>) {
    const V v0 = swap ? vb : va, v1 = swap ? va : vb;
    va = v0;
    vb = v1;
  }
}

// Where a group pass reads or writes: plain arrays (global memory, or one tile of it), or a
// tile in shared memory under the bank swizzle tile_slot. vals is null without a value column.
template <typename K, typename V, typename Index>
struct PlainView {
  using Key = K;
  using Value = V;
  K* keys;
  V* vals;
  __device__ __forceinline__ Index at(Index i) const { return i; }
};
template <typename K, typename V>
struct SwizzledView {
  using Key = K;
  using Value = V;
  K* keys;
  V* vals;
  __device__ __forceinline__ unsigned at(unsigned i) const { return tile_slot(i); }
};

// Loads group t's 2^kSteps elements from `in`, does steps j .. j-kSteps+1 on them, stores
// them to `out`. `offset` is the global index of element 0 (a tile's start, else 0).
template <unsigned kSteps, typename In, typename Out, typename Index>
__device__ __forceinline__ void group_pass(const In& in, const Out& out, Index t, std::uint64_t offset, unsigned s,
                                           unsigned j) {
  using K = typename In::Key;
  using V = typename In::Value;
  constexpr unsigned kCount = 1u << kSteps;
  const Index base = static_cast<Index>(group_base(t, j, kSteps));
  const unsigned low = group_low_step(j, kSteps);
  K k[kCount];
  V v[kCount];
#pragma unroll
  for (unsigned m = 0; m < kCount; ++m) {
    const Index i = base + (static_cast<Index>(m) << low);
    k[m] = in.keys[in.at(i)];
    if constexpr (has_values_v<V>) v[m] = in.vals[in.at(i)];
  }
  const bool asc = ascending(offset + base, s);
  group_steps<kSteps>([&](unsigned a, unsigned b) { compare_exchange<K, V>(k[a], v[a], k[b], v[b], asc); });
#pragma unroll
  for (unsigned m = 0; m < kCount; ++m) {
    const Index i = base + (static_cast<Index>(m) << low);
    out.keys[out.at(i)] = k[m];
    if constexpr (has_values_v<V>) out.vals[out.at(i)] = v[m];
  }
}

// B2 (kSteps 1), B4, B8, B16, B32: steps j .. j-kSteps+1 of stage s, one thread per group.
template <unsigned kSteps, typename K, typename V>
__global__ void global_steps_kernel(K* keys, V* vals, std::uint64_t groups, unsigned s, unsigned j) {
  const std::uint64_t t = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const PlainView<K, V, std::uint64_t> data{keys, vals};
  if (t < groups) group_pass<kSteps>(data, data, t, 0, s, j);
}

// One round of a tile: steps j .. j-kSteps+1, each thread taking groups in turn.
template <unsigned kSteps, typename In, typename Out>
__device__ __forceinline__ void tile_round(const In& in, const Out& out, unsigned tile_log, std::uint64_t offset,
                                           unsigned s, unsigned j) {
  for (unsigned t = threadIdx.x; t < (1u << (tile_log - kSteps)); t += blockDim.x)
    group_pass<kSteps>(in, out, t, offset, s, j);
}

// The first round reads the tile from global memory, the last writes it there; the others
// stay in shared memory.
template <unsigned kSteps, typename Global, typename Shared>
__device__ __forceinline__ void tile_round(bool first, bool last, const Global& g, const Shared& sm,
                                           unsigned tile_log, std::uint64_t offset, unsigned s, unsigned j) {
  if (first && last) tile_round<kSteps>(g, g, tile_log, offset, s, j);
  else if (first) tile_round<kSteps>(g, sm, tile_log, offset, s, j);
  else if (last) tile_round<kSteps>(sm, g, tile_log, offset, s, j);
  else tile_round<kSteps>(sm, sm, tile_log, offset, s, j);
}

// C2 (kRound 1), C2C4 (kRound 2) and C16 (kRound 4): block b sorts tile b (2^tile_log
// elements) through stage first_stage from step first_step and every later stage up to
// last_stage from step s-1, all down to step 0. A round does min(kRound, steps left in the
// stage) steps in registers between two barriers. Departure from the article, whose C2
// copies the tile into shared memory first and back at the end: the first round reads its
// groups straight from global memory and the last round writes straight to it, two
// shared-memory passes fewer.
template <unsigned kRound, typename K, typename V>
__global__ void shared_steps_kernel(K* keys, V* vals, unsigned tile_log, unsigned first_stage, unsigned first_step,
                                    unsigned last_stage) {
  static_assert(kRound == 1 || kRound == 2 || kRound == 4, "C2, C4 and C16 rounds");
  // The tile's 2^tile_log keys, then its values (launch_shape sizes it: element_bytes):
  // aligned for 8-byte keys, and the values, after an even number of keys, for 8-byte values.
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  K* tile_keys = reinterpret_cast<K*>(shared_bytes);
  V* const tile_vals = has_values_v<V> ? reinterpret_cast<V*>(tile_keys + (1u << tile_log)) : nullptr;
  const SwizzledView<K, V> sm{tile_keys, tile_vals};
  const std::uint64_t offset = std::uint64_t{blockIdx.x} << tile_log;
  const PlainView<K, V, unsigned> g{keys + offset, has_values_v<V> ? vals + offset : nullptr};
  for_each_tile_round(
      first_stage, first_step, last_stage, kRound, [&](unsigned s, unsigned j, unsigned k, bool first, bool last) {
        if (kRound >= 4 && k == 4) tile_round<(kRound >= 4 ? 4 : 1)>(first, last, g, sm, tile_log, offset, s, j);
        else if (kRound >= 4 && k == 3) tile_round<(kRound >= 4 ? 3 : 1)>(first, last, g, sm, tile_log, offset, s, j);
        else if (kRound >= 2 && k == 2) tile_round<(kRound >= 2 ? 2 : 1)>(first, last, g, sm, tile_log, offset, s, j);
        else tile_round<1>(first, last, g, sm, tile_log, offset, s, j);
        if (!last) __syncthreads();
      });
}

// Seed 000's bitonic split: n work items, those with gid % (2 * 2^j) < 2^j act on
// (gid, gid + 2^j); the direction from the stage width 2^s; the swap by select.
template <typename K, typename V>
__global__ void split_kernel(K* keys, V* vals, std::uint64_t n, unsigned s, unsigned j) {
  const std::uint64_t gid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (gid >= n || !split_active(gid, j)) return;
  const std::uint64_t partner = gid + (std::uint64_t{1} << j);
  K left = keys[gid], right = keys[partner];
  V left_val{}, right_val{};
  if constexpr (has_values_v<V>) {
    left_val = vals[gid];
    right_val = vals[partner];
  }
  compare_exchange<K, V>(left, left_val, right, right_val, !split_descending(gid, s));
  keys[gid] = left;
  keys[partner] = right;
  if constexpr (has_values_v<V>) {
    vals[gid] = left_val;
    vals[partner] = right_val;
  }
}

// Padding (any n): copies n elements into the 2^L buffers and fills the rest with the
// sentinel element (bitonic_padding.hpp); copy_back returns the first n.
template <typename K, typename V>
__global__ void pad_kernel(const K* keys_in, const V* vals_in, K* keys, V* vals, std::uint64_t n,
                           std::uint64_t padded) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < padded;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    keys[i] = i < n ? keys_in[i] : sentinel_key<K>();
    if constexpr (has_values_v<V>) vals[i] = i < n ? vals_in[i] : sentinel_value<V>();
  }
}

template <typename K, typename V>
__global__ void copy_back_kernel(const K* keys, const V* vals, K* keys_out, V* vals_out, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    keys_out[i] = keys[i];
    if constexpr (has_values_v<V>) vals_out[i] = vals[i];
  }
}

}  // namespace sb::bitonic
