// NVML and the collectors on a real GPU (issue 16): the fields are present and plausible, the
// memory account covers what the harness allocated, and --energy's keys per joule agree with
// keys per second over the batch's average power.
#include <gtest/gtest.h>

#include <iostream>

#include "sortbench/session/session.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb {
namespace {

TEST(NvmlGpu, ClocksTemperatureAndPowerArePlausible) {
  std::string why;
  const std::shared_ptr<const NvmlDevice> nvml = NvmlDevice::open(0, &why);
  if (!nvml) GTEST_SKIP() << "NVML is absent: " << why;
  const ClockReading r = nvml->read_clocks();
  const GpuConditions c = nvml->conditions();
  std::cout << "NVML: SM " << r.sm_mhz << " MHz (max " << c.sm_clock_max_mhz << "), memory " << r.mem_mhz
            << " MHz, " << r.temperature_c << " C, " << r.power_w << " W of " << c.power_limit_w
            << " W, persistence " << (c.persistence_mode ? (*c.persistence_mode ? "on" : "off") : "unknown")
            << ", energy counter " << c.energy_counter << "\n";
  EXPECT_GT(r.sm_mhz, 0u);
  EXPECT_GT(r.mem_mhz, 0u);
  EXPECT_GE(c.sm_clock_max_mhz, r.sm_mhz);
  EXPECT_GE(r.temperature_c, 20);
  EXPECT_LE(r.temperature_c, 100);
  EXPECT_GT(r.power_w, 0.0);
  EXPECT_GT(c.power_limit_w, r.power_w * 0.5);
}

TEST(NvmlGpu, EnergyOfTwoAlgorithmsAgreesWithTheirRateOverPower) {
  std::string why;
  const std::shared_ptr<const NvmlDevice> nvml = NvmlDevice::open(0, &why);
  if (!nvml) GTEST_SKIP() << "NVML is absent: " << why;
  if (!nvml->energy_j()) GTEST_SKIP() << "this GPU has no total-energy counter";
  RunPlan plan;
  plan.request.n = std::uint64_t{1} << 26;
  plan.algorithms = {registry().find("cub-radix"), registry().find("thrust-sort")};
  plan.settings.min_reps = 5;
  plan.settings.budget_s = 0.5;
  plan.settings.energy = true;
  plan.nvml = nvml;
  const auto rows = run_benchmark(plan);
  ASSERT_EQ(rows.size(), 2u);
  for (const ResultRow& r : rows) {
    ASSERT_EQ(r.status, RowStatus::ok) << r.algorithm << ": " << r.reason;
    const double keys_per_s = r.summaries.value_or(summary_tag::keys_per_s, 0);
    const double power = r.summaries.value_or(summary_tag::energy_power, 0);
    const double keys_per_joule = r.summaries.value_or(summary_tag::keys_per_joule, 0);
    std::cout << r.algorithm << ": " << keys_per_s / 1e9 << " Gkeys/s, " << keys_per_joule / 1e6 << " Mkeys/J at "
              << power << " W (idle " << r.summaries.value_or(summary_tag::idle_power, 0) << " W), SM "
              << r.summaries.value_or(summary_tag::sm_clock_median, 0) << " MHz, peak "
              << r.summaries.value_or(summary_tag::peak_bytes, 0) / double(1 << 20) << " MiB, throttled "
              << r.summaries.value_or(summary_tag::throttled_samples, -1) << "\n";
    ASSERT_GT(power, 0) << r.algorithm;
    ASSERT_GT(keys_per_joule, 0) << r.algorithm;
    const double expected = keys_per_s / power;
    EXPECT_GT(keys_per_joule, expected / 2) << r.algorithm;
    EXPECT_LT(keys_per_joule, expected * 2) << r.algorithm;
    // The measured peak covers what the harness allocated for the row.
    EXPECT_GE(r.summaries.value_or(summary_tag::peak_bytes, 0),
              r.summaries.value_or(summary_tag::buffer_bytes, 0) + r.summaries.value_or(summary_tag::workspace_bytes, 0))
        << r.algorithm;
    EXPECT_GT(r.summaries.value_or(summary_tag::sm_clock_median, 0), 0) << r.algorithm;
  }
}

}  // namespace
}  // namespace sb
