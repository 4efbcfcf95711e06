// Host side of the pass plan shared by radix-lsd-seed and radix-lsd: the digit width
// parameter and the bits the realized keys need (radix_index.hpp, PassPlan).
#include <fmt/format.h>

#include "radix.hpp"
#include "sortbench/core/errors.hpp"

namespace sb::radix {

unsigned radix_bits_param(const SortProblem& p) {
  const long bits = p.param_int("radix-bits", kDefaultRadixBits);
  if (bits < 1 || bits > static_cast<long>(kMaxRadixBits))
    throw UsageError(fmt::format("--radix-bits {} is outside 1..{} for the radix family; give e.g. --radix-bits 8",
                                 bits, kMaxRadixBits));
  return static_cast<unsigned>(bits);
}

PassPlan pass_plan(const SortProblem& p) {
  const unsigned bits = radix_bits_param(p);
  // Every key type either algorithm takes; the word width is the key's Ordered width.
  return dispatch_key<LsdKeys>(p.shape.key, [&](auto k) {
    return make_pass_plan_for<decltype(k)>(bits, p.facts.min_ordered, p.facts.max_ordered);
  });
}

const char* to_string(LsdPhase phase) {
  switch (phase) {
    case LsdPhase::histogram: return "histogram";
    case LsdPhase::scan: return "scan";
    case LsdPhase::scatter: break;
  }
  return "scatter";
}

}  // namespace sb::radix
