// The rank model's host side (ranks.hpp): how ranks learn of a failure, wait, exchange (over NCCL
// or peer copies, issue 51) and mark phases.
#include "sortbench/algo/ranks.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"

namespace sb {

namespace {
std::string failed_file(const std::string& dir, int rank) { return dir + "/failed-" + std::to_string(rank); }
// Raw bytes as NCCL elements (keys of any width travel as bytes): Rank::exchange's NCCL link.
ncclResult_t send_bytes(const void* p, std::size_t bytes, int peer, const Rank& r, cudaStream_t stream) {
  return ncclSend(p, bytes, ncclUint8, peer, r.comm(), stream);
}
ncclResult_t recv_bytes(void* p, std::size_t bytes, int peer, const Rank& r, cudaStream_t stream) {
  return ncclRecv(p, bytes, ncclUint8, peer, r.comm(), stream);
}
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void RunFailure::attach(std::unique_ptr<FailureLink> link) {
  std::lock_guard<std::mutex> lock(mutex_);
  link_ = std::move(link);
}

void RunFailure::set(ExitCode c, const std::string& message, int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_.exchange(true)) return;
  code_ = c;
  message_ = message;
  if (!dir_.empty()) {
    std::ofstream f(failed_file(dir_, rank));
    f << static_cast<int>(c) << "\n" << message << "\n";
  }
  if (link_) link_->publish(c, message);
}

bool RunFailure::any() {
  if (failed_.load()) return true;
  if (dir_.empty() && !link_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_.load()) return true;
  if (now_s() < next_look_s_) return false;
  next_look_s_ = now_s() + 0.02;
  if (link_) {
    if (auto heard = link_->heard()) {
      code_ = heard->code;
      message_ = heard->message;
      failed_.store(true);
      return true;
    }
    return false;
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (entry.path().filename().string().rfind("failed-", 0) != 0) continue;
    std::ifstream f(entry.path());
    int c = static_cast<int>(ExitCode::cuda);
    std::string message;
    f >> c;
    f.ignore();
    std::getline(f, message);
    code_ = static_cast<ExitCode>(c);
    message_ = message.empty() ? "another rank failed" : message;
    failed_.store(true);
    return true;
  }
  return false;
}

void RunFailure::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (link_) link_->finish();
}

ExitCode RunFailure::code() {
  std::lock_guard<std::mutex> lock(mutex_);
  return code_;
}

std::string RunFailure::message() {
  std::lock_guard<std::mutex> lock(mutex_);
  return message_;
}

void nccl_check(ncclResult_t result, const char* call, int rank) {
  if (result != ncclSuccess && result != ncclInProgress)
    throw Error(ExitCode::cuda, fmt::format("rank {}: {} failed: {} ({})", rank, call, ncclGetErrorString(result),
                                            ncclGetLastError(nullptr)));
}

void Rank::wait() const { wait_on(ctx_.stream); }

void Rank::wait_on(cudaStream_t stream) const {
  for (;;) {
    const cudaError_t q = cudaStreamQuery(stream);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) SB_CUDA_CHECK(q);
    ncclResult_t async = ncclSuccess;
    SB_NCCL_CHECK(ncclCommGetAsyncError(comm(), &async), rank());
    if (async != ncclSuccess && async != ncclInProgress) abort_comm();
    SB_NCCL_CHECK(async, rank());
    if (failure_->any()) {
      abort_comm();
      throw PeerFailed("another rank failed");
    }
    std::this_thread::yield();
  }
}

void Rank::abort_comm() const {
  if (!aborted_.exchange(true)) ncclCommAbort(comm());
}

void Rank::to_host(void* dst, const void* src, std::size_t bytes) const { to_host_on(ctx_.stream, dst, src, bytes); }

void Rank::to_host_aside(void* dst, const void* src, std::size_t bytes) const {
  to_host_on(side_.stream, dst, src, bytes);
}

void Rank::to_host_on(cudaStream_t stream, void* dst, const void* src, std::size_t bytes) const {
  wait_on(stream);
  SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the stream has nothing else left to run
}

void Rank::barrier(void* one_word) const {
  SB_NCCL_CHECK(ncclAllReduce(one_word, one_word, 1, ncclUint32, ncclSum, comm(), stream()), rank());
}

void Rank::copy_aside(void* dst, const void* src, std::size_t bytes) const {
  SB_CUDA_CHECK(cudaEventRecord(side_.forked, ctx_.stream));
  SB_CUDA_CHECK(cudaStreamWaitEvent(side_.stream, side_.forked, 0));
  SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, side_.stream));
  SB_CUDA_CHECK(cudaEventRecord(side_.done, side_.stream));
}

cudaStream_t Rank::fork_aside() const {
  SB_CUDA_CHECK(cudaEventRecord(side_.forked, ctx_.stream));
  SB_CUDA_CHECK(cudaStreamWaitEvent(side_.stream, side_.forked, 0));
  return side_.stream;
}

// done is recorded here, not only by copy_aside, so work enqueued through fork_aside is joined too.
void Rank::join() const {
  SB_CUDA_CHECK(cudaEventRecord(side_.done, side_.stream));
  SB_CUDA_CHECK(cudaStreamWaitEvent(ctx_.stream, side_.done, 0));
}

void Rank::exchange(const std::vector<PeerTransfer>& transfers) const { exchange_on(stream(), transfers); }

void Rank::exchange_aside(const std::vector<PeerTransfer>& transfers) const {
  exchange_on(fork_aside(), transfers);
}

