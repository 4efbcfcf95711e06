// The ranks' rendezvous (rank_rendezvous.hpp).
#include "sortbench/place/rank_rendezvous.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/timing/measure.hpp"

namespace sb {

namespace {

// How long a rank waits for the other processes at the rendezvous (SORTBENCH_RENDEZVOUS_TIMEOUT
// seconds, default 300): a rank that never starts must not leave the others waiting forever.
double rendezvous_timeout_s() {
  const char* v = std::getenv("SORTBENCH_RENDEZVOUS_TIMEOUT");
  return v && *v ? std::atof(v) : 300.0;
}

Error rendezvous_timeout(int rank, int world, const std::string& dir, const std::string& what) {
  return Error(ExitCode::usage,
               fmt::format("rank {}: {} in {} after {:.0f} s; start every rank 0..{} with --world {} and the same "
                           "--rendezvous (an empty directory on a file system they share)",
                           rank, what, dir, rendezvous_timeout_s(), world - 1, world));
}

}  // namespace

bool StartGate::arrive_and_wait(RunFailure& failure, int rank) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    cv_.notify_all();
    while (arrived_ < ranks_ && !failure.any()) cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  if (failure.any()) return false;
  if (dir_.empty()) return true;
  std::ofstream(dir_ + "/ready-" + std::to_string(rank)) << "ready\n";
  const double deadline = steady_now_s() + rendezvous_timeout_s();
  for (int q = 0; q < world_; ++q)
    while (!std::filesystem::exists(dir_ + "/ready-" + std::to_string(q))) {
      if (failure.any()) return false;
      if (steady_now_s() > deadline)
        throw rendezvous_timeout(rank, world_, dir_, fmt::format("rank {} is not ready", q));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  return true;
}

void StartGate::wake() {
  std::lock_guard<std::mutex> lock(mutex_);
  cv_.notify_all();
}

ncclUniqueId shared_unique_id(const DistributedRequest& request, RunFailure& failure) {
  ncclUniqueId id{};
  const int rank = std::max(request.process_rank, 0);
  if (request.process_rank <= 0) SB_NCCL_CHECK(ncclGetUniqueId(&id), rank);
  if (request.process_rank < 0) return id;
  const std::string path = request.rendezvous + "/nccl-id";
  if (request.process_rank == 0) {
    const std::string aside = path + ".partial";
    std::ofstream(aside, std::ios::binary).write(id.internal, sizeof id.internal);
    std::filesystem::rename(aside, path);
    return id;
  }
  const double deadline = steady_now_s() + rendezvous_timeout_s();
  while (!std::filesystem::exists(path)) {
    if (failure.any()) throw Error(failure.code(), failure.message());
    if (steady_now_s() > deadline)
      throw rendezvous_timeout(rank, request.process_world, request.rendezvous, "no nccl-id");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ifstream(path, std::ios::binary).read(id.internal, sizeof id.internal);
  return id;
}

}  // namespace sb
