// dist-hp with a payload, split first on two ranks (issue 50; dist_hp_pairs.cu): a rank's
// unsorted slice split around the one boundary key in one pass. CUB's three-way partition
// takes the elements below the key, equal to it and above it, each part in input order, and
// writes every element at its place in key order turned own piece first (dist_index.hpp
// two_way_split, own_first_place). The plan lives on the GPU, made there from the boundary
// words, so the split runs while the host reads the cuts for the exchange. It replaced a
// stable split by slots (a counting pass, a scan of per-tile counts and a scatter) that waited
// for the host. In a header of its own so that the quick GPU tier runs it on one GPU
// (tests/gpu/split_at_boundary_gpu_test.cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <cub/device/device_partition.cuh>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/keys.hpp"
#include "dist_index.hpp"

namespace sb::dist {

// The plan from the boundary words (the boundary bin, its global start, then each rank's counts
// below and in it) and, where the present keys may be ranked (may_rank), their number at
// `distinct`: the ranks are written where they take fewer radix passes than range_bits.
template <typename Unused = void>
__global__ void plan_two_way_split(const std::uint64_t* words, const std::uint64_t* distinct, bool may_rank,
                                   int range_bits, std::uint64_t n, std::uint32_t me, std::uint64_t min_ordered,
                                   std::uint64_t count, TwoWaySplit* out) {
  TwoWaySplit s = two_way_split(n, me, words[0], words[1], words + 2, min_ordered, count);
  s.rank_bits = may_rank ? present_rank_bits(*distinct, range_bits) : 0;
  *out = s;
}

// Whether an element lies in `slot` (0 below the boundary key, 1 equal, 2 above).
template <typename K>
struct InSlot {
  const TwoWaySplit* split;
  std::uint32_t slot;
  template <typename Pair>
  __device__ bool operator()(const Pair& e) const {
    const std::uint64_t key = split->key;
    return boundary_key_slot(static_cast<std::uint64_t>(KeyTraits<K>::ordered(thrust::get<0>(e))), &key, 1) == slot;
  }
};

// The j-th element of a slot at its place: the slot's first place in key order plus j, turned
// own piece first; its key as its rank among the present keys where the plan says so, in two
// bytes where the rank fits them (keys then holds 2-byte ranks: ranks_in_two_bytes).
template <typename K, typename V>
struct PlaceInSlot {
  const TwoWaySplit* split;
  std::uint32_t slot;
  const std::uint32_t* present_through;  // where the plan ranks the keys
  std::uint64_t min_ordered;
  K* keys;
  V* vals;
  template <typename Pair>
  __device__ void operator()(std::ptrdiff_t j, const Pair& e) const {
    const TwoWaySplit s = *split;
    const std::uint64_t first = slot == 0 ? 0 : slot == 1 ? s.below : s.below + s.equal;
    const std::uint64_t place = own_first_place(first + static_cast<std::uint64_t>(j), s.own_begin, s.count);
    const K key = thrust::get<0>(e);
    const auto bin = static_cast<std::uint64_t>(KeyTraits<K>::ordered(key)) - min_ordered;
    if (ranks_in_two_bytes(s.rank_bits))
      reinterpret_cast<std::uint16_t*>(keys)[place] = static_cast<std::uint16_t>(present_through[bin] - 1);
    else
      keys[place] = s.rank_bits ? static_cast<K>(present_through[bin] - 1) : key;
    vals[place] = thrust::get<1>(e);
  }
};

// Splits count pairs from (keys, vals) into (keys_out, vals_out) by the plan at `split`;
// present_through: the present bins up to each bin where the plan ranks the keys. selected: two
// words for CUB's part counts. With temp null, sets temp_bytes only.
template <typename K, typename V>
void split_at_boundary(void* temp, std::size_t& temp_bytes, const K* keys, const V* vals, std::uint64_t count,
                       const TwoWaySplit* split, const std::uint32_t* present_through, std::uint64_t min_ordered,
                       K* keys_out, V* vals_out, std::uint64_t* selected, cudaStream_t stream) {
  const auto in = thrust::make_zip_iterator(thrust::make_tuple(keys, vals));
  auto out = [&](std::uint32_t slot) {
    return thrust::make_tabulate_output_iterator(
        PlaceInSlot<K, V>{split, slot, present_through, min_ordered, keys_out, vals_out});
  };
  SB_CUDA_CHECK(cub::DevicePartition::If(temp, temp_bytes, in, out(0), out(1), out(2), selected,
                                         static_cast<std::int64_t>(count), InSlot<K>{split, 0}, InSlot<K>{split, 1},
                                         stream));
}

// The partition's temporary storage for up to `capacity` pairs.
template <typename K, typename V>
std::size_t split_at_boundary_bytes(std::uint64_t capacity) {
  std::size_t bytes = 0;
  split_at_boundary<K, V>(nullptr, bytes, nullptr, nullptr, capacity, nullptr, nullptr, 0, nullptr, nullptr, nullptr,
                          nullptr);
  return bytes;
}

}  // namespace sb::dist
