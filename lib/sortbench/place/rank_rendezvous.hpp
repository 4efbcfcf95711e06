// Where the ranks meet before NCCL starts (docs/architecture.md, "NCCL ranks"; docs/distributed.md):
// the threads of this process, then, in process mode, the processes: through files in a shared
// rendezvous directory, or at rank 0's address (tcp://HOST:PORT, issue 51: what a launcher such as
// torchrun gives); and the NCCL unique id every rank's ncclCommInitRank needs. A rank that never
// comes stops the others after SORTBENCH_RENDEZVOUS_TIMEOUT seconds (default 300).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include <nccl.h>

#include "sortbench/algo/ranks.hpp"
#include "sortbench/place/launch_env.hpp"
#include "sortbench/place/rank_placement.hpp"

namespace sb {

// The ranks meet here before NCCL starts, so that a rank failing while it sets up (no device,
// no memory) stops the others before any of them waits in ncclCommInitRank. Threads of this
// process meet first; in process mode the process's rank then writes ready-<rank> into the
// rendezvous directory and waits for every other rank's file.
class StartGate {
 public:
  StartGate(int local_ranks, std::string dir, int world) : ranks_(local_ranks), dir_(std::move(dir)), world_(world) {}
  // false: a rank failed.
  bool arrive_and_wait(RunFailure& failure, int rank);
  void wake();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int ranks_, arrived_ = 0;
  std::string dir_;
  int world_;
};

// The NCCL unique id every rank's ncclCommInitRank needs: made here for threads of one
// process; in process mode rank 0 writes it to <rendezvous>/nccl-id (written aside, then
// renamed, so no rank reads half of it) and the other ranks wait for the file, or, at a tcp://
// rendezvous, hands it to each rank once every rank has connected.
ncclUniqueId shared_unique_id(const DistributedRequest& request, RunFailure& failure);

// The ranks meet at a tcp:// rendezvous: rank 0 listens on its PORT, waits for the other
// world - 1 ranks to connect, then sends each `payload`; the others connect (retrying while rank
// 0 starts) and receive it. Every rank returns the payload once all have arrived, so it is their
// start gate too. Error(usage) naming the rendezvous where not every rank comes within
// SORTBENCH_RENDEZVOUS_TIMEOUT seconds, or the address is not one.
// The connections stay open as the run's FailureLink (rank 0 holds one to every rank, each other
// rank one to rank 0): a failure published on one crosses to rank 0, which passes it on; a
// connection closed without the run's finish is its rank gone (exit 2 naming it) on every other.
struct TcpMeeting {
  std::string payload;
  std::unique_ptr<FailureLink> link;
};
TcpMeeting tcp_exchange(const std::string& rendezvous, int rank, int world, const std::string& payload);

}  // namespace sb
