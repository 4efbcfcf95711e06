// Measures the fabric a distributed run has (issue 38; fabric_rates.hpp): a device-to-device
// copy, an all-to-all of every rank over the run's link (Rank::exchange: peer copies or
// ncclSend/ncclRecv), a one-word all-reduce and an empty
// kernel, each the best of a few tries (the first pays for warm-up), then agreed over the ranks.
#include "sortbench/algo/fabric_rates.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/event_pair.hpp"

namespace sb {

namespace {

__global__ void empty_kernel() {}

constexpr int kTries = 3;

// The best of kTries of `body`, timed with events on the rank's stream.
template <typename Body>
double best_seconds(const Rank& rank, Body&& body) {
  EventPair events;
  double best = 0;
  for (int t = 0; t < kTries; ++t) {
    SB_CUDA_CHECK(cudaEventRecord(events.start(), rank.stream()));
    body();
    SB_CUDA_CHECK(cudaEventRecord(events.stop(), rank.stream()));
    rank.wait();  // watches the other ranks, where the event's own wait would block on a failed peer
    const double ms = events.elapsed_ms();
    if (t == 0 || ms / 1e3 < best) best = ms / 1e3;
  }
  return best;
}

}  // namespace

FabricRates measure_fabric(const Rank& rank) {
  const cudaStream_t stream = rank.stream();
  const int world = rank.world(), me = rank.rank();
  std::size_t free_bytes = 0, total_bytes = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Large enough that the copies run at their asymptotic rate, small enough to leave room.
  const std::size_t copy_bytes = std::min<std::size_t>(std::size_t{256} << 20, free_bytes / 8);
  // 128 MiB a peer: at 32 MiB the copies' set-up and the barrier timed with them held an H200
  // pair at 250-290 GB/s where a 2^30-pair sample sort moves 350 (issue 50).
  const std::size_t per_peer = std::min<std::size_t>(std::size_t{128} << 20, free_bytes / (8 * world));
  // Seconds of: one copy; one all-to-all; 20 all-reduces of a word; 50 empty kernels.
  double seconds[4] = {0, 0, 0, 0};
  {
    DeviceBuffer a(copy_bytes), b(copy_bytes);
    SB_CUDA_CHECK(cudaMemsetAsync(a.get(), 0, copy_bytes, stream));
    seconds[0] = best_seconds(rank, [&] {
      SB_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream));
    });
  }
  DeviceBuffer word(sizeof(std::uint64_t));
  SB_CUDA_CHECK(cudaMemsetAsync(word.get(), 0, sizeof(std::uint64_t), stream));
  if (world > 1) {
    DeviceBuffer send(per_peer * world), recv(per_peer * world);
    SB_CUDA_CHECK(cudaMemsetAsync(send.get(), 0, send.bytes(), stream));
    std::vector<PeerTransfer> transfers;
    for (int q = 0; q < world; ++q)
      if (q != me)
        transfers.push_back({q, send.as<char>() + q * per_peer, per_peer, recv.as<char>() + q * per_peer, per_peer});
    seconds[1] = best_seconds(rank, [&] {
      rank.barrier(word.get());
      rank.exchange(transfers);
    });
    seconds[2] = best_seconds(rank, [&] {
                   for (int i = 0; i < 20; ++i) rank.barrier(word.get());
                 }) / 20;
  }
  seconds[3] = best_seconds(rank, [&] {
                 for (int i = 0; i < 50; ++i) empty_kernel<<<1, 32, 0, stream>>>();
                 SB_CUDA_CHECK_LAUNCH();
               }) / 50;
  // The slowest rank's times (and the smallest L2) on every rank.
  double agreed[5] = {seconds[0], seconds[1], seconds[2], seconds[3], -double(rank.ctx().props.l2CacheSize)};
  agree_max(rank, agreed, 5);
  FabricRates r;
  r.copy_gbs = copy_bytes / agreed[0] / 1e9;
  // The exchange was timed behind a barrier of its own: its latency is the model's, apart.
  const double exchange_s = std::max(agreed[1] - agreed[2], 0.5 * agreed[1]);
  r.exchange_gbs = world > 1 ? per_peer * double(world - 1) / exchange_s / 1e9 : 0;
  r.latency_s = agreed[2];
  r.launch_s = agreed[3];
  r.l2_bytes = -agreed[4];
  return r;
}

void agree_max(const Rank& rank, double* values, int count) {
  if (rank.world() <= 1) return;
  const std::size_t bytes = sizeof(double) * std::size_t(count);
  DeviceBuffer d_values(bytes);
  SB_CUDA_CHECK(cudaMemcpyAsync(d_values.get(), values, bytes, cudaMemcpyHostToDevice, rank.stream()));
  SB_NCCL_CHECK(
      ncclAllReduce(d_values.get(), d_values.get(), count, ncclFloat64, ncclMax, rank.comm(), rank.stream()),
      rank.rank());
  rank.to_host(values, d_values.get(), bytes);
}

Details fabric_details(const FabricRates& r) {
  return {{"fabric_copy_gbs", fmt::format("{:.1f}", r.copy_gbs)},
          {"fabric_exchange_gbs", fmt::format("{:.1f}", r.exchange_gbs)},
          {"fabric_latency_us", fmt::format("{:.1f}", r.latency_s * 1e6)},
          {"fabric_launch_us", fmt::format("{:.2f}", r.launch_s * 1e6)}};
}

}  // namespace sb
