// What both out-of-core sorts (issue 37) pipeline chunks with: a copy stream for each direction
// beside the run's stream, so that host-to-device copies, kernels and device-to-host copies of
// different chunks run at once (an H100 has a copy engine for each direction); events per slot
// order them. Host code only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <future>

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
  // An event after the copies queued so far in one direction: when host staging they read (in)
  // or filled (out) may be touched again.
  void record_in(cudaEvent_t e) { SB_CUDA_CHECK(cudaEventRecord(e, in_)); }
  void record_out(cudaEvent_t e) { SB_CUDA_CHECK(cudaEventRecord(e, out_)); }
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

// Pinned host staging between the GPU and a file or a run store when the input is not resident
// (issue 52): kStages pieces each way, each with the event of the last copy that used it, so the
// host refills an upload piece only after its copy in, and hands a download piece on only after
// its copy out, while the piece beside it is in flight. The caller's thread reads; each
// downloaded piece is handed on (written) by a thread of its own, in order after the piece before
// it, so that the disk's reads and writes overlap: the disk, not the link or the GPU, sets an
// external sort's pace (one thread doing both took their sum: 3.3 s of reads and 3.6 s of run
// writes for 4 GiB on an H200 host).
class Staging {
 public:
  static constexpr unsigned kStages = 2;
  // scratch: 2 * kStages pieces of `piece` elements (keys, then values), bytes_for's size.
  Staging(ChunkPipeline& pipe, void* scratch, std::uint64_t piece, unsigned kb, unsigned vb)
      : pipe_(pipe), piece_(piece), kb_(kb), vb_(vb) {
    SB_CUDA_CHECK(cudaGetDevice(&device_));
    auto* base = static_cast<unsigned char*>(scratch);
    for (unsigned i = 0; i < 2 * kStages; ++i) {
      pieces_[i].keys = base + i * piece * (kb + vb);
      pieces_[i].vals = pieces_[i].keys + piece * kb;
      SB_CUDA_CHECK(cudaEventCreateWithFlags(&pieces_[i].done, cudaEventDisableTiming));
    }
  }
  ~Staging() {
    settle();
    for (Piece& p : pieces_) cudaEventDestroy(p.done);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  static std::uint64_t bytes_for(std::uint64_t piece, unsigned kb, unsigned vb) { return 2 * kStages * piece * (kb + vb); }

  // Elements [first, first + count) read by read(first, count, keys, vals) into host staging and
  // copied to the device columns dk, dv (queued inside the slot's begin_pieces/end_pieces).
  template <typename Read>
  void upload(Read&& read, std::uint64_t first, std::uint64_t count, void* dk, void* dv) {
    for (std::uint64_t off = 0; off < count; off += piece_) {
      Piece& p = pieces_[up_++ % kStages];
      SB_CUDA_CHECK(cudaEventSynchronize(p.done));
      const std::uint64_t m = std::min(piece_, count - off);
      read(first + off, m, p.keys, vb_ ? p.vals : nullptr);
      pipe_.copy_in_piece(static_cast<unsigned char*>(dk) + off * kb_, p.keys, m * kb_);
      if (vb_) pipe_.copy_in_piece(static_cast<unsigned char*>(dv) + off * vb_, p.vals, m * vb_);
      pipe_.record_in(p.done);
    }
  }
  // Slot `slot`'s first count elements (device columns dk, dv), once its work is done, copied
  // out piece by piece and handed to write(first + offset, m, keys, vals) in order, each on a
  // thread of its own after the one before (write must be safe from another thread and outlive
  // the hand-ons: finish() waits for them).
  template <typename Write>
  void download(unsigned slot, const void* dk, const void* dv, std::uint64_t first, std::uint64_t count, Write& write) {
    for (std::uint64_t off = 0; off < count; off += piece_) {
      const unsigned k = down_++ % kStages;
      Piece& p = pieces_[kStages + k];
      if (written_[k].valid()) written_[k].get();  // its last hand-on is done (or its failure thrown)
      const std::uint64_t m = std::min(piece_, count - off);
      pipe_.copy_out(slot, p.keys, static_cast<const unsigned char*>(dk) + off * kb_, m * kb_, p.vals,
                     vb_ ? static_cast<const unsigned char*>(dv) + off * vb_ : nullptr, vb_ ? m * vb_ : 0);
      pipe_.record_out(p.done);
      written_[k] = std::async(std::launch::async, [this, &write, &p, before = last_, at = first + off, m] {
                      if (before.valid()) before.get();  // in order; a failure before this one is its failure
                      SB_CUDA_CHECK(cudaSetDevice(device_));  // a new thread starts on device 0
                      SB_CUDA_CHECK(cudaEventSynchronize(p.done));
                      write(at, m, p.keys, vb_ ? p.vals : nullptr);
                    }).share();
      last_ = written_[k];
    }
  }
  // Every piece downloaded so far has been handed on; a hand-on's failure is thrown here.
  void finish() {
    for (auto& w : written_)
      if (w.valid()) w.get();
  }
  // The same without throwing: a failed sort's hand-ons still use the staging and the writers.
  void settle() noexcept {
    for (auto& w : written_)
      if (w.valid()) w.wait();
  }

 private:
  struct Piece {
    unsigned char* keys;
    unsigned char* vals;
    cudaEvent_t done;
  };
  ChunkPipeline& pipe_;
  std::uint64_t piece_;
  unsigned kb_, vb_;
  int device_ = 0;
  Piece pieces_[2 * kStages];  // kStages up, then kStages down
  std::uint64_t up_ = 0, down_ = 0;
  std::shared_future<void> written_[kStages], last_;  // each download piece's hand-on, the latest
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
