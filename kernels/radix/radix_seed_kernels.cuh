// radix-lsd-seed kernels: seed 001 section 22.8 (accumulator, up_sweep, down_sweep,
// rearrange), one digit pass each.
// Departures from the printed OpenCL:
//   - a pass reads a radix-bits digit of a word (the chapter's digit is a whole word with
//     BIN_SIZE = 4 values); get_element's mask becomes ordered_word(key, word).
//   - down_sweep keeps the swapped count in 32 bits (the printed uchar truncates above 255).
//   - rearrange copies the bin offsets into shared memory before its sequential walk
//     (same order, same single thread; the chapter reads global count[]).
//   - an index payload travels with the rows.
#pragma once

#include <cstdint>

#include "radix_index.hpp"
#include "sortbench/core/types.hpp"

namespace sb::radix::seed {

// The chapter's accumulator: one work item per row, atomic_inc of its bin.
template <typename K>
__global__ void accumulator(const K* data, std::uint64_t n, DigitSelect sel, std::uint32_t* count) {
  for (std::uint64_t gid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; gid < n;
       gid += std::uint64_t{gridDim.x} * blockDim.x)
    atomicAdd(&count[key_digit(data[gid], sel)], 1u);
}

__global__ void up_sweep(std::uint32_t* count, unsigned stage, std::uint32_t work_items) {
  const std::uint32_t gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < work_items) blelloch_up_step(count, gid, stage);
}

__global__ void down_sweep(std::uint32_t* count, unsigned stage, std::uint32_t work_items) {
  const std::uint32_t gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < work_items) blelloch_down_step(count, gid, stage);
}

// One thread walks the rows in input order: result[count[v]++] = row (stable by construction).
template <typename K>
__global__ void rearrange(const K* __restrict__ data, const index_t* __restrict__ vals, const std::uint32_t* count,
                          DigitSelect sel, std::uint64_t n, K* __restrict__ result, index_t* __restrict__ result_vals) {
  __shared__ std::uint32_t next[radix_bins(kMaxRadixBits)];
  for (unsigned d = 0; d < radix_bins(sel.bits); ++d) next[d] = count[d];
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t pos = next[key_digit(data[i], sel)]++;
    result[pos] = data[i];
    if (vals) result_vals[pos] = vals[i];
  }
}

}  // namespace sb::radix::seed
