#include "sortbench/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sortbench/errors.hpp"

namespace sb {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_baselines(reg);
    register_hp(reg);
    register_bitonic(reg);
    register_radix(reg);
    register_quicksort(reg);
    return reg;
  }();
  return r;
}

}  // namespace sb
