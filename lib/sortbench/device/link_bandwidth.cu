// The host link's copy rates (link_bandwidth.hpp), issue 37.
#include "sortbench/device/link_bandwidth.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/host_memory.hpp"

namespace sb {
namespace {

// Two warm-ups (the first copy pays for mapping the pinned pages into the GPU's address space),
// then the best of five: the floor a streamed sort is held to must be the rate the link can
// reach. A median of three read 36.8 GB/s host to device in one run where a streamed sort then
// moved 51 GB/s, which would have put that sort below its own floor (issue 37).
constexpr int kWarmups = 2;
constexpr int kRepetitions = 5;

class Streams {
 public:
  Streams() {
    for (auto& s : s_) SB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto& e : e_) SB_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Streams() {
    for (auto& e : e_)
      if (e) cudaEventDestroy(e);
    for (auto& s : s_)
      if (s) cudaStreamDestroy(s);
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;

  // Milliseconds from before the first copy is queued to after the last one ends: with both
  // directions, the second stream starts from the first's start event and the first waits for
  // the second's end, so the elapsed time covers the pair.
  template <typename Queue0, typename Queue1>
  float time(Queue0&& on_first, Queue1&& on_second, bool second) {
    SB_CUDA_CHECK(cudaEventRecord(e_[0], s_[0]));
    on_first(s_[0]);
    if (second) {
      SB_CUDA_CHECK(cudaStreamWaitEvent(s_[1], e_[0], 0));
      on_second(s_[1]);
      SB_CUDA_CHECK(cudaEventRecord(e_[2], s_[1]));
      SB_CUDA_CHECK(cudaStreamWaitEvent(s_[0], e_[2], 0));
    }
    SB_CUDA_CHECK(cudaEventRecord(e_[1], s_[0]));
    SB_CUDA_CHECK(cudaEventSynchronize(e_[1]));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, e_[0], e_[1]));
    return ms;
  }

 private:
  cudaStream_t s_[2] = {};
  cudaEvent_t e_[3] = {};
};

template <typename Sample>
double best_gbs(double bytes_moved, Sample&& sample) {
  for (int i = 0; i < kWarmups; ++i) sample();
  std::vector<float> ms;
  for (int i = 0; i < kRepetitions; ++i) ms.push_back(sample());
  const double best_ms = *std::min_element(ms.begin(), ms.end());
  return best_ms > 0 ? bytes_moved / (best_ms * 1e-3) / 1e9 : 0.0;
}

double round_tenth(double v) { return std::round(v * 10.0) / 10.0; }

}  // namespace

LinkRates measure_link_rates(std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  // Two device buffers, and room left for whatever else is resident.
  bytes = std::max<std::size_t>(std::min(bytes, free_bytes / 4), 1);
  PinnedBuffer up(bytes, "measuring the host link"), down(bytes, "measuring the host link");
  DeviceBuffer d_up(bytes), d_down(bytes);
  // Touched once, so neither side copies pages the OS has not yet backed.
  std::fill_n(up.as<unsigned char>(), bytes, 1);
  std::fill_n(down.as<unsigned char>(), bytes, 0);
  SB_CUDA_CHECK(cudaMemset(d_down.get(), 2, bytes));
  SB_CUDA_CHECK(cudaDeviceSynchronize());

  Streams streams;
  auto h2d = [&](cudaStream_t s) {
    SB_CUDA_CHECK(cudaMemcpyAsync(d_up.get(), up.get(), bytes, cudaMemcpyHostToDevice, s));
  };
  auto d2h = [&](cudaStream_t s) {
    SB_CUDA_CHECK(cudaMemcpyAsync(down.get(), d_down.get(), bytes, cudaMemcpyDeviceToHost, s));
  };
  auto none = [](cudaStream_t) {};
  const double b = static_cast<double>(bytes);
  LinkRates r;
  r.h2d_gbs = best_gbs(b, [&] { return streams.time(h2d, none, false); });
  r.d2h_gbs = best_gbs(b, [&] { return streams.time(d2h, none, false); });
  r.both_gbs = best_gbs(2 * b, [&] { return streams.time(h2d, d2h, true); });
  return r;
}

nlohmann::json to_json(const LinkRates& rates) {
  return {{"link_h2d_gbs", round_tenth(rates.h2d_gbs)},
          {"link_d2h_gbs", round_tenth(rates.d2h_gbs)},
          {"link_both_gbs", round_tenth(rates.both_gbs)}};
}

}  // namespace sb
