// The bitonic family's registration (its algorithms land with their own issue).
#include "sortbench/registry.hpp"

namespace sb {

void register_bitonic(Registry&) {}

}  // namespace sb
