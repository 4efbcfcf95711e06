// The peer copies' protocol (issue 51; lib/sortbench/algo/ranks.hpp PeerCopies) on a real GPU, with
// ranks as threads of this process all on device 0, so it runs on a machine of one GPU: the
// all-to-all's transfers (dist_index.hpp all_to_all_transfers) land where NCCL would put them,
// round after round, even where every receiver is still busy with its receive region when the
// senders reach the exchange (a copy that did not wait for the receiver's stream is overwritten
// and shows); and a rank that fails stops the others waiting to meet it. Label gpu-quick.
#include <gtest/gtest.h>

#if SORTBENCH_HAVE_NCCL

#include <chrono>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "distributed/dist_index.hpp"
#include "sortbench/algo/ranks.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"

namespace sb::test {
namespace {

using u64 = std::uint64_t;
using dist::all_to_all_transfers;
using dist::receive_layout;

// Keeps a stream busy for about `ns` nanoseconds, then fills the receive region with a marker.
__global__ void busy_then_fill(std::uint32_t* region, u64 count, long long ns) {
  const long long start = clock64();
  // clock64 counts SM cycles: about 2 GHz, so ns * 2 cycles, give or take.
  while (clock64() - start < ns * 2) {
  }
  for (u64 i = blockIdx.x * u64{blockDim.x} + threadIdx.x; i < count; i += u64{gridDim.x} * blockDim.x)
    region[i] = 0xdeadbeefu;
}

// Element i of rank r's send buffer in round `round`: says who sent it, which and when.
std::uint32_t element(int r, u64 i, int round) { return std::uint32_t(r) << 24 ^ std::uint32_t(i) ^ round << 20; }

void run_ranks(int world, int rounds) {
  const std::vector<int> devices(world, 0);
  RunFailure failure;
  PeerCopies peers(devices, failure);
  // counts[q * world + d]: how many rank q sends rank d, uneven and sometimes none.
  std::vector<u64> counts(std::size_t(world) * world);
  for (int q = 0; q < world; ++q)
    for (int d = 0; d < world; ++d) counts[q * world + d] = (q * 7 + d * 13) % 5 == 0 ? 0 : 1000 + 4099 * q + 37 * d;
  std::vector<std::exception_ptr> errors(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      try {
        SB_CUDA_CHECK(cudaSetDevice(0));
        OwnedStream stream;
        peers.join(r);
        std::vector<u64> cut{0};
        for (int d = 0; d < world; ++d) cut.push_back(cut.back() + counts[r * world + d]);
        const std::vector<u64> layout = receive_layout(counts, r, world);
        DeviceBuffer send(cut.back() * 4 + 4), received(layout.back() * 4 + 4);
        std::vector<std::uint32_t> host(cut.back()), got(layout.back());
        for (int round = 0; round < rounds; ++round) {
          for (u64 i = 0; i < host.size(); ++i) host[i] = element(r, i, round);
          SB_CUDA_CHECK(cudaMemcpyAsync(send.get(), host.data(), host.size() * 4, cudaMemcpyHostToDevice, stream.handle));
          // The receiver is busy with its region (longer on the later ranks) when the exchange starts.
          busy_then_fill<<<32, 256, 0, stream.handle>>>(received.as<std::uint32_t>(), layout.back(),
                                                        2'000'000LL * (r + 1));
          SB_CUDA_CHECK_LAUNCH();
          peers.exchange(r, stream.handle,
                         all_to_all_transfers(r, world, cut, counts, {{send.get(), received.get(), 4}}));
          SB_CUDA_CHECK(cudaMemcpyAsync(got.data(), received.get(), got.size() * 4, cudaMemcpyDeviceToHost,
                                        stream.handle));
          SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
          // From every other rank q its piece for r, where receive_layout puts it (r's own piece
          // is no transfer: the families copy it themselves, so its place keeps the marker).
          for (int q = 0; q < world; ++q) {
            u64 from_q = 0;  // where q's piece for r begins in q's send buffer
            for (int d = 0; d < r; ++d) from_q += counts[q * world + d];
            for (u64 j = 0; j < counts[q * world + r]; ++j) {
              const std::uint32_t want = q == r ? 0xdeadbeefu : element(q, from_q + j, round);
              // A throw, not an assertion: the rank must stop as a failed rank does, or the others
              // wait for it to meet them.
              if (got[layout[q] + j] != want)
                throw std::runtime_error(fmt::format("G {} round {}: rank {} holds {:#x} from rank {} at element {}, "
                                                     "not {:#x}",
                                                     world, round, r, got[layout[q] + j], q, j, want));
            }
          }
        }
      } catch (...) {
        errors[r] = std::current_exception();
        failure.set(ExitCode::internal, "rank failed", r);
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const PeerFailed&) {
      // stopped by the rank that failed, whose own error is reported
    } catch (const std::exception& what) {
      ADD_FAILURE() << what.what();
    }
  }
}

TEST(PeerCopiesQuick, EveryPieceLandsWhereTheReceiverExpectsIt) {
  for (int world : {2, 3, 4}) run_ranks(world, 3);
}

TEST(PeerCopiesQuick, ARankThatFailsStopsTheOthersWaitingToMeetIt) {
  RunFailure failure;
  PeerCopies peers({0, 0}, failure);
  SB_CUDA_CHECK(cudaSetDevice(0));
  OwnedStream stream;
  peers.join(0);
  peers.join(1);
  std::thread failing([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    failure.set(ExitCode::device_memory, "rank 1 ran out of memory", 1);
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(peers.exchange(0, stream.handle, {}), PeerFailed);
  failing.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace sb::test

#else

TEST(PeerCopiesQuick, NeedsNccl) { GTEST_SKIP() << "built without NCCL: no distributed sorts"; }

#endif
