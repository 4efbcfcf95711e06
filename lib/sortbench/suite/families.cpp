// The registry of every family: the explicit list of family registration calls, since
// static-initializer registration is silently dropped from static libraries. Its own target
// (sortbench_registry), so that lib's parts and the kernels never link the families.
#include "sortbench/algo/registry.hpp"
#include "sortbench/suite/sort_once.hpp"

namespace sb {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_baselines(reg);
    register_hp(reg);
    register_bitonic(reg);
    register_radix(reg);
    register_quicksort(reg);
    register_distributed(reg);
    register_outofcore(reg);
    register_auto(reg);
    return reg;
  }();
  return r;
}

}  // namespace sb
