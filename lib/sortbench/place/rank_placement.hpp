// The ranks placement (issue 15; docs/architecture.md, "NCCL ranks"): a distributed algorithm's input spread
// over one rank per GPU, each with its own stream and NCCL communicator in its DeviceContext,
// timed from a common start to the last rank done and verified on the GPUs. Built where NCCL is
// (SORTBENCH_HAVE_NCCL); elsewhere no algorithm is distributed and nothing calls it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/timing/measure.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {

// A rank's sorted part, handed to DistributedRequest::output (issue 38): on the rank's device, on
// its stream; `offset` is the global position of its first element (the exclusive prefix of the
// ranks' output counts, which may be uneven).
struct RankOutput {
  int rank = 0;
  int device = 0;
  const void* keys = nullptr;
  const void* values = nullptr;  // null without a value column
  std::uint64_t count = 0;
  std::uint64_t offset = 0;
  cudaStream_t stream = nullptr;
};

struct DistributedRequest {
  const InputSource* source = nullptr;  // each rank fills its own slice from it (InputSource::slice)
  // One process, one rank per GPU: rank r on devices[r]. One process per GPU (process_rank
  // >= 0): this process is rank process_rank of process_world, on devices[0], and the ranks
  // meet through files in the shared directory `rendezvous`, or at rank 0's address where it is
  // tcp://HOST:PORT (docs/distributed.md).
  std::vector<int> devices;
  MeasureSettings settings;
  int process_rank = -1;
  int process_world = 0;
  std::string rendezvous;
  std::string launcher;  // what started the processes ("torchrun", "srun", "mpirun"); empty: by hand
  // Called on each rank once the run verified (the last sample's output). A throw stops every rank
  // as any rank's failure does; after it returned on every rank the ranks pass one barrier, so a
  // run_on_ranks that returns means every rank's output was written (sort --gpus commits then).
  std::function<void(const RankOutput&)> output;
  // With a payload whose values name input positions (generated, not data): the algorithm
  // claims stability, and the verification checks equal keys keep increasing positions.
  bool check_stable = false;
};

struct DistributedOutcome {
  std::vector<double> samples_ms;  // per sample: the slowest rank's time after a common barrier
  VerifyReport verification;
  Details details;                 // per-rank phase times, slice sizes, imbalance, topology
  // The whole input's facts as the ranks agreed on them (min and max all-reduced over NCCL; the
  // distinct count is the caller's): a run of distributed rows measures them nowhere else.
  KeyFacts facts;
};

// Runs `algo` on one rank per device of the request: fills the slices, measures (barrier, events
// per rank, the slowest rank per sample, agreed by all-reduce), verifies the slices (local order,
// order across rank boundaries, fingerprint sums all-reduced), and describes the ranks in the
// details. A rank's failure stops every rank: Error with its code and the rank's message.
DistributedOutcome run_on_ranks(const RankAlgorithm& algo, const SortProblem& problem,
                                const DistributedRequest& request);

}  // namespace sb
