// How n elements split over G ranks (or G shards of a file, or G chunks): rank r owns global
// positions [slice_begin(r), slice_begin(r + 1)) with slice_begin(r) = floor(r * n / G); and
// whether the ranks' sorted slices are in order (and stable) across their boundaries. Shared by
// the ranks placement, the sources' shards and the distributed family; no CUDA includes
// (CPU-tested in tests/distributed/dist_index_test.cpp).
#pragma once

#include <cstdint>

#include "sortbench/core/hd.hpp"

namespace sb {

// floor(r * n / G) without overflow for n < 2^64 and G < 2^32 (the product may pass 2^64).
SB_HD_INLINE std::uint64_t slice_begin(std::uint64_t r, std::uint64_t n, std::uint64_t world) {
  const std::uint64_t q = n / world, rem = n % world;
  return r * q + (r * rem) / world;
}
SB_HD_INLINE std::uint64_t slice_size(std::uint64_t r, std::uint64_t n, std::uint64_t world) {
  return slice_begin(r + 1, n, world) - slice_begin(r, n, world);
}
// The most elements one rank's slice holds: ceil(n / G).
SB_HD_INLINE std::uint64_t largest_slice(std::uint64_t n, std::uint64_t world) { return (n + world - 1) / world; }
// The rank whose slice holds global position pos < n.
SB_HD_INLINE std::uint64_t slice_owner(std::uint64_t pos, std::uint64_t n, std::uint64_t world) {
  std::uint64_t lo = 0, hi = world - 1;  // the last rank r with slice_begin(r) <= pos
  while (lo < hi) {
    const std::uint64_t mid = (lo + hi + 1) / 2;
    if (slice_begin(mid, n, world) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// One rank's output as the boundary check sees it: its count, first and last key (ordered bits).
struct SliceEnds {
  std::uint64_t count = 0, first = 0, last = 0;
};
// The first rank whose first key lies below the last key of the nearest non-empty rank before
// it (ranks may be empty), or -1 when the slices are in order; `previous` gets that rank.
inline int first_boundary_violation(const SliceEnds* ends, int world, int* previous) {
  bool have = false;
  std::uint64_t last = 0;
  int last_rank = 0;
  for (int r = 0; r < world; ++r) {
    if (!ends[r].count) continue;
    if (have && ends[r].first < last) {
      *previous = last_rank;
      return r;
    }
    have = true;
    last = ends[r].last;
    last_rank = r;
  }
  return -1;
}

// The input positions of a rank's first and last output elements (decoded from generated
// values), for the stability check across rank boundaries.
struct SliceEndPositions {
  std::uint64_t first = 0, last = 0;
};
// How many boundaries between consecutive non-empty ranks join equal keys whose input
// positions decrease: a stable result has none.
inline std::uint64_t unstable_boundaries(const SliceEnds* ends, const SliceEndPositions* positions, int world) {
  std::uint64_t unstable = 0;
  int before = -1;
  for (int r = 0; r < world; ++r) {
    if (!ends[r].count) continue;
    if (before >= 0 && ends[before].last == ends[r].first && positions[before].last > positions[r].first) ++unstable;
    before = r;
  }
  return unstable;
}

}  // namespace sb
