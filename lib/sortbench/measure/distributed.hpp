// What the harness asks of a distributed algorithm (kernels/distributed, issue 15) and what
// it gets back. A distributed algorithm owns its ranks (one per GPU, each with its own stream
// and NCCL communicator in its DeviceContext), so lib needs no NCCL: the family times the
// ranks from a common start to the last one done and verifies the slices on the GPUs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/measure/harness.hpp"
#include "sortbench/measure/verify.hpp"

namespace sb {

struct DistributedRequest {
  InputSpec input;  // the generator's parameters: each rank generates its own slice
  // One process, one rank per GPU: rank r on devices[r]. One process per GPU (process_rank
  // >= 0): this process is rank process_rank of process_world, on devices[0], and the ranks
  // meet through files in the shared directory `rendezvous` (docs/distributed.md).
  std::vector<int> devices;
  MeasureSettings settings;
  int process_rank = -1;
  int process_world = 0;
  std::string rendezvous;
};

struct DistributedOutcome {
  std::vector<double> samples_ms;  // per sample: the slowest rank's time after a common barrier
  VerifyReport verification;
  Details details;                 // per-rank phase times, slice sizes, imbalance, topology
};

}  // namespace sb
