// Baseline algorithms every figure compares against (foundation issue, "Baselines").
#pragma once

#include "sortbench/algo/registry.hpp"

namespace sb::baselines {

void add_cub_radix(Registry& r);  // cub-radix, cub-radix-bits, cub-radix-pairs
void add_cub_merge(Registry& r);  // cub-merge
void add_thrust(Registry& r);     // thrust-sort
void add_cpu_sorts(Registry& r);  // cpu-std-sort, cpu-parallel-sort

}  // namespace sb::baselines
