// The out-of-core family's registration (issue 37): ooc-hp and ooc-sort.
#include "outofcore.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb {

void register_outofcore(Registry& r) {
  r.add(ooc::make_ooc_hp());
  r.add(ooc::make_ooc_sort());
}

}  // namespace sb
