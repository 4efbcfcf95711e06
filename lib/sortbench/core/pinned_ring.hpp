// A few pinned chunks that columns pass through between host code and the GPU: the copy of one
// chunk runs while the next is read (or the previous one written). Allocated once, a few MiB:
// pinning a column's size would cost more than the copy itself. A ring for less than a slot's
// worth (a small column) pins only that much: pinning is a driver call that serializes the
// processes sharing a GPU, and its cost grows with the bytes. The i-th chunk of a stream uses
// slot i % kSlots. Files stream through it into the GPU (input/) and sorted columns out of it
// (sink/'s output sinks).
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace sb {

class PinnedRing {
 public:
  static constexpr int kSlots = 4;
  // Small enough that a chunk is still in cache while it is byte-swapped, scanned and copied.
  static constexpr std::uint64_t kSlotBytes = std::uint64_t{8} << 20;
  // Slots of largest_chunk bytes where that is less than kSlotBytes. Throws Error(device_memory)
  // when pinned host memory cannot be had (core/host_memory.hpp).
  explicit PinnedRing(std::uint64_t largest_chunk = kSlotBytes);
  ~PinnedRing();
  PinnedRing(const PinnedRing&) = delete;
  PinnedRing& operator=(const PinnedRing&) = delete;
  unsigned char* slot(std::uint64_t i) const { return base_ + (i % kSlots) * slot_bytes_; }
  std::uint64_t slot_bytes() const { return slot_bytes_; }
  // Waits for the copy last queued through slot i.
  void wait(std::uint64_t i);
  // Queues a copy through slot i and marks when it is done.
  void copy(std::uint64_t i, void* dst, const void* src, std::uint64_t bytes, cudaMemcpyKind kind, cudaStream_t s);

 private:
  std::uint64_t slot_bytes_;
  unsigned char* base_ = nullptr;
  cudaEvent_t copied_[kSlots] = {};
};

// Hands a device column to consume(host_chunk, first_byte, bytes) in order, through the ring:
// the download of the next chunks runs while the consumer handles this one.
template <typename Consume>
void download_through(PinnedRing& ring, const void* d_src, std::uint64_t bytes, cudaStream_t stream,
                      Consume&& consume) {
  const std::uint64_t kChunk = ring.slot_bytes();
  const std::uint64_t chunks = (bytes + kChunk - 1) / kChunk;
  auto queue = [&](std::uint64_t c) {
    ring.wait(c);
    ring.copy(c, ring.slot(c), static_cast<const unsigned char*>(d_src) + c * kChunk,
              std::min(kChunk, bytes - c * kChunk), cudaMemcpyDeviceToHost, stream);
  };
  for (std::uint64_t c = 0; c < chunks && c < PinnedRing::kSlots; ++c) queue(c);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    ring.wait(c);
    consume(ring.slot(c), c * kChunk, std::min(kChunk, bytes - c * kChunk));
    if (c + PinnedRing::kSlots < chunks) queue(c + PinnedRing::kSlots);
  }
}

}  // namespace sb
