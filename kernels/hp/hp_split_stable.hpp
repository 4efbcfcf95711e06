// hp-split-stable (issue 40, beyond seed 004): a stable key-value H-P sort that partitions the
// pairs by bucket in input order, then counting-sorts each bucket's chunks by bin (docs/hp.md,
// "Stable key-value H-P"). What hp-auto's rule (hp_fast_rule.cpp) and the family's registration
// call of it; the launches are in hp_split_stable.cu. Keys alone go to hp-tiled's keys path
// (equal keys alone cannot show an order).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/core/device_context.hpp"

namespace sb::hp {

std::optional<std::string> split_stable_unsupported(const SortProblem& p);
std::size_t split_stable_bytes(const SortProblem& p);
void prepare_split_stable(const SortProblem& p, const DeviceContext& device);
int run_split_stable(const SortProblem& p, const DeviceBuffers& b);
Details split_stable_details(const SortProblem& p);
void add_split_stable(Registry& r);

}  // namespace sb::hp
