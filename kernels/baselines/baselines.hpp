// Baseline algorithms every figure compares against (foundation issue, "Baselines").
#pragma once

#include "sortbench/algo/registry.hpp"

#include <string>

namespace sb::baselines {

// What every baseline shares: its family and role, and what it says of itself.
Algorithm baseline(std::string name, Backend backend, bool stable, std::string pick_when, std::string source);

void add_cub_radix(Registry& r);  // cub-radix, cub-radix-bits, cub-radix-pairs
void add_cub_merge(Registry& r);  // cub-merge
void add_thrust(Registry& r);     // thrust-sort
void add_cpu_sorts(Registry& r);  // cpu-std-sort, cpu-parallel-sort

}  // namespace sb::baselines
