// dist-sample-sort's partition-first exchange (issue 38, item 6), selected by
// `--param exchange=partition` (`sort`, the sort-first exchange, when absent). The sample sort
// of the SIGMOD 2022 multi-GPU sorting study (Maltenberger, Ilic, Tolovski, Rabl) with PSRS's
// splitters (Shi and Schaeffer 1992), reordered so the all-to-all runs beside a local sort
// instead of after it; dist_sample_sort_partition.cu says how.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sortbench/algo/ranks.hpp"

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

}  // namespace sb::dist
