// The distributed family (issue 15): sorts over several GPUs, one NCCL rank per GPU.
#pragma once

#include "dist_rank.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::dist {

Algorithm make_dist_hp();           // dist_hp.cu: histograms cross the link, keys do not
Algorithm make_dist_sample_sort();  // dist_sample_sort.cu: every key crosses once

}  // namespace sb::dist
