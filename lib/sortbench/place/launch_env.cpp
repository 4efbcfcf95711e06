// The launchers' environment (launch_env.hpp).
#include "sortbench/place/launch_env.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {
namespace {

struct Names {
  const char* launcher;
  const char* kind;  // as rows record it (launcher_detail)
  const char* rank;
  const char* world;
  const char* local_rank;
  const char* local_world;  // nullptr: the launcher gives no one number (Slurm's is a list)
};

constexpr Names kLaunchers[] = {
    {"mpirun", "mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"},
    // The step's task count, which srun sets: a batch script's own shell also has SLURM_PROCID
    // and SLURM_NTASKS (the allocation's), and a sortbench started there is no rank of several.
    {"srun", "slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", nullptr},
    {"torchrun", "env", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
};

int number(const std::function<const char*(const char*)>& env, const char* name, const char* launcher, int absent) {
  const char* text = env(name);
  if (!text || !*text) return absent;
  int v = 0;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    throw UsageError(fmt::format("{}={} (set by {}) is not a rank or a count; start sortbench under {} as it expects, "
                                 "or unset {}",
                                 name, text, launcher, launcher, name));
  return v;
}

}  // namespace

std::string launcher_detail(const std::string& launcher, bool process_mode) {
  for (const Names& n : kLaunchers)
    if (launcher == n.launcher) return n.kind;
  return process_mode ? "rendezvous" : "threads";
}

std::optional<LaunchedRank> launched_rank(const std::function<const char*(const char*)>& env) {
  if (const char* off = env("SORTBENCH_LAUNCHER"); off && std::string_view(off) == "none") return std::nullopt;
  for (const Names& n : kLaunchers) {
    const char* rank_text = env(n.rank);
    const char* world_text = env(n.world);
    if (!rank_text || !world_text || !*rank_text || !*world_text) continue;
    LaunchedRank r;
    r.launcher = n.launcher;
    r.rank = number(env, n.rank, n.launcher, 0);
    r.world = number(env, n.world, n.launcher, 1);
    r.local_rank = number(env, n.local_rank, n.launcher, 0);
    if (n.local_world) r.local_world = number(env, n.local_world, n.launcher, 0);
    if (r.world < 1 || r.rank >= r.world)
      throw UsageError(fmt::format("{}={} is not below {}={} (set by {}); start sortbench under {} as it expects",
                                   n.rank, r.rank, n.world, r.world, n.launcher, n.launcher));
    if (r.world == 1) return std::nullopt;  // a launcher's single process is no rank of several
    const char* addr = env("MASTER_ADDR");
    const char* port = env("MASTER_PORT");
    if (addr && *addr && port && *port) {
      int at = number(env, "MASTER_PORT", n.launcher, 0);  // a port is a number
      // torchrun's agent serves its own store on MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE):
      // rank 0 listens on the port after it.
      const char* agent_store = env("TORCHELASTIC_USE_AGENT_STORE");
      if (agent_store && std::string_view(agent_store) == "True") ++at;
      if (at > 65535)
        throw UsageError(fmt::format("MASTER_PORT={} leaves no port after it for the ranks to meet at (torchrun's "
                                     "agent holds MASTER_PORT); give a lower --master-port",
                                     port));
      r.rendezvous = fmt::format("tcp://{}:{}", addr, at);
    }
    return r;
  }
  return std::nullopt;
}

int launched_rank_device(const std::string& launcher, int local_rank, int local_world, int visible_gpus,
                         bool all_visible) {
  const int on_node = std::max(local_world, local_rank + 1);
  if (all_visible && on_node > visible_gpus)
    throw UsageError(fmt::format("{} started {}{} ranks on this node, which shows {} GPU{}; start at most {} a node, "
                                 "one a GPU",
                                 launcher, local_world ? "" : "at least ", on_node, visible_gpus,
                                 visible_gpus == 1 ? "" : "s", visible_gpus));
  return local_rank % visible_gpus;
}

}  // namespace sb
