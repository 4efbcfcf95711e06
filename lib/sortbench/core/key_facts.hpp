// The facts about an input's keys that algorithms read (design.md round 3, "key facts"): min
// and max, also in ordered form (exact for every key type), the distinct count where known,
// and whether they were given to the sort or discovered inside its timed region. Every source
// states them its own way (the generator from the keys it made, a file from one pass over it,
// ranks by an all-reduce), so they live here rather than with any one source.
#pragma once

#include <cstdint>

#include "sortbench/core/types.hpp"

namespace sb {

// The ordered-form bounds of a set of keys (KeyTraits::ordered): what range discovery finds.
struct OrderedBounds {
  std::uint64_t min_ordered = 0;
  std::uint64_t max_ordered = 0;
};

// u32x4 rows: over all four words. min and max are the same keys as values (float keys:
// truncated toward zero, infinities clamped to +-2^64).
struct KeyFacts {
  std::uint64_t n = 0;
  wide_t min = 0;
  wide_t max = 0;
  std::uint64_t len = 0;  // distinct values (floats: as '<' tells them apart, so -0.0 == +0.0); 0: unknown
  std::uint64_t min_ordered = 0;
  std::uint64_t max_ordered = 0;
  bool integral = true;    // every key is an integer (float keys may not be)
  double sortedness = -1;  // fraction of ascending (non-decreasing) neighbours; < 0: not measured
  // min and max were discovered from the keys inside the timed region (--range measured)
  // rather than handed to the sort with the input.
  bool discovered = false;
};

}  // namespace sb
