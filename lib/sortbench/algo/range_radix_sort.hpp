// CUB radix sort of scalar keys on only the bits their realized range spans: the
// cub-radix-bits baseline, and the hand-off of algorithms that pick CUB for an input
// (hp-auto). Keys become ordered(key) - ordered(min) in place, are sorted on
// bit_width(max - min) bits, and are mapped back; unsigned keys whose own high bits are zero
// skip the mapping when that costs no extra 8-bit digit pass, and a range that needs every
// digit of the key sorts the keys whole (the two mapping passes would buy no digit).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/core/random.hpp"

namespace sb {

// How range_radix_sort sorts keys of type `key` between two ordered bounds.
enum class RangeRadixWay {
  already_sorted,  // one distinct key
  whole_keys,      // the range needs every 8-bit digit: CUB on the keys as they are
  own_bits,        // unsigned keys on [0, bit_width(max)): no more digits than the offsets'
  offsets,         // ordered(key) - ordered(min) on bit_width(max - min) bits, mapped back
};
struct RangeRadixPlan {
  RangeRadixWay way = RangeRadixWay::already_sorted;
  int end_bit = 0;  // the bits CUB sorts on
};

inline RangeRadixPlan range_radix_plan(KeyType key, std::uint64_t min_ordered, std::uint64_t max_ordered) {
  const int key_bits = static_cast<int>(key_bytes(key) * 8);
  const int span_bits = static_cast<int>(bit_width64(max_ordered - min_ordered));
  const int own_bits = static_cast<int>(bit_width64(max_ordered));
  auto digits = [](int bits) { return (bits + 7) / 8; };
  if (span_bits == 0) return {RangeRadixWay::already_sorted, 0};
  if (digits(span_bits) >= digits(key_bits)) return {RangeRadixWay::whole_keys, key_bits};
  if ((key == KeyType::u32 || key == KeyType::u64) && digits(own_bits) <= digits(span_bits))
    return {RangeRadixWay::own_bits, own_bits};
  return {RangeRadixWay::offsets, span_bits};
}

// Workspace of range_radix_sort (CUB's temporary storage for offsets of the key's width).
std::size_t range_radix_sort_bytes(const SortProblem& p);
// Sorts keys[0] (and vals[0] with a payload), stably; returns which buffer holds the result.
// Every scalar key type and every payload.
int range_radix_sort(const SortProblem& p, const DeviceBuffers& b);
// The bits sorted on and whether keys were mapped to offsets, for a result's details.
Details range_radix_sort_details(const SortProblem& p);

}  // namespace sb
