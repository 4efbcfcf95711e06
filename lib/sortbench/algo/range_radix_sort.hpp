// CUB radix sort of scalar keys on only the bits their realized range spans: the
// cub-radix-bits baseline, and the hand-off of algorithms that pick CUB for an input
// (hp-auto). Keys become ordered(key) - ordered(min) in place, are sorted on
// bit_width(max - min) bits, and are mapped back; u32 keys whose own high bits are zero
// skip the mapping when that costs no extra 8-bit digit pass.
#pragma once

#include <cstddef>

#include "sortbench/algo/algorithm.hpp"

namespace sb {

// Workspace of range_radix_sort (CUB's temporary storage for offsets of the key's width).
std::size_t range_radix_sort_bytes(const SortProblem& p);
// Sorts keys[0] (and vals[0] with a payload), stably; returns which buffer holds the result.
// Every scalar key type and every payload.
int range_radix_sort(const SortProblem& p, const DeviceBuffers& b);
// The bits sorted on and whether keys were mapped to offsets, for a result's details.
Details range_radix_sort_details(const SortProblem& p);

}  // namespace sb
