// A process started by a cluster's launcher (issue 51 item 3; docs/distributed.md, "Launchers"):
// Open MPI's mpirun, Slurm's srun or torchrun tell each process its rank, the world and its
// rank on the node in environment variables, so `sortbench run`/`sort` started by them needs no
// --rank, --world or --rendezvous. The ranks then meet at rank 0's address (MASTER_ADDR and
// MASTER_PORT, which torchrun sets and an mpirun or srun line exports), or in a --rendezvous
// directory.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace sb {

struct LaunchedRank {
  std::string launcher;    // "mpirun", "srun" or "torchrun"
  int rank = 0, world = 1;
  int local_rank = 0;      // its rank among the node's processes: which GPU it takes
  int local_world = 0;     // the processes it started on this node (0: the launcher does not say)
  // "tcp://MASTER_ADDR:MASTER_PORT" (MASTER_PORT + 1 under torchrun, whose agent serves its own
  // store on MASTER_PORT), or empty where they are not set.
  std::string rendezvous;
};

// The launcher's variables, in the order Open MPI (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK),
// Slurm (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID), torchrun (RANK, WORLD_SIZE,
// LOCAL_RANK); nullopt where none started this process, it is the only rank, or
// SORTBENCH_LAUNCHER=none says to ignore them. env: getenv's shape.
// UsageError for variables that are not numbers, or a rank not below the world.
std::optional<LaunchedRank> launched_rank(const std::function<const char*(const char*)>& env);

// The GPU a launched rank takes among the visible_gpus it sees: its node-local rank, modulo
// them where each rank sees only its own (Slurm's --gpus-per-task, a CUDA_VISIBLE_DEVICES a rank).
// Where it sees all of the node's (all_visible: no CUDA_VISIBLE_DEVICES), a node with more ranks
// (local_world, or at least local_rank + 1 where the launcher does not say) than GPUs would put two
// on one GPU, which NCCL refuses deep in its start: a UsageError naming both counts instead.
int launched_rank_device(const std::string& launcher, int local_rank, int local_world, int visible_gpus,
                         bool all_visible);

// What started a run's ranks, as rows record it (details.launcher, issue 51): "mpi" (mpirun),
// "slurm" (srun), "env" (torchrun's variables), "rendezvous" (processes given --rank, --world
// and --rendezvous by hand; process_mode) or "threads" (the ranks are threads of one process).
// `launcher` is LaunchedRank::launcher, empty where none started the process.
std::string launcher_detail(const std::string& launcher, bool process_mode);

// Whether a rendezvous is rank 0's address (tcp://HOST:PORT) rather than a directory.
inline bool is_tcp_rendezvous(const std::string& rendezvous) { return rendezvous.rfind("tcp://", 0) == 0; }

}  // namespace sb
