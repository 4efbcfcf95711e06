#include "baselines.hpp"

#include <utility>

namespace sb {

Algorithm baselines::baseline(std::string name, Backend backend, bool stable, std::string pick_when,
                              std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "baselines";
  a.role = AlgorithmRole::baseline;
  a.pick_when = std::move(pick_when);
  a.backend = backend;
  a.stable = stable;
  a.source = std::move(source);
  return a;
}

void register_baselines(Registry& r) {
  baselines::add_cub_radix(r);
  baselines::add_cub_merge(r);
  baselines::add_thrust(r);
  baselines::add_cpu_sorts(r);
}

}  // namespace sb
