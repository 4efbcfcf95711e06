// The cost of each radix-lsd phase (issue 5): histogram, scan and scatter of every pass
// timed with CUDA events between the phases, summed over the passes of one sort, median of
// several sorts, for 2^26 uniform u32 keys (range 2^26: 26 bits to sort) at 4 and 8 bits.
// Prints a table (docs/radix.md quotes it) and checks that the timed sorts did sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "radix/radix.hpp"
#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/generator.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

constexpr int kSamples = 7;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(RadixPhases, TimesHistogramScanScatterAt2Pow26) {
  const InputSpec spec = make_spec(std::uint64_t{1} << 26, Distribution::uniform, KeyType::u32, Payload::none);
  const std::size_t kb = spec.n * sizeof(std::uint32_t);
  DeviceBuffer input(kb), keys0(kb), keys1(kb);
  generate_device(spec, input.get(), nullptr, nullptr);
  const InputStats stats = input_stats_device(spec, input.get(), nullptr);
  std::cout << fmt::format("radix-lsd phases, n = 2^26 uniform u32, range [{}, {}], ms per sort "
                           "(median of {}):\n", stats.min, stats.max, kSamples);
  std::cout << fmt::format("{:>4} {:>6} {:>10} {:>10} {:>10} {:>10}\n", "bits", "passes", "histogram", "scan",
                           "scatter", "total");
  for (unsigned bits : {4u, 8u}) {
    const SortProblem problem{spec, stats, {{"radix-bits", std::to_string(bits)}}};
    const unsigned passes = radix::pass_plan(problem).passes();
    DeviceBuffer workspace(radix::lsd_workspace_bytes(problem));
    DeviceBuffers b;
    b.keys[0] = keys0.get();
    b.keys[1] = keys1.get();
    b.workspace = workspace.get();
    b.workspace_bytes = workspace.bytes();
    std::vector<cudaEvent_t> events(3 * passes + 1);
    for (auto& e : events) SB_CUDA_CHECK(cudaEventCreate(&e));
    std::array<std::vector<double>, 3> phase_ms;
    std::vector<double> total_ms;
    int result = 0;
    for (int sample = -1; sample < kSamples; ++sample) {  // sample -1: warm-up
      SB_CUDA_CHECK(cudaMemcpy(keys0.get(), input.get(), kb, cudaMemcpyDeviceToDevice));
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      std::size_t next = 0;
      SB_CUDA_CHECK(cudaEventRecord(events[next++], nullptr));
      result = radix::lsd_sort(problem, b, [&](unsigned, radix::LsdPhase) {
        SB_CUDA_CHECK(cudaEventRecord(events[next++], nullptr));
      });
      ASSERT_EQ(next, events.size());
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      if (sample < 0) continue;
      std::array<double, 3> sum{};
      for (std::size_t i = 1; i < events.size(); ++i) {
        float ms = 0;
        SB_CUDA_CHECK(cudaEventElapsedTime(&ms, events[i - 1], events[i]));
        sum[(i - 1) % 3] += ms;
      }
      float total = 0;
      SB_CUDA_CHECK(cudaEventElapsedTime(&total, events.front(), events.back()));
      for (int p = 0; p < 3; ++p) phase_ms[p].push_back(sum[p]);
      total_ms.push_back(total);
    }
    for (auto& e : events) SB_CUDA_CHECK(cudaEventDestroy(e));
    std::cout << fmt::format("{:>4} {:>6} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f}\n", bits, passes,
                             median(phase_ms[0]), median(phase_ms[1]), median(phase_ms[2]), median(total_ms));

    std::vector<std::uint32_t> out(spec.n);
    SB_CUDA_CHECK(cudaMemcpy(out.data(), b.keys[result], kb, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::is_sorted(out.begin(), out.end())) << "bits=" << bits;
  }
}

}  // namespace
}  // namespace sb::test
