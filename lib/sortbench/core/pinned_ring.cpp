// The pinned ring (pinned_ring.hpp); issue 37: its memory comes from pinned_alloc, so a machine short
// of host memory is told so (exit 4) rather than seeing an internal error.
#include "sortbench/core/pinned_ring.hpp"

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/host_memory.hpp"

namespace sb {

PinnedRing::PinnedRing(std::uint64_t largest_chunk)
    : slot_bytes_(std::min(kSlotBytes, (std::max<std::uint64_t>(largest_chunk, 1) + 4095) / 4096 * 4096)) {
  base_ = static_cast<unsigned char*>(pinned_alloc(kSlots * slot_bytes_, "the copies to and from the GPU"));
  for (auto& e : copied_) SB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

PinnedRing::~PinnedRing() {
  for (auto& e : copied_)
    if (e) cudaEventDestroy(e);
  pinned_free(base_);
}

void PinnedRing::wait(std::uint64_t i) { SB_CUDA_CHECK(cudaEventSynchronize(copied_[i % kSlots])); }

void PinnedRing::copy(std::uint64_t i, void* dst, const void* src, std::uint64_t bytes, cudaMemcpyKind kind,
                      cudaStream_t s) {
  SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
  SB_CUDA_CHECK(cudaEventRecord(copied_[i % kSlots], s));
}

}  // namespace sb
