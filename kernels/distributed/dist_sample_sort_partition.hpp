// dist-sample-sort's partition-first exchange (issue 38, item 6), selected by
// `--param exchange=partition` (`sort`, the sort-first exchange, when absent), and dist-hp's
// with a payload on two ranks (issue 50). The sample sort
// of the SIGMOD 2022 multi-GPU sorting study (Maltenberger, Ilic, Tolovski, Rabl) with PSRS's
// splitters (Shi and Schaeffer 1992), reordered so the all-to-all runs beside a local sort
// instead of after it; dist_sample_sort_partition.cu says how.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sortbench/algo/ranks.hpp"
#include "sortbench/core/element.hpp"

namespace sb::dist {

enum class SampleSortExchange { sort_first, partition_first };

// --param exchange=sort|partition; UsageError for anything else.
SampleSortExchange sample_sort_exchange(const SortProblem& p);

// The RankAlgorithm parts of the partition-first exchange (dist_sample_sort.cu dispatches).
std::uint64_t partition_first_capacity(std::uint64_t n, int world);
std::size_t partition_first_workspace_bytes(const SortProblem& p, const RankSlice& s, std::uint64_t capacity,
                                            const DeviceContext& d);
RankResult run_partition_first(const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                               const PhaseMarks& marks);
Details partition_first_details(int world);

// dist-hp with a payload on two ranks (dist_hp_pairs.cu) splits its unsorted slice at the
// boundary key (dist_split_at_boundary.cuh) instead of by splitters, then exchanges, sorts and
// merges as the sample sort does; the cuts are exact, so no capacity margin.
using PairValues = TypeList<std::uint32_t, std::uint64_t>;
struct BoundarySplit {
  std::vector<std::uint64_t> counts;  // [q * world + d]: elements rank q sends rank d
  std::size_t done_phase = 0;         // marked at the end
  // Where rank_bits > 0, the split wrote each key's rank among the present keys
  // (dist_index.hpp present_bin): the pairs sort on [0, rank_bits), and the ranks map back to
  // keys at the end.
  int rank_bits = 0;
  const std::uint32_t* bin_of_rank = nullptr;  // distinct keys: each rank's bin
};
std::size_t boundary_split_workspace_bytes(const SortProblem& p, const RankSlice& s, std::uint64_t capacity,
                                           int world);
// The split slice in keys[1] (values[1]); workspace: boundary_split_workspace_bytes of it.
RankResult run_boundary_split(const SortProblem& p, const RankSlice& s, const RankBuffers& b, void* workspace,
                              const Rank& rank, const PhaseMarks& marks, const BoundarySplit& split);

}  // namespace sb::dist
