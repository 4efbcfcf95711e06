// The rank model of the distributed sorts (issue 15; docs/architecture.md, "NCCL ranks"): one rank per
// GPU, each with its own stream and NCCL communicator in its DeviceContext. A rank algorithm
// sorts the rank's input slice into the rank's part of the global order; the ranks placement
// (lib/sortbench/place/rank_placement.hpp) fills the slices from the input's source, times
// the ranks from a common start and verifies. A rank that fails marks the run failed; the
// others see it while they wait and abort their communicators, so no rank hangs in a
// collective whose partner has gone. Only built where NCCL is (SORTBENCH_HAVE_NCCL).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nccl.h>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/algo/peer_transfer.hpp"
#include "sortbench/core/errors.hpp"

namespace sb {

// How a process's ranks hear of a failure in the other processes where they met at a tcp://
// rendezvous, with no directory to hold files: the rendezvous's connections, kept for the run
// (place/rank_rendezvous.hpp). A process that goes away without finishing the run (killed, out
// of host memory) closes them unannounced, which the others hear as that rank's failure.
class FailureLink {
 public:
  struct Heard {
    ExitCode code;
    std::string message;
  };
  virtual ~FailureLink() = default;
  // Tells the other processes that this one failed.
  virtual void publish(ExitCode code, const std::string& message) = 0;
  // A failure another process published, or a rank gone without finishing; nullopt: none yet.
  virtual std::optional<Heard> heard() = 0;
  // This process finished the run: its connections closing is no failure.
  virtual void finish() = 0;
};

// How the ranks of one run learn that one of them failed: threads of this process through
// the flag; ranks in other processes (process mode) through a file failed-<rank> in the
// rendezvous directory, which every waiting rank looks for, or through the FailureLink of a
// tcp:// rendezvous.
class RunFailure {
 public:
  explicit RunFailure(std::string rendezvous_dir = {}) : dir_(std::move(rendezvous_dir)) {}
  // The other processes' link, from the rendezvous.
  void attach(std::unique_ptr<FailureLink> link);
  // Records the first failure (and, in process mode, publishes it); later ones only count.
  void set(ExitCode c, const std::string& message, int rank);
  // Whether any rank, here or in another process, has failed (files or the link looked at
  // every ~20 ms).
  bool any();
  // The first failure's code and message (after any() returned true).
  ExitCode code();
  std::string message();
  // This process's ranks finished the run (the link's finish).
  void finish();

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::string message_;
  ExitCode code_ = ExitCode::cuda;
  std::string dir_;
  std::unique_ptr<FailureLink> link_;
  double next_look_s_ = 0;
};

// Thrown on a rank that stops because another rank failed (its message is the other's).
struct PeerFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The peer copies of the ranks of one run that are threads of this process (ExchangeLink::copy).
// Every rank of the run calls exchange at once, as it would a collective: the ranks meet on the
// host (their transfers and events published), each copies its pieces into the others' memory
// once the receiver's stream has reached the exchange, and each receiver's stream then waits
// for every copy into it, so nothing blocks a stream on the host.
class PeerCopies {
 public:
  // devices[r]: rank r's GPU; failure: the run's, which a rank waiting to meet watches.
  PeerCopies(std::vector<int> devices, RunFailure& failure);
  ~PeerCopies();
  PeerCopies(const PeerCopies&) = delete;
  PeerCopies& operator=(const PeerCopies&) = delete;
  // A run's peer copies where its ranks exchange through them: `asked` is not nccl, there are
  // two ranks or more, and they are threads of this process (not `processes`) on GPUs that reach
  // one another's memory; else null. Error(usage) naming why where copy was asked for and the
  // ranks cannot take it.
  static std::unique_ptr<PeerCopies> for_run(ExchangeLink asked, const std::vector<int>& devices, bool processes,
                                             RunFailure& failure);
  // Why these GPUs cannot exchange by peer copies (a GPU twice, a pair without peer access), or
  // empty where they can.
  static std::string unavailable(const std::vector<int>& devices);
  // Once on each rank's thread, its device current: peer access to the other GPUs, its events.
  void join(int rank);
  // The exchange of `transfers` on the rank's stream (Rank::exchange).
  void exchange(int rank, cudaStream_t stream, const std::vector<PeerTransfer>& transfers);

 private:
  // Every rank past this point on the host; PeerFailed when another rank failed meanwhile.
  void meet();

