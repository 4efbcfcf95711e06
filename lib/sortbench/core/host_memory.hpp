// Host memory for out-of-core work (issue 37): how much the machine has left, and pinned
// (page-locked) buffers whose failure is a user's problem with its size, not an internal error.
// A streamed sort stages the link's copies in pinned memory, and a host-resident input near the
// machine's size is the first thing to run out: the message says what was asked, what is there
// and what to do, and the exit code is 4 (docs/usage.md: GPU memory or pinned host memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sortbench/core/owned_allocation.hpp"

namespace sb {

// MemAvailable of /proc/meminfo (what can be had without swapping); 0 where unknown.
std::uint64_t host_available_bytes();
// The process's peak resident memory so far (getrusage), and what it holds now (/proc/self/statm;
// 0 where unknown), in bytes.
std::uint64_t host_peak_bytes();
std::uint64_t host_current_bytes();
// MemAvailable of a /proc/meminfo text, in bytes; 0 where absent.
std::uint64_t parse_mem_available(std::string_view meminfo);

// "pinned host memory for <what>: 64.0 GiB needed, 31.2 GiB available; lower -n or free host
// memory" (available 0: unknown, and said so).
std::string pinned_failure_message(std::size_t bytes, std::string_view what, std::uint64_t available);

// cudaMallocHost; throws Error(device_memory) with pinned_failure_message when the memory cannot
// be had, and the CUDA error otherwise (no device: Error(cuda)). Never null, also for 0 bytes.
void* pinned_alloc(std::size_t bytes, std::string_view what);
void pinned_free(void* p) noexcept;

struct PinnedFree {
  void operator()(void* p) const noexcept { pinned_free(p); }
};

// One pinned allocation, freed with its owner.
class PinnedBuffer : public OwnedAllocation<PinnedFree> {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::size_t bytes, std::string_view what) : OwnedAllocation(pinned_alloc(bytes, what), bytes) {}
};

}  // namespace sb
