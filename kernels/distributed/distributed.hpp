// The distributed family (issue 15): sorts over several GPUs, one NCCL rank per GPU, written
// against the rank model of lib (algo/ranks.hpp); the ranks placement fills, times and verifies.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "sortbench/algo/ranks.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::dist {

Algorithm make_dist_hp();           // dist_hp.cu: histograms cross the link, keys do not
Algorithm make_dist_sample_sort();  // dist_sample_sort.cu: every key crosses once
// dist_auto.cu: chooses one of them, or one GPU, by the rule in dist_cost_model.hpp.
Algorithm make_dist_auto(const Algorithm& hp, const Algorithm& sample_sort);

// The same problem with a slice's n: what a rank's local part of a family sort sees.
inline SortProblem slice_problem(const SortProblem& p, std::uint64_t slice) {
  SortProblem local = p;
  local.shape.n = slice;
  return local;
}
// The slice's keys alone: what hp's histogram of them sees (its variant, workspace and kernel
// set-up must not follow the payload, which the histogram never reads).
inline SortProblem slice_keys_problem(const SortProblem& p, std::uint64_t slice) {
  SortProblem local = slice_problem(p, slice);
  local.shape.payload = Payload::none;
  return local;
}

// dist-hp with a payload (dist_hp_pairs.cu): exact splitters from the global histogram, pairs
// exchanged once and merged; the rank's workspace and its run.
// Whether they split first (two ranks, unless --param exchange=sort); UsageError for an
// exchange that is not sort or partition.
bool dist_hp_pairs_splits_first(const SortProblem& p, int world);
// Whether split first may sort on the present keys' ranks (--param sort_on=auto, the default)
// or sorts on the range's bits (range); UsageError for anything else.
bool dist_hp_pairs_may_rank_keys(const SortProblem& p);
std::size_t dist_hp_pairs_workspace_bytes(const SortProblem& p, const RankSlice& s, std::uint64_t capacity, int world);
RankResult run_dist_hp_pairs(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                             const PhaseMarks& marks);

// A member of the family: what each rank runs (its workspace is sized per rank by the ranks
// placement); the caller adds key types, constraints and further support checks.
inline Algorithm distributed_algorithm(std::string name, std::string source, RankAlgorithm ranks) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "distributed";
  a.role = AlgorithmRole::distributed;
  a.backend = Backend::gpu;
  a.source = std::move(source);
  a.workspace_bytes = [](const SortProblem&) -> std::size_t { return 0; };
  a.ranks = std::make_shared<const RankAlgorithm>(std::move(ranks));
  return a;
}

}  // namespace sb::dist
