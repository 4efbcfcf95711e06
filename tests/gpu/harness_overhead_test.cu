// The foundation issue's overhead bar: for cub-radix at n = 2^28 the median sortbench
// reports is within 3 % of a bare CUDA-event loop around the same CUB call, with the same
// cold protocol (pristine copy and L2 flush before each sample), in the same process.
#include <gtest/gtest.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>

#include "sortbench/session/session.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/algo/registry.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

double bare_loop_median_ms(const InputSpec& spec, int samples) {
  const std::size_t bytes = spec.n * sizeof(std::uint32_t);
  DeviceBuffer pristine(bytes), a(bytes), b(bytes);
  generate_device(spec, pristine.get(), nullptr, nullptr);
  int device = 0, l2 = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  DeviceBuffer flush(static_cast<std::size_t>(l2));
  cub::DoubleBuffer<std::uint32_t> keys(a.as<std::uint32_t>(), b.as<std::uint32_t>());
  std::size_t temp_bytes = 0;
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, spec.n));
  DeviceBuffer temp(temp_bytes);
  cudaEvent_t start, stop;
  SB_CUDA_CHECK(cudaEventCreate(&start));
  SB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < samples + 1; ++i) {
    keys = cub::DoubleBuffer<std::uint32_t>(a.as<std::uint32_t>(), b.as<std::uint32_t>());
    SB_CUDA_CHECK(cudaMemcpyAsync(a.get(), pristine.get(), bytes, cudaMemcpyDeviceToDevice));
    SB_CUDA_CHECK(cudaMemsetAsync(flush.get(), 0, flush.bytes()));
    SB_CUDA_CHECK(cudaEventRecord(start));
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, keys, spec.n));
    SB_CUDA_CHECK(cudaEventRecord(stop));
    SB_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i > 0) ms.push_back(t);  // the first call warms up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

TEST(HarnessOverhead, CubRadixAt2To28WithinThreePercentOfABareLoop) {
  RunPlan plan;
  plan.request.n = std::uint64_t{1} << 28;
  plan.algorithms = {registry().find("cub-radix")};
  plan.settings.min_reps = 30;
  plan.settings.max_noise = 0.005;
  plan.settings.budget_s = 5;
  const InputSpec spec = derive_input_spec(plan.request);
  const double bare_before = bare_loop_median_ms(spec, 30);
  const auto rows = run_benchmark(plan);
  const double bare_after = bare_loop_median_ms(spec, 30);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].status, RowStatus::ok) << rows[0].reason;
  const double bare = 0.5 * (bare_before + bare_after);
  const double harness = rows[0].median_ms();
  std::cout << "cub-radix 2^28: sortbench median " << harness << " ms, bare loop " << bare_before << " / "
            << bare_after << " ms, ratio " << harness / bare << "\n";
  EXPECT_LE(std::fabs(harness / bare - 1.0), 0.03);
}

}  // namespace
}  // namespace sb::test
