// What both out-of-core sorts (issue 37) pipeline chunks with: a copy stream for each direction
// beside the run's stream, so that host-to-device copies, kernels and device-to-host copies of
// different chunks run at once (an H100 has a copy engine for each direction); events per slot
// order them. Host code only.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda_runtime_api.h>

#include "sortbench/algo/streamed.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "outofcore_index.hpp"

namespace sb::ooc {

class ChunkPipeline {
 public:
  explicit ChunkPipeline(cudaStream_t work) : work_(work) {
    SB_CUDA_CHECK(cudaStreamCreateWithFlags(&in_, cudaStreamNonBlocking));
    SB_CUDA_CHECK(cudaStreamCreateWithFlags(&out_, cudaStreamNonBlocking));
    for (unsigned s = 0; s < kSlots; ++s)
      for (cudaEvent_t* e : {&copied_[s], &worked_[s], &drained_[s]})
        SB_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  }
  ~ChunkPipeline() {
    // Destroying a stream with queued work is allowed: CUDA releases it once that work is done.
    cudaStreamDestroy(in_);
    cudaStreamDestroy(out_);
    for (unsigned s = 0; s < kSlots; ++s)
      for (cudaEvent_t e : {copied_[s], worked_[s], drained_[s]}) cudaEventDestroy(e);
  }
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  cudaStream_t work() const { return work_; }
  // Host to device into a slot (a column, and a second one where given), after the work that
  // last read the slot.
  void copy_in(unsigned slot, void* dst, const void* src, std::uint64_t bytes, void* dst2 = nullptr,
               const void* src2 = nullptr, std::uint64_t bytes2 = 0) {
    begin_pieces(slot);
    copy_in_piece(dst, src, bytes);
    copy_in_piece(dst2, src2, bytes2);
    end_pieces(slot);
  }
  // The work stream waits for the slot's copy in (wait_copied) or its copy out (wait_drained)
  // and marks when its work on the slot is done (worked).
  void wait_copied(unsigned slot) { SB_CUDA_CHECK(cudaStreamWaitEvent(work_, copied_[slot], 0)); }
  void wait_drained(unsigned slot) { SB_CUDA_CHECK(cudaStreamWaitEvent(work_, drained_[slot], 0)); }
  void worked(unsigned slot) { SB_CUDA_CHECK(cudaEventRecord(worked_[slot], work_)); }
  // Device to host out of a slot (one or two columns), after the work that filled it.
  void copy_out(unsigned slot, void* dst, const void* src, std::uint64_t bytes, void* dst2 = nullptr,
                const void* src2 = nullptr, std::uint64_t bytes2 = 0) {
    SB_CUDA_CHECK(cudaStreamWaitEvent(out_, worked_[slot], 0));
    if (bytes) SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, out_));
    if (bytes2) SB_CUDA_CHECK(cudaMemcpyAsync(dst2, src2, bytes2, cudaMemcpyDeviceToHost, out_));
    SB_CUDA_CHECK(cudaEventRecord(drained_[slot], out_));
  }
  // Several pieces into one slot (the run-merge sort's buckets), then copied_ once.
  void copy_in_piece(void* dst, const void* src, std::uint64_t bytes) {
    if (bytes) SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, in_));
  }
  // A slot is overwritten only after the work that read it and the copy out of its last result.
  void begin_pieces(unsigned slot) {
    SB_CUDA_CHECK(cudaStreamWaitEvent(in_, worked_[slot], 0));
    SB_CUDA_CHECK(cudaStreamWaitEvent(in_, drained_[slot], 0));
  }
  void end_pieces(unsigned slot) { SB_CUDA_CHECK(cudaEventRecord(copied_[slot], in_)); }
  // The host waits until the slot's copy out (or its work) is done: before it reuses host staging.
  void sync_drained(unsigned slot) { SB_CUDA_CHECK(cudaEventSynchronize(drained_[slot])); }
  void sync_worked(unsigned slot) { SB_CUDA_CHECK(cudaEventSynchronize(worked_[slot])); }
  // Everything queued on the copy streams is ordered before the run stream's later work.
  void join() {
    cudaEvent_t e[2];
    cudaStream_t s[2] = {in_, out_};
    for (int i = 0; i < 2; ++i) {
      SB_CUDA_CHECK(cudaEventCreateWithFlags(&e[i], cudaEventDisableTiming));
      SB_CUDA_CHECK(cudaEventRecord(e[i], s[i]));
      SB_CUDA_CHECK(cudaStreamWaitEvent(work_, e[i], 0));
      SB_CUDA_CHECK(cudaEventDestroy(e[i]));
    }
  }

 private:
  cudaStream_t work_, in_ = nullptr, out_ = nullptr;
  cudaEvent_t copied_[kSlots] = {}, worked_[kSlots] = {}, drained_[kSlots] = {};
};

// A device memory arena carved in order (the run's whole allocation, outside timing).
class Carve {
 public:
  Carve(void* base, std::uint64_t bytes) : base_(static_cast<unsigned char*>(base)), left_(bytes) {}
  template <typename T = unsigned char>
  T* take(std::uint64_t bytes) {
    bytes = align_up(bytes);
    if (bytes > left_) throw std::logic_error("out-of-core plan exceeds the GPU memory it was given");
    T* p = reinterpret_cast<T*>(base_ + used_);
    used_ += bytes, left_ -= bytes;
    return p;
  }

 private:
  unsigned char* base_;
  std::uint64_t left_, used_ = 0;
};

}  // namespace sb::ooc
