// Ranks started by a cluster's launcher (place/launch_env.hpp, issue 51 item 3): the rank, world
// and node-local rank read from mpirun's, srun's or torchrun's variables, and the ranks meeting at
// rank 0's tcp:// address (place/rank_rendezvous.hpp) with no directory, whose connections then
// carry a rank's failure, or its going away, to every other rank (ranks.hpp, FailureLink).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <memory>

#include "sortbench/core/errors.hpp"
#include "sortbench/place/launch_env.hpp"
#include "sortbench/place/mpi_address.hpp"
#if SORTBENCH_HAVE_NCCL
#include "sortbench/place/rank_rendezvous.hpp"
#endif
#include "support/command.hpp"

namespace sb {
namespace {

std::optional<LaunchedRank> launched(const std::map<std::string, std::string>& vars) {
  return launched_rank([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(LaunchEnv, TorchrunGivesRankWorldLocalRankAndRankZerosAddress) {
  const auto r = launched({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node7"},
                           {"MASTER_PORT", "29500"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->launcher, "torchrun");
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->world, 4);
  EXPECT_EQ(r->local_rank, 1);
  EXPECT_EQ(r->rendezvous, "tcp://node7:29500");
}

// torchrun's agent serves its store on MASTER_PORT (seen on a GPU: rank 0 could not listen
// there), so the ranks meet on the port after it.
TEST(LaunchEnv, UnderTorchrunsAgentStoreTheRanksMeetOnTheNextPort) {
  const std::map<std::string, std::string> vars{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"},
                                               {"MASTER_PORT", "29500"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
  EXPECT_EQ(launched(vars)->rendezvous, "tcp://127.0.0.1:29501");
  auto last = vars;
  last["MASTER_PORT"] = "65535";
  EXPECT_THROW(launched(last), UsageError);
  last["TORCHELASTIC_USE_AGENT_STORE"] = "False";  // the workers' own store: MASTER_PORT is free for rank 0
  EXPECT_EQ(launched(last)->rendezvous, "tcp://127.0.0.1:65535");
}

// Each launched rank takes the GPU of its node-local rank; where it sees all of the node's GPUs, a
// node with more ranks than GPUs (which NCCL would refuse deep in its start, two ranks on one GPU)
// is a usage error naming both counts, from the launcher's count of the node's ranks where it gives
// one (mpirun, torchrun) and from the rank itself where not (srun). A rank shown only its own GPUs
// takes them by its local rank modulo their number.
TEST(LaunchEnv, ANodeWithMoreRanksThanGpusIsAUsageErrorNamingBoth) {
  const auto m = launched({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "8"},
                           {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->local_world, 4);
  EXPECT_EQ(launched_rank_device(m->launcher, m->local_rank, m->local_world, 4, true), 1);
  try {
    launched_rank_device(m->launcher, m->local_rank, m->local_world, 2, true);  // rank 1 fits, the node's 4 do not
    ADD_FAILURE() << "4 ranks on 2 GPUs were taken";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "mpirun started 4 ranks on this node, which shows 2 GPUs; start at most 2 a node, one a GPU");
  }
  const auto t = launched({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "2"}});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->local_world, 2);
  EXPECT_THROW(launched_rank_device(t->launcher, t->local_rank, t->local_world, 1, true), UsageError);
  const auto s = launched({{"SLURM_PROCID", "5"}, {"SLURM_STEP_NUM_TASKS", "8"}, {"SLURM_LOCALID", "2"}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->local_world, 0);  // Slurm gives the node's tasks as a list: not read
  EXPECT_EQ(launched_rank_device(s->launcher, s->local_rank, s->local_world, 3, true), 2);
  try {
    launched_rank_device(s->launcher, s->local_rank, s->local_world, 2, true);
    ADD_FAILURE() << "local rank 2 was given one of 2 GPUs";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "srun started at least 3 ranks on this node, which shows 2 GPUs; start at most 2 a node, one a GPU");
  }
  // srun --gpus-per-task=1: local rank 2 sees one GPU, its own.
  EXPECT_EQ(launched_rank_device(s->launcher, s->local_rank, s->local_world, 1, false), 0);
  EXPECT_EQ(launched_rank_device(m->launcher, 3, 4, 2, false), 1);  // shown two GPUs: local rank 3 takes the second
}

TEST(LaunchEnv, SrunsStepAndMpirunAreReadAndMpirunComesFirst) {
  const auto s = launched({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_LOCALID", "1"}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->launcher, "srun");
  EXPECT_EQ(s->rank, 1);
  EXPECT_EQ(s->rendezvous, "");  // no MASTER_ADDR: the caller asks for one or --rendezvous
  // A batch script's own shell has the allocation's variables but no step's: no rank of several.
  EXPECT_FALSE(launched({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"}}));
  const auto m = launched({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"},
                           {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}, {"RANK", "9"}, {"WORLD_SIZE", "10"}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->launcher, "mpirun");
  EXPECT_EQ(m->rank, 2);
}

TEST(LaunchEnv, OneRankNoLauncherOrAnOptOutIsNoRankOfSeveral) {
  EXPECT_FALSE(launched({}));
  EXPECT_FALSE(launched({{"RANK", "0"}, {"WORLD_SIZE", "1"}}));
  EXPECT_FALSE(launched({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"SORTBENCH_LAUNCHER", "none"}}));
}

// Rows name what started the ranks in issue 51's words.
TEST(LaunchEnv, RowsRecordTheLauncherAsMpiSlurmEnvRendezvousOrThreads) {
  EXPECT_EQ(launcher_detail(launched({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}})->launcher, true),
            "mpi");
  EXPECT_EQ(launcher_detail(launched({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}})->launcher, true), "slurm");
  EXPECT_EQ(launcher_detail(launched({{"RANK", "1"}, {"WORLD_SIZE", "2"}})->launcher, true), "env");
  EXPECT_EQ(launcher_detail("", true), "rendezvous");
  EXPECT_EQ(launcher_detail("", false), "threads");
}

TEST(LaunchEnv, NonsenseIsAUsageErrorNamingTheVariable) {
  try {
    launched({{"RANK", "two"}, {"WORLD_SIZE", "4"}});
    ADD_FAILURE() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("RANK=two (set by torchrun)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(launched({{"RANK", "4"}, {"WORLD_SIZE", "4"}}), UsageError);
  EXPECT_THROW(launched({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "x"}}),
               UsageError);
}

TEST(LaunchEnv, ALaunchedRankWithNowhereToMeetIsExitTwo) {
  const auto r = test::run_command("RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 " + test::exe() + " run -n 1000 --algo cub-radix",
                                   true);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("rank 1 of 2 was started by torchrun but the ranks have nowhere to meet"), std::string::npos)
      << r.err;
  // mpirun's variables without MASTER_ADDR would have MPI broadcast rank 0's address; with no
  // Open MPI to load, the line says so beside the fix.
  void* open_mpi = ::dlopen("libmpi.so.40", RTLD_LAZY);
  if (open_mpi) {
    ::dlclose(open_mpi);
  } else {
    const auto mpi = test::run_command("env -u OPAL_PREFIX OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "
                                       "OMPI_COMM_WORLD_LOCAL_RANK=1 " + test::exe() + " run -n 1000 --algo cub-radix",
                                       true);
    EXPECT_EQ(mpi.exit_code, 2) << mpi.err;
    EXPECT_NE(mpi.err.find("rank 1 of 2 was started by mpirun but the ranks have nowhere to meet (Open MPI's "
                           "library cannot be loaded: "),
              std::string::npos)
        << mpi.err;
  }
  // On the CPU backend the launcher's variables are not sortbench's business.
  const auto cpu = test::run_command("RANK=1 WORLD_SIZE=2 " + test::exe() + " run -n 1000 --backend cpu "
                                     "--algo cpu-std-sort --reps 1 --quiet",
                                     true);
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
}

#if SORTBENCH_HAVE_NCCL
// A port no one listens on now (the kernel's pick for port 0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(TcpRendezvous, EveryRankGetsRankZerosBytesOnceAllCame) {
  const std::string at = "tcp://127.0.0.1:" + std::to_string(free_port());
  const std::string id(128, '\x5a');
  constexpr int world = 4;
  std::vector<std::string> got(world);
  std::vector<std::thread> ranks;
  // The others start first: they retry until rank 0 listens.
  for (int r = world - 1; r >= 0; --r)
    ranks.emplace_back([&, r] { got[r] = tcp_exchange(at, r, world, r == 0 ? id : std::string()).payload; });
  for (auto& t : ranks) t.join();
  for (int r = 0; r < world; ++r) EXPECT_EQ(got[r], id) << "rank " << r;
}

TEST(TcpRendezvous, ARankThatNeverComesIsAUsageErrorNamingTheCount) {
  setenv("SORTBENCH_RENDEZVOUS_TIMEOUT", "1", 1);
  const std::string at = "tcp://127.0.0.1:" + std::to_string(free_port());
  try {
    tcp_exchange(at, 0, 3, std::string(128, 'x'));
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("1 of 3 ranks came"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tcp_exchange("tcp://127.0.0.1", 1, 2, ""), Error);  // no port
  unsetenv("SORTBENCH_RENDEZVOUS_TIMEOUT");
}

// Under mpirun with no MASTER_ADDR (tests/CMakeLists.txt runs this at 2 and 4 ranks): rank 0's
// address by MPI's broadcast, the same on every rank, where they then meet and finish a run.
TEST(MpiRendezvous, RankZerosAddressByMpiLetsEveryRankMeet) {
  const auto rank = launched_rank([](const char* name) { return std::getenv(name); });
  if (!rank || rank->launcher != "mpirun") GTEST_SKIP() << "not started by mpirun with more than one rank";
  std::string why;
  const auto address = mpi_rendezvous_address(rank->rank, rank->world, why);
  ASSERT_TRUE(address) << why;
  EXPECT_TRUE(is_tcp_rendezvous(*address)) << *address;
  EXPECT_EQ(mpi_rendezvous_address(rank->rank, rank->world, why), address) << "a second call answers the first's";
  TcpMeeting met = tcp_exchange(*address, rank->rank, rank->world, rank->rank == 0 ? "rank 0's bytes" : "");
  EXPECT_EQ(met.payload, "rank 0's bytes") << "rank " << rank->rank << " at " << *address;
  RunFailure failure;
  failure.attach(std::move(met.link));
  failure.finish();
  EXPECT_FALSE(failure.any()) << failure.message();
}

// Rank r's side of a tcp:// meeting: its RunFailure, linked to the others by the rendezvous.
std::unique_ptr<RunFailure> linked_rank(const std::string& at, int r, int world) {
  TcpMeeting met = tcp_exchange(at, r, world, r == 0 ? std::string(128, 'i') : std::string());
  auto failure = std::make_unique<RunFailure>();
  failure->attach(std::move(met.link));
  return failure;
}
// The ranks `ranks` of a world meeting at `at`, each in a thread of this process.
std::vector<std::unique_ptr<RunFailure>> linked_ranks(const std::string& at, const std::vector<int>& ranks, int world) {
  std::vector<std::unique_ptr<RunFailure>> failures(world);
  std::vector<std::thread> threads;
  for (int r : ranks) threads.emplace_back([&, r] { failures[r] = linked_rank(at, r, world); });
  for (auto& t : threads) t.join();
  return failures;
}
// Whether f hears of a failure within 5 s (its waits look every ~20 ms).
bool hears_failure(RunFailure& f) {
  for (int i = 0; i < 1000; ++i) {
    if (f.any()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST(TcpRendezvous, ARankThatFailsStopsTheOthersWithItsCodeAndMessage) {
  const std::string at = "tcp://127.0.0.1:" + std::to_string(free_port());
  auto ranks = linked_ranks(at, {2, 1, 0}, 3);
  const std::string why = "rank 1 (GPU 1) needs 9.0 GiB but 2.0 GiB are free; lower -n or add GPUs (--gpus)";
  ranks[1]->set(ExitCode::device_memory, why, 1);
  for (int r : {0, 2}) {  // rank 2 hears it from rank 0
    ASSERT_TRUE(hears_failure(*ranks[r])) << "rank " << r;
    EXPECT_EQ(ranks[r]->code(), ExitCode::device_memory) << "rank " << r;
    EXPECT_EQ(ranks[r]->message(), why) << "rank " << r;
  }
}

// A process killed during the run (no message, no finish): every other rank stops, exit 2, naming it.
TEST(TcpRendezvous, ARankWhoseProcessDiesStopsTheOthersNamingIt) {
  const std::string at = "tcp://127.0.0.1:" + std::to_string(free_port());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto rank2 = linked_rank(at, 2, 3);
      ::kill(::getpid(), SIGKILL);
    } catch (...) {
    }
    ::_exit(1);
  }
  auto ranks = linked_ranks(at, {1, 0}, 3);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "rank 2's process should have been killed after the meeting";
  for (int r : {0, 1}) {
    ASSERT_TRUE(hears_failure(*ranks[r])) << "rank " << r;
    EXPECT_EQ(ranks[r]->code(), ExitCode::usage) << "rank " << r;
    EXPECT_NE(ranks[r]->message().find("rank 2 went away during the run"), std::string::npos) << ranks[r]->message();
  }
}

// Ranks 1..3 finish first (each then waits for rank 0's end of its connection): rank 0, still in
// its run, hears their connections end after the finish, which is no failure.
TEST(TcpRendezvous, RanksThatFinishTheRunHearNoFailure) {
  const std::string at = "tcp://127.0.0.1:" + std::to_string(free_port());
  auto ranks = linked_ranks(at, {3, 2, 1, 0}, 4);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int r = 1; r < 4; ++r) threads.emplace_back([&, r] { ranks[r]->finish(); });
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(ranks[0]->any()) << ranks[0]->message();
  }
  ranks[0]->finish();
  for (auto& t : threads) t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "finish waits for its peers' ends";
  for (int r = 0; r < 4; ++r) EXPECT_FALSE(ranks[r]->any()) << "rank " << r << ": " << ranks[r]->message();
}

// Processes cannot copy into one another's memory (that would take CUDA IPC handles): their ranks
// exchange over NCCL, and asking them for peer copies is a usage error naming the fix. Decided
// without touching a GPU.
TEST(PeerCopiesChoice, RanksInSeparateProcessesExchangeOverNccl) {
  RunFailure failure;
  EXPECT_EQ(PeerCopies::for_run(ExchangeLink::automatic, {0}, true, failure), nullptr);
  EXPECT_EQ(PeerCopies::for_run(ExchangeLink::nccl, {0, 1}, false, failure), nullptr);
  EXPECT_EQ(PeerCopies::for_run(ExchangeLink::copy, {0}, false, failure), nullptr);  // one rank: nothing to copy
  try {
    PeerCopies::for_run(ExchangeLink::copy, {1}, true, failure);
    FAIL() << "link=copy taken by processes";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_EQ(std::string(e.what()),
              "--param link=copy needs the ranks as threads of one process (run --gpus N) on GPUs that reach one "
              "another's memory, but its ranks are separate processes; give link=nccl or leave link out");
  }
}
#endif

}  // namespace
}  // namespace sb