  std::vector<int> devices_;
  RunFailure& failure_;
  std::vector<const std::vector<PeerTransfer>*> published_;  // each rank's, between the meets
  std::vector<cudaEvent_t> ready_, sent_;  // on each rank's stream: reached the exchange; its copies done
  std::mutex mutex_;
  std::condition_variable met_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
};

class Rank {
 public:
  // side: a second stream of the rank's device, with two events, for copies that overlap the
  // main stream's work (created untimed by the harness).
  struct Side {
    cudaStream_t stream = nullptr;
    cudaEvent_t forked = nullptr, done = nullptr;
  };
  // peers: the run's peer copies where the ranks exchange through them, else null (NCCL).
  Rank(DeviceContext ctx, RunFailure& failure, Side side, PeerCopies* peers = nullptr)
      : ctx_(ctx), failure_(&failure), side_(side), peers_(peers) {}
  const DeviceContext& ctx() const { return ctx_; }
  DeviceContext& ctx() { return ctx_; }
  int rank() const { return ctx_.rank; }
  int world() const { return ctx_.world; }
  cudaStream_t stream() const { return ctx_.stream; }
  ncclComm_t comm() const { return static_cast<ncclComm_t>(ctx_.comm); }
  // Waits for the rank's stream; while waiting, stops (throws PeerFailed, or the NCCL error)
  // when another rank failed or the communicator reports an asynchronous error, aborting the
  // communicator first: its collectives waiting for the failed rank then end, so the device
  // buffers freed as the throw unwinds do not wait for them forever.
  void wait() const;
  // Aborts the communicator, once (wait's, or the end of a failed run); whether it was.
  void abort_comm() const;
  bool comm_aborted() const { return aborted_.load(); }
  // Copies device bytes to the host once the rank's stream has got here. It waits first, as
  // wait() does: a copy into pageable memory blocks inside the driver until the stream reaches
  // it, so behind a collective whose peer has died it would block forever, unwatched (seen on
  // two H200s, issue 51: a rank killed mid-run left the other in cuMemcpyDtoHAsync).
  void to_host(void* dst, const void* src, std::size_t bytes) const;
  // The same from the side stream, once it has got to the last fork_aside(): the main stream
  // runs on meanwhile (dist-hp's split while the host reads the cuts its exchange needs).
  void to_host_aside(void* dst, const void* src, std::size_t bytes) const;
  // All ranks past this point on their streams: an all-reduce of one word.
  void barrier(void* one_word) const;
  // A device-to-device copy on the side stream, ordered after the main stream's work so far;
  // join() makes the main stream wait for it.
  void copy_aside(void* dst, const void* src, std::size_t bytes) const;
  // The side stream, ordered after the main stream's work so far, for any work that should run
  // beside what the main stream does next (a sort beside an exchange); join() waits for it.
  cudaStream_t fork_aside() const;
  // Makes the main stream wait for everything on the side stream so far.
  void join() const;
  // One exchange of every rank (all call it at once, as a collective) on the rank's stream: over
  // peer copies where the run has them, else NCCL's grouped send/receive.
  void exchange(const std::vector<PeerTransfer>& transfers) const;
  // The same exchange on the side stream, ordered after the main stream's work so far, so the
  // main stream goes on meanwhile (dist-hp counts the next bins while a share travels); join()
  // waits for it.
  void exchange_aside(const std::vector<PeerTransfer>& transfers) const;

 private:
  void exchange_on(cudaStream_t on, const std::vector<PeerTransfer>& transfers) const;
  void wait_on(cudaStream_t stream) const;
  void to_host_on(cudaStream_t stream, void* dst, const void* src, std::size_t bytes) const;

  DeviceContext ctx_;
  RunFailure* failure_;
  Side side_;
  PeerCopies* peers_;
  mutable std::atomic<bool> aborted_{false};
};

// Throws Error(cuda) naming the rank and the NCCL call.
void nccl_check(ncclResult_t result, const char* call, int rank);
#define SB_NCCL_CHECK(call, rank) ::sb::nccl_check((call), #call, (rank))

struct RankSlice {
  std::uint64_t n = 0;      // global element count
  std::uint64_t begin = 0;  // this rank's input slice [begin, begin + count)
  std::uint64_t count = 0;
};

// keys[0] holds the rank's input slice and may be overwritten; keys[1] is scratch. Both hold
// `capacity` elements (a sample sort may receive more than its slice). values[] are the same
// for the payload column (values[0] the slice's values), null without a payload; a result's
// buffer index names both columns.
struct RankBuffers {
  void* keys[2] = {nullptr, nullptr};
  void* values[2] = {nullptr, nullptr};
  std::uint64_t capacity = 0;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// Which buffer holds the rank's sorted part of the global order, and how many elements.
struct RankResult {
  int buffer = 0;
  std::uint64_t count = 0;
};

// Events recorded at the end of each phase on the rank's stream (names in RankAlgorithm).
class PhaseMarks {
 public:
  explicit PhaseMarks(std::size_t phases);
  ~PhaseMarks();
  PhaseMarks(const PhaseMarks&) = delete;
  PhaseMarks& operator=(const PhaseMarks&) = delete;
  void mark(std::size_t phase, cudaStream_t stream) const;
  // Milliseconds of each phase after `start` (the phase's end minus the previous end).
  std::vector<double> phase_ms(cudaEvent_t start) const;

 private:
  std::vector<cudaEvent_t> ends_;
};

struct RankAlgorithm {
  std::vector<std::string> phases;  // what mark(i) ends, e.g. {"local", "exchange", "merge"}
  // Elements each work buffer must hold on every rank for n elements over `world` ranks.
  std::function<std::uint64_t(const SortProblem&, std::uint64_t n, int world)> capacity;
  std::function<std::size_t(const SortProblem&, const RankSlice&, std::uint64_t capacity, const DeviceContext&)>
      workspace_bytes;
  // Untimed, once per rank after the ranks have met and the key facts are global, before the
  // work buffers are sized: may run collectives and record what it decided in the problem's
  // params (dist-auto's choice), which capacity, workspace_bytes, run and details then read.
  // The same decision on every rank: it must depend only on what every rank agrees on.
  std::function<void(SortProblem&, const Rank&)> plan;
  // Untimed, once per rank before the samples (e.g. kernel attributes on the rank's device).
  std::function<void(const SortProblem&, const DeviceContext&)> prepare;
  std::function<RankResult(const SortProblem&, const RankSlice&, const RankBuffers&, const Rank&,
                           const PhaseMarks&)>
      run;
  // Facts recorded with the row (e.g. the H-P variant of the local histogram).
  std::function<Details(const SortProblem&, int world)> details;
};

}  // namespace sb
