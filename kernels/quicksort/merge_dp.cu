// merge-dp: merge sort with Dynamic Parallelism (seed 002, section 5, "Merge" in table 2).
// A block splits its range in halves, launches one child per half (cudaStreamFireAndForget)
// and its own merge into cudaStreamTailLaunch: under CDP2 a tail launch starts only after
// the launching grid and all the work it launched have completed, which replaces the
// paper's device-side synchronization. Ranges below 32 keys are sorted by selection sort.
// The input stays in buf[0] until the leaves read it; a range sorted "into o" ends in buf[o],
// its halves are sorted into 1 - o and merged from there.
#include "quicksort.hpp"
#include "quicksort_device.cuh"
#include "sortbench/core/cuda_check.hpp"

namespace sb::qs {
namespace {

constexpr int kMergeThreads = 128;
constexpr int kMergeItems = 8;  // outputs per thread per pass of the merge
constexpr int kDeepestChild = kMaxNestingDepth - 2;

// Merges src[begin, begin+half) and src[begin+half, begin+len) into dst; every thread finds
// its kMergeItems outputs by a merge-path search, so any grid size works.
template <typename T>
__global__ void merge_halves_kernel(const T* src, T* dst, u64 begin, u64 half, u64 len) {
  const T* a = src + begin;
  const T* bb = src + begin + half;
  const u64 nb = len - half;
  for (u64 c = u64(blockIdx.x) * blockDim.x * kMergeItems; c < len; c += u64(gridDim.x) * blockDim.x * kMergeItems) {
    u64 d = c + u64(threadIdx.x) * kMergeItems;
    if (d >= len) continue;
    const u64 end = d + kMergeItems < len ? d + kMergeItems : len;
    u64 i = merge_path(a, half, bb, nb, d);
    u64 j = d - i;
    for (; d < end; ++d) {
      const bool take_a = j >= nb || (i < half && !(bb[j] < a[i]));
      dst[begin + d] = take_a ? a[i++] : bb[j++];
    }
  }
}

__device__ unsigned merge_grid(u64 len) {
  const u64 per_block = u64(kMergeThreads) * kMergeItems;
  const u64 blocks = (len + per_block - 1) / per_block;
  return unsigned(blocks < 65535 ? blocks : 65535);
}

// The whole range by this block: copy the input into buf[out], bitonic sort it there.
template <typename T>
__device__ void block_sort_into(Buffers<T> b, u64 begin, u64 len, int out) {
  if (out != 0) group_copy(BlockGroup{int(blockDim.x)}, b.buf[0], b.buf[1], begin, len);
  __syncthreads();
  block_bitonic_sort(b.buf[out] + begin, len);
}

template <typename T>
__device__ void thread_sort_into(Buffers<T> b, u64 begin, u64 len, int out) {
  if (out != 0)
    for (u64 i = 0; i < len; ++i) b.buf[1][begin + i] = b.buf[0][begin + i];
  selection_sort(b.buf[out] + begin, len);
}

template <typename T>
__global__ void merge_dp_kernel(Buffers<T> b, u64 begin, u64 len, int out, int depth) {
  __shared__ int fallback[3];
  if (len < kSelectionBelow) {
    if (threadIdx.x == 0) thread_sort_into(b, begin, len, out);
    return;
  }
  const u64 half = len / 2;
  const int in = 1 - out;
  if (threadIdx.x == 0) {
    // The merge first: if the tail launch is refused, nothing was launched and the block
    // sorts the range itself.
    fallback[2] = depth + 1 > kDeepestChild;
    if (!fallback[2]) {
      merge_halves_kernel<<<merge_grid(len), kMergeThreads, 0, cudaStreamTailLaunch>>>(b.buf[in], b.buf[out], begin,
                                                                                        half, len);
      fallback[2] = cudaGetLastError() != cudaSuccess;
    }
    for (int h = 0; h < 2; ++h) {
      const u64 hb = h == 0 ? begin : begin + half;
      const u64 hl = h == 0 ? half : len - half;
      fallback[h] = 0;
      if (fallback[2]) continue;
      if (hl < kSelectionBelow) {
        thread_sort_into(b, hb, hl, in);
      } else {
        merge_dp_kernel<<<1, kMergeThreads, 0, cudaStreamFireAndForget>>>(b, hb, hl, in, depth + 1);
        fallback[h] = cudaGetLastError() != cudaSuccess;
      }
    }
  }
  __syncthreads();
  if (fallback[2]) {
    block_sort_into(b, begin, len, out);
    return;
  }
  for (int h = 0; h < 2; ++h)
    if (fallback[h]) {
      block_sort_into(b, h == 0 ? begin : begin + half, h == 0 ? half : len - half, in);
      __syncthreads();
    }
}

}  // namespace

template <typename T>
void launch_merge_dp(T* const keys[2], std::uint64_t n, cudaStream_t stream) {
  if (n < 2) return;
  const Buffers<T> b{{keys[0], keys[1]}};
  merge_dp_kernel<<<1, kMergeThreads, 0, stream>>>(b, 0, n, 0, 0);
  SB_CUDA_CHECK_LAUNCH();
}

template void launch_merge_dp<std::uint32_t>(std::uint32_t* const[2], std::uint64_t, cudaStream_t);
template void launch_merge_dp<std::int32_t>(std::int32_t* const[2], std::uint64_t, cudaStream_t);
template void launch_merge_dp<float>(float* const[2], std::uint64_t, cudaStream_t);

}  // namespace sb::qs
