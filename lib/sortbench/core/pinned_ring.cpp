#include "sortbench/core/pinned_ring.hpp"

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"

namespace sb {

PinnedRing::PinnedRing() {
  void* base = nullptr;
  if (cudaMallocHost(&base, kSlots * kSlotBytes) != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(ExitCode::internal, "cannot allocate pinned host memory for the copies to and from the GPU");
  }
  base_ = static_cast<unsigned char*>(base);
  for (auto& e : copied_) SB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

PinnedRing::~PinnedRing() {
  for (auto& e : copied_)
    if (e) cudaEventDestroy(e);
  cudaFreeHost(base_);
}

void PinnedRing::wait(std::uint64_t i) { SB_CUDA_CHECK(cudaEventSynchronize(copied_[i % kSlots])); }

void PinnedRing::copy(std::uint64_t i, void* dst, const void* src, std::uint64_t bytes, cudaMemcpyKind kind,
                      cudaStream_t s) {
  SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
  SB_CUDA_CHECK(cudaEventRecord(copied_[i % kSlots], s));
}

}  // namespace sb
