// Warp-level grouping shared by the kernel families: which lanes of a warp hold the same small
// label (a digit, a bucket, a destination slot). One ballot per label bit, as CUB's
// MatchAny<bits> does it: __match_any_sync made hp-hybrid's scatter compute bound
// (docs/hp.md, lanes_with_digit).
#pragma once

#include <cstdint>

namespace sb {

// The label of a lane with no item: it matches no lane.
constexpr std::uint32_t kNoDigit = ~0u;

// The lanes of this warp whose digit equals this lane's, over the digit's low `bits` bits (the
// same in every lane); none for a lane holding kNoDigit. A loop over the digit's own bits,
// not unrolled to the widest digit, which was slower (docs/hp.md, lanes_with_digit).
__device__ __forceinline__ unsigned lanes_with_digit(std::uint32_t digit, unsigned bits) {
  unsigned peers = __ballot_sync(0xffffffffu, digit != kNoDigit);
  for (unsigned k = 0; k < bits; ++k) {
    const bool set = digit >> k & 1u;
    const unsigned with = __ballot_sync(0xffffffffu, set);
    peers &= set ? with : ~with;
  }
  return digit != kNoDigit ? peers : 0u;
}

}  // namespace sb
