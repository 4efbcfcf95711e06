// The out-of-core family (issue 37): sorts of inputs larger than the GPU, which stay in host
// memory (or a file) and stream through it in chunks, on the streamed placement of lib
// (algo/streamed.hpp). They compose the in-core pieces (H-P's histogram and prefix sums, CUB's
// radix sort) under the chunk planner of outofcore_index.hpp. docs/outofcore.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sortbench/algo/streamed.hpp"

namespace sb::ooc {

Algorithm make_ooc_hp();    // ooc_hp.cu: streamed H-P, keys cross the link once each way
Algorithm make_ooc_sort();  // ooc_sort.cu: sorted runs cut by selection, twice each way

// The largest chunk ooc-hp plans, in bytes of keys: --param chunk_mib, else the chunk its GPU's
// profile measured fastest for this input's bytes (sortbench tune), else kMaxChunkBytes.
// UsageError for a chunk_mib outside 1 to 65536.
std::uint64_t hp_chunk_cap_bytes(const SortProblem& p);

// A member of the family: streamed, so its workspace is the placement's whole GPU allowance.
inline Algorithm family_member(std::string name, std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "outofcore";
  a.role = AlgorithmRole::fast_variant;
  a.backend = Backend::gpu;
  a.source = std::move(source);
  a.workspace_bytes = [](const SortProblem&) -> std::size_t { return 0; };
  return a;
}

}  // namespace sb::ooc
