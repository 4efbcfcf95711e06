// The facts about an input's keys that algorithms read (docs/architecture.md, "One pipeline"): min
// and max, also in ordered form (exact for every key type), the distinct count where known,
// and whether they were given to the sort or discovered inside its timed region. Every source
// states them its own way (the generator from the keys it made, a file from one pass over it,
// ranks by an all-reduce), so they live here rather than with any one source.
#pragma once

#include <cmath>
#include <cstdint>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/keys.hpp"
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

// A key as a fact's value (float keys: truncated toward zero, infinities clamped to +-2^64);
// shared by the generators and range discovery.
template <typename K>
SB_HD_INLINE wide_t stat_value(const K& k) {
  if constexpr (KeyTraits<K>::is_float) {
    const double limit = 18446744073709551616.0;
    const double v = k < -limit ? -limit : (k > limit ? limit : static_cast<double>(k));
    return static_cast<wide_t>(v);
  } else {
    return static_cast<wide_t>(k);
  }
}

// The ordered-form bounds of a run sorted by '<': when an end is a zero, -0.0 and +0.0 may
// both occur, so the bound covers both.
template <typename K>
SB_HD_INLINE std::uint64_t lowest_ordered(const K& k) {
  if constexpr (KeyTraits<K>::is_float)
    if (k == K(0)) return KeyTraits<K>::ordered(-K(0));
  return KeyTraits<K>::ordered(k);
}
template <typename K>
SB_HD_INLINE std::uint64_t highest_ordered(const K& k) {
  if constexpr (KeyTraits<K>::is_float)
    if (k == K(0)) return KeyTraits<K>::ordered(K(0));
  return KeyTraits<K>::ordered(k);
}

template <typename K>
SB_HD_INLINE bool integral_key(const K& k) {
  if constexpr (KeyTraits<K>::is_float) return static_cast<double>(k) == trunc(static_cast<double>(k));
  else return true;
}

}  // namespace sb
