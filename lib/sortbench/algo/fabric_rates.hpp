// The rates the distributed sorts' costs are made of, measured on the ranks themselves when a
// run starts (issue 38): what dist-auto's rule (kernels/distributed/dist_cost_model.hpp) weighs, so
// that its choice follows the GPUs and links it runs on rather than one card's timings.
#pragma once

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/algo/ranks.hpp"

namespace sb {

struct FabricRates {
  double copy_gbs = 0;      // device memory: GB copied per second by cudaMemcpy on one GPU
  double exchange_gbs = 0;  // GB one GPU sends per second in an all-to-all of every rank
  double latency_s = 0;     // one small collective (an all-reduce of a word)
  double launch_s = 0;      // one small kernel, launched back to back
  double l2_bytes = 0;      // the device's L2 cache
};

// Every rank calls it at once (it runs collectives); all get the same numbers: the slowest
// rank's rates and latencies, agreed by an all-reduce. About 20 ms; untimed.
FabricRates measure_fabric(const Rank& rank);

// Every rank calls it at once: each of `values` becomes the largest any rank holds (a rule's
// inputs agreed, so that every rank decides alike).
void agree_max(const Rank& rank, double* values, int count);

// The rates as a row's details: fabric_copy_gbs, fabric_exchange_gbs, fabric_latency_us, fabric_launch_us.
Details fabric_details(const FabricRates& rates);

}  // namespace sb
