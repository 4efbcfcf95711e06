// The key-value path of the fast H-P versions as sequential C++, the reference its CPU test
// checks over every key width and payload width: histogram of word_offset(key, minVal) over
// range -> exclusive prefix sums (each bin's first output position) -> every (key, value)
// pair to its bin's next slot. In input order, as here, the scatter is stable; the GPU
// kernel (scatter_pairs) takes the slots by atomics, in any order.
#pragma once

#include <cstdint>
#include <vector>

#include "hp_index.hpp"

namespace sb::hp {

template <typename W, typename V>
void scatter_pairs_cpu(const W* keys, const V* vals, std::uint64_t n, W min_word, std::uint64_t range, W* keys_out,
                       V* vals_out) {
  std::vector<std::uint32_t> cursor(range, 0);
  for (std::uint64_t i = 0; i < n; ++i) ++cursor[word_offset<W>(keys[i], min_word)];
  std::uint32_t sum = 0;
  for (auto& c : cursor) {
    const std::uint32_t count = c;
    c = sum;
    sum += count;
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t at = cursor[word_offset<W>(keys[i], min_word)]++;
    keys_out[at] = keys[i];
    vals_out[at] = vals[i];
  }
}

}  // namespace sb::hp
