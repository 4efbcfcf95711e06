// Registration of the distributed family. Built with NCCL (SORTBENCH_HAVE_NCCL) it adds
// dist-hp, dist-sample-sort and dist-auto; without NCCL only this file is built, and the registry
// notes why the family is missing and how to get NCCL, which `list` and `info` print.
#include "sortbench/algo/registry.hpp"

#if SORTBENCH_HAVE_NCCL
#include "distributed.hpp"
#endif

namespace sb {

void register_distributed(Registry& r) {
#if SORTBENCH_HAVE_NCCL
  Algorithm hp = dist::make_dist_hp();
  hp.pick_when = "integer keys over several GPUs with a range one histogram covers: keys alone never cross the links";
  r.add(hp);
  Algorithm sample = dist::make_dist_sample_sort();
  sample.pick_when = "keys over several GPUs of any type and range, or more than one GPU holds: one all-to-all";
  r.add(sample);
  Algorithm chooser = dist::make_dist_auto(hp, sample);
  chooser.pick_when = "input over several GPUs when you do not know which distributed sort wins: it predicts them";
  r.add(chooser);
#else
  r.note_unavailable("distributed",
                     "not built: NCCL was not found; get it with `python3 -m pip install nvidia-nccl-cu13` (or "
                     "bash scripts/setup.sh), then reconfigure (-DSORTBENCH_NCCL_ROOT=DIR for another NCCL)");
#endif
}

}  // namespace sb