void Rank::exchange_on(cudaStream_t on, const std::vector<PeerTransfer>& transfers) const {
  if (peers_) {
    peers_->exchange(rank(), on, transfers);
    return;
  }
  SB_NCCL_CHECK(ncclGroupStart(), rank());
  for (const PeerTransfer& t : transfers) {
    if (t.send_bytes) SB_NCCL_CHECK(send_bytes(t.send, t.send_bytes, t.peer, *this, on), rank());
    if (t.recv_bytes) SB_NCCL_CHECK(recv_bytes(t.recv, t.recv_bytes, t.peer, *this, on), rank());
  }
  SB_NCCL_CHECK(ncclGroupEnd(), rank());
}

PeerCopies::PeerCopies(std::vector<int> devices, RunFailure& failure)
    : devices_(std::move(devices)),
      failure_(failure),
      published_(devices_.size(), nullptr),
      ready_(devices_.size(), nullptr),
      sent_(devices_.size(), nullptr) {}

PeerCopies::~PeerCopies() {
  for (auto* events : {&ready_, &sent_})
    for (cudaEvent_t e : *events)
      if (e) cudaEventDestroy(e);
}

std::unique_ptr<PeerCopies> PeerCopies::for_run(ExchangeLink asked, const std::vector<int>& devices, bool processes,
                                                RunFailure& failure) {
  if (asked == ExchangeLink::nccl || (!processes && devices.size() < 2)) return nullptr;
  const std::string why = processes ? std::string("its ranks are separate processes") : unavailable(devices);
  if (why.empty()) return std::make_unique<PeerCopies>(devices, failure);
  if (asked == ExchangeLink::copy)
    throw Error(ExitCode::usage, fmt::format("--param link=copy needs the ranks as threads of one process (run --gpus "
                                             "N) on GPUs that reach one another's memory, but {}; give link=nccl "
                                             "or leave link out",
                                             why));
  return nullptr;
}

std::string PeerCopies::unavailable(const std::vector<int>& devices) {
  for (std::size_t a = 0; a < devices.size(); ++a)
    for (std::size_t b = 0; b < devices.size(); ++b) {
      if (a == b) continue;
      if (devices[a] == devices[b]) return fmt::format("GPU {} holds two ranks", devices[a]);
      int can = 0;
      SB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices[a], devices[b]));
      if (!can) return fmt::format("GPU {} has no peer access to GPU {}", devices[a], devices[b]);
    }
  return {};
}

void PeerCopies::join(int rank) {
  for (std::size_t q = 0; q < devices_.size(); ++q) {
    // Ranks on one GPU (the protocol's GPU test on one device) copy within it: nothing to enable.
    if (devices_[q] == devices_[rank]) continue;
    const cudaError_t err = cudaDeviceEnablePeerAccess(devices_[q], 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // an earlier run's: still on
    else SB_CUDA_CHECK(err);
  }
  SB_CUDA_CHECK(cudaEventCreateWithFlags(&ready_[rank], cudaEventDisableTiming));
  SB_CUDA_CHECK(cudaEventCreateWithFlags(&sent_[rank], cudaEventDisableTiming));
}

void PeerCopies::meet() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::uint64_t generation = generation_;
  if (++arrived_ == int(devices_.size())) {
    arrived_ = 0;
    ++generation_;
    met_.notify_all();
    return;
  }
  while (generation_ == generation) {
    if (failure_.any()) throw PeerFailed("another rank failed");
    met_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

// An event recorded on one GPU's stream is waited for on another's (same process): the events
// carry the order, so the host only meets the other ranks to learn where to copy.
void PeerCopies::exchange(int me, cudaStream_t stream, const std::vector<PeerTransfer>& transfers) {
  const int world = int(devices_.size());
  published_[me] = &transfers;
  SB_CUDA_CHECK(cudaEventRecord(ready_[me], stream));
  meet();
  // Each rank starts with the next rank up, so at each step every GPU receives from one sender.
  for (int step = 1; step < world; ++step) {
    const int q = (me + step) % world;
    const std::vector<PeerCopy> copies = pair_transfers(me, transfers, q, *published_[q]);
    if (copies.empty()) continue;
    SB_CUDA_CHECK(cudaStreamWaitEvent(stream, ready_[q], 0));
    for (const PeerCopy& c : copies)
      SB_CUDA_CHECK(cudaMemcpyPeerAsync(c.dst, devices_[q], c.src, devices_[me], c.bytes, stream));
  }
  SB_CUDA_CHECK(cudaEventRecord(sent_[me], stream));
  // Past this meet no rank reads another's transfers, which its caller may then release.
  meet();
  // Only the ranks that send here: the others' copies go elsewhere.
  std::vector<bool> sends_here(world, false);
  for (const PeerTransfer& t : transfers) sends_here[t.peer] = sends_here[t.peer] || t.recv_bytes > 0;
  for (int q = 0; q < world; ++q)
    if (sends_here[q]) SB_CUDA_CHECK(cudaStreamWaitEvent(stream, sent_[q], 0));
}

PhaseMarks::PhaseMarks(std::size_t phases) : ends_(phases) {
  for (auto& e : ends_) SB_CUDA_CHECK(cudaEventCreate(&e));
}
PhaseMarks::~PhaseMarks() {
  for (auto& e : ends_) cudaEventDestroy(e);
}
void PhaseMarks::mark(std::size_t phase, cudaStream_t stream) const {
  SB_CUDA_CHECK(cudaEventRecord(ends_.at(phase), stream));
}
std::vector<double> PhaseMarks::phase_ms(cudaEvent_t start) const {
  std::vector<double> ms;
  cudaEvent_t previous = start;
  for (cudaEvent_t e : ends_) {
    float t = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&t, previous, e));
    ms.push_back(t);
    previous = e;
  }
  return ms;
}

}  // namespace sb
