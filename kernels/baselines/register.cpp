#include "baselines.hpp"

namespace sb {

void register_baselines(Registry& r) {
  baselines::add_cub_radix(r);
  baselines::add_cub_merge(r);
  baselines::add_thrust(r);
  baselines::add_cpu_sorts(r);
}

}  // namespace sb
