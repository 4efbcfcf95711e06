// The paper's CUDA kernels (seed 004, section 5, figures 1-5), one thread per item and
// 256-thread blocks as printed. Each names the algorithm line it implements.
// Departures, all for correctness: indices are 64-bit; a thread past the end still reaches
// the __syncthreads() (the printed kernels return before it, or call it inside a branch,
// which is undefined when a block diverges); OneHPTail stops at i < range (the printed
// `i > maxVal - minVal` test reads Ap[range]).
#pragma once

#include <cstdint>

namespace sb::hp::paper {

constexpr unsigned kBlock = 256;

__device__ __forceinline__ std::uint64_t thread_index() {
  return blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
}

// Figure 1, Algorithm 1 Histogram: a coalesced read, a barrier, then the atomic.
__global__ void incCnt(std::uint64_t n, const std::uint32_t* a, std::uint32_t* cnt, std::uint32_t min_val) {
  const std::uint64_t i = thread_index();
  const std::uint32_t pos = i < n ? a[i] - min_val : 0;
  __syncthreads();
  if (i < n) atomicAdd(&cnt[pos], 1u);
}

// Algorithm 1 Prefix-Sums, first step: data[from] += init before CUB's inclusive sum.
__global__ void addInit(std::uint32_t* first, std::uint32_t init) { *first += init; }

// Figure 2, Algorithm 3 lines 3-5: bin i writes its value at the rank Ap[i-1] when non-empty.
__global__ void OneHPTail(std::uint32_t min_val, std::uint64_t range, const std::uint32_t* Ap, std::uint32_t* y) {
  const std::uint64_t i = thread_index();
  if (i >= range) return;
  if (i == 0) {
    if (Ap[0]) y[0] = min_val;
  } else if (Ap[i - 1] != Ap[i]) {
    y[Ap[i - 1]] = min_val + static_cast<std::uint32_t>(i);
  }
}

// Figure 3, Algorithm 5 lines 2-3: A01[i] = (A[i] > 0).
__global__ void binarize(std::uint64_t n, const std::uint32_t* cnt, std::uint32_t* cnt01) {
  const std::uint64_t i = thread_index();
  if (i >= n) return;
  cnt01[i] = cnt[i] > 0 ? 1 : 0;
}

// Figure 4, Algorithm 5 lines 7-11: the non-empty bins, compacted to C[1..len], iC[1..len].
__global__ void compressA01p(std::uint32_t min_val, std::uint64_t range, const std::uint32_t* A,
                             const std::uint32_t* A01p, std::uint32_t* C, std::uint32_t* iC) {
  const std::uint64_t i = thread_index();
  const bool live = i < range && A[i] != 0;
  const std::uint32_t x = live ? A01p[i] : 0;
  const std::uint32_t y = live ? A[i] : 0;
  __syncthreads();
  if (live) {
    C[x] = y;
    iC[x] = min_val + static_cast<std::uint32_t>(i);
  }
}

// Figure 5, Algorithm 5 line 16: B[Cp[j]] = iC[j+1] - iC[j] for j < len. len = A01p[range-1]
// is read here on the device (the paper copies it to the host, a synchronization).
__global__ void expandToB(const std::uint32_t* len_at, const std::uint32_t* Cp, const std::uint32_t* iC,
                          std::uint32_t* B) {
  const std::uint64_t i = thread_index();
  const bool live = i < *len_at;
  const std::uint32_t x = live ? Cp[i] : 0;
  __syncthreads();
  if (live) B[x] = iC[i + 1] - iC[i];
}

}  // namespace sb::hp::paper
