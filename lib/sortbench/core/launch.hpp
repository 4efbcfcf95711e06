// Launch-shape helpers for grid-stride kernels.
#pragma once

#include <cstdint>

namespace sb {

// Enough blocks to give each thread about one element, capped so that grid-stride loops
// take over for very large n.
inline unsigned grid_for(std::uint64_t n, unsigned block, std::uint64_t max_blocks = 65535u * 16) {
  std::uint64_t blocks = (n + block - 1) / block;
  if (blocks == 0) blocks = 1;
  return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

}  // namespace sb
