// The measurement loop and its collectors on the CPU (issue 16): the stop rule's agreement
// between participants (issue 35), the throttle filter on a clock series with a dip, the memory account, the energy arithmetic, NVML's absent path,
// the busy-GPU rule and the messages a user sees for the new options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "sortbench/session/session.hpp"
#include "sortbench/timing/clock_collector.hpp"
#include "sortbench/report/compare.hpp"
#include "sortbench/timing/energy.hpp"
#include "sortbench/timing/measure.hpp"
#include "sortbench/timing/memory_collector.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/report/report.hpp"

namespace sb {
namespace {

// A timer whose every sample costs the same: the loop's logic without timing anything.
class FixedTimer final : public SampleTimer {
 public:
  void start() override {}
  void stop() override {}
  double elapsed_ms() override { return 1.0; }
};

// Hands out the values of a series, one per call (its last value once it runs out).
template <typename T>
std::function<T()> series(std::vector<T> values) {
  auto at = std::make_shared<std::size_t>(0);
  return [values, at] {
    const T v = values[std::min(*at, values.size() - 1)];
    ++*at;
    return v;
  };
}

ClockReading clock_at(unsigned sm_mhz, std::uint64_t reasons = 0) {
  ClockReading r;
  r.sm_mhz = sm_mhz;
  r.mem_mhz = 2619;
  r.temperature_c = 40;
  r.power_w = 300;
  r.event_reasons = reasons;
  return r;
}

MeasureSettings quiet_settings(int reps) {
  MeasureSettings s;
  s.warmup = 0;
  s.min_reps = reps;
  s.max_noise = 1.0;  // constant samples: stop at min_reps
  return s;
}

SampleSteps no_work() { return {[] {}, [](bool) {}}; }

// A participant that always sees a peer whose samples cost 5 ms and that refuses every third.
class SlowPeer final : public StopRule {
 public:
  using StopRule::StopRule;
  Reading agree(const Reading& own) override {
    ++calls;
    return {std::max(own.sample_ms, 5.0), own.elapsed_s, own.keep && calls % 3 != 0};
  }
  int calls = 0;
};

TEST(StopRule, ParticipantsKeepAndDiscardTheAgreedSamples) {
  MeasureSettings settings;
  settings.warmup = 0;
  settings.min_reps = 4;
  settings.max_noise = 1.0;
  SlowPeer rule(settings);
  FixedTimer timer;
  int runs = 0;
  const MeasureResult m = measure(rule, timer, {[] {}, [&](bool) { ++runs; }}, {}, 0.0);
  EXPECT_EQ(m.samples_ms, (std::vector<double>{5.0, 5.0, 5.0, 5.0})) << "the slowest participant's time is kept";
  EXPECT_EQ(m.discarded, 1u) << "a sample any participant refused is retaken by all";
  EXPECT_EQ(runs, 5);
}

TEST(Throttle, ASeriesWithAClockDipKeepsOnlyTheGoodSamplesAndCountsTheRest) {
  // Reference 1980 MHz (read at begin); 0.75 of it is 1485: 1200 and 1100 are throttled.
  ClockCollector clocks(series(std::vector<ClockReading>{clock_at(1980), clock_at(1980), clock_at(1970),
                                                         clock_at(1200, 0x4), clock_at(1100, 0x4), clock_at(1960),
                                                         clock_at(1980), clock_at(1975), clock_at(1980)}),
                        0.75);
  FixedTimer timer;
  const MeasureResult m = measure(quiet_settings(6), timer, no_work(), {&clocks}, 0.0);
  EXPECT_EQ(m.samples_ms.size(), 6u);
  EXPECT_EQ(m.discarded, 2u);
  EXPECT_EQ(clocks.filter().discarded(), 2u);
  ASSERT_EQ(clocks.kept().size(), 6u);
  for (const ClockReading& r : clocks.kept()) EXPECT_GE(r.sm_mhz, 1485u);
  Summaries s;
  clocks.summarize(s);
  EXPECT_EQ(s.value_or(summary_tag::throttled_samples, -1), 2);
  EXPECT_EQ(s.value_or(summary_tag::sm_clock_min, 0), 1960);
  EXPECT_EQ(s.value_or(summary_tag::sm_clock_median, 0), 1977.5);
  EXPECT_EQ(s.value_or(summary_tag::clock_event_reasons, 0), 4);  // seen on the discarded samples
}

TEST(Throttle, AllSamplesThrottledEndsTheLoopWithNoTime) {
  ClockCollector clocks(series(std::vector<ClockReading>{clock_at(1980), clock_at(900)}), 0.75);
  FixedTimer timer;
  const MeasureSettings settings = quiet_settings(10);
  const MeasureResult m = measure(settings, timer, no_work(), {&clocks}, 0.0);
  EXPECT_TRUE(m.samples_ms.empty());
  EXPECT_EQ(m.discarded, max_discarded_samples(settings));
  Summaries s;
  clocks.summarize(s);
  EXPECT_FALSE(s.get(summary_tag::sm_clock_median).has_value());
}

TEST(Throttle, AClockNvmlDidNotReadNeverDiscards) {
  ThrottleFilter filter(0.75);
  EXPECT_TRUE(filter.accept(100));  // no reference yet
  filter.set_reference(2000);
  EXPECT_TRUE(filter.accept(0));
  EXPECT_TRUE(filter.accept(1500));
  EXPECT_FALSE(filter.accept(1499));
  EXPECT_EQ(filter.discarded(), 1u);
}

TEST(Memory, ThePeakIsTheHighestUseSeenAboveTheBaseline) {
  MemoryAccount account;
  account.workspace_bytes = 4096;
  account.buffer_bytes = 3 * 8192;
  account.baseline_used = 1000;
  // begin() reads once, then one read per launched sample.
  MemoryCollector watch(series(std::vector<std::uint64_t>{30000, 41000, 47000, 39000}), account);
  FixedTimer timer;
  measure(quiet_settings(3), timer, no_work(), {&watch}, 0.0);
  EXPECT_EQ(account.peak_bytes(), 46000u);
  Summaries s;
  account.summarize(s, 2048);
  EXPECT_EQ(s.value_or(summary_tag::workspace_bytes, 0), 4096);
  EXPECT_EQ(s.value_or(summary_tag::buffer_bytes, 0), 3 * 8192);
  EXPECT_EQ(s.value_or(summary_tag::peak_bytes, 0), 46000);
  EXPECT_DOUBLE_EQ(s.value_or(summary_tag::bytes_per_key, 0), 46000.0 / 2048);
}

TEST(Memory, NeverReadLeavesNoPeak) {
  MemoryAccount account;
  account.workspace_bytes = 10;
  Summaries s;
  account.summarize(s, 100);
  EXPECT_TRUE(s.get(summary_tag::workspace_bytes).has_value());
  EXPECT_FALSE(s.get(summary_tag::peak_bytes).has_value());
  EXPECT_FALSE(s.get(summary_tag::bytes_per_key).has_value());
}

TEST(Energy, JoulesPerSortSubtractTheRestoreCopies) {
  const EnergyBatch sorts{300.0, 1.5, 100};
  const EnergyBatch restores{20.0, 1.0, 400};
  const EnergyBatch idle{70.0, 1.0, 1};
  const auto e = energy_figures(sorts, restores, idle, 1u << 26);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->joules_per_sort, 3.0 - 0.05);
  EXPECT_DOUBLE_EQ(e->keys_per_joule, (1u << 26) / 2.95);
  EXPECT_DOUBLE_EQ(e->power_w, 200.0);
  EXPECT_DOUBLE_EQ(e->idle_power_w, 70.0);
  Summaries s;
  summarize_energy(*e, sorts, s);
  EXPECT_EQ(s.value_or(summary_tag::energy_batch_sorts, 0), 100);
  EXPECT_DOUBLE_EQ(s.value_or(summary_tag::keys_per_joule, 0), e->keys_per_joule);
}

TEST(Energy, ADifferenceBelowTheCounterResolutionIsNoFigure) {
  EXPECT_FALSE(energy_figures({1.0, 1.0, 100}, {1.0, 1.0, 100}, {}, 1000).has_value());  // zero per sort
  EXPECT_FALSE(energy_figures({}, {}, {}, 1000).has_value());                            // no batch
}

TEST(Energy, TheBatchReadsTheCounterAroundAllItsSteps) {
  double counter = 1000.0;
  std::uint64_t steps = 0;
  const EnergyBatch b = run_energy_batch([&] { ++steps, counter += 0.5; }, [] {}, [&] { return counter; }, 0.02);
  EXPECT_EQ(b.runs, steps);
  EXPECT_GT(b.runs, 0u);
  EXPECT_DOUBLE_EQ(b.joules, 0.5 * static_cast<double>(steps));
  EXPECT_GE(b.seconds, 0.02);
}

TEST(Nvml, AnAbsentLibraryIsOneLineAndNoFailure) {
  ::setenv("SORTBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  std::string why;
  const auto nvml = NvmlDevice::open(0, &why);
  ::unsetenv("SORTBENCH_NVML_LIBRARY");
  EXPECT_EQ(nvml, nullptr);
  EXPECT_FALSE(why.empty());
  const std::string line = nvml_absent_line(why);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_NE(line.find("NVML is absent"), std::string::npos) << line;
  const std::string info = format_conditions(GpuConditions{false, why});
  EXPECT_EQ(std::count(info.begin(), info.end(), '\n'), 1) << info;
}

TEST(Nvml, ClockEventReasonsHaveNvidiaSmiNames) {
  if (clock_event_reason_names(0x4) == "0x4") GTEST_SKIP() << "built without nvml.h: reasons are shown as a mask";
  EXPECT_EQ(clock_event_reason_names(0x4 | 0x8), "sw_power_cap, hw_slowdown");
  EXPECT_EQ(clock_event_reason_names(0), "");
  EXPECT_EQ(slowdown_reasons(0x1 | 0x2), 0u);  // idle and application clocks are no slowdown
}

TEST(BusyGpu, OtherProcessesAboveTenPercentAreNamed) {
  const std::uint64_t total = 100ull << 30;
  std::vector<GpuProcess> all(4);
  all[0] = {100, "sortbench", 50ull << 30, 90, 90};  // ourselves
  all[1] = {200, "python3", 20ull << 30, 0, 0};      // 20 % of the memory
  all[2] = {300, "train", 1ull << 30, 35, 5};        // 35 % of SM time
  all[3] = {400, "idle", 5ull << 30, 5, 5};          // below both
  const auto busy = busy_processes(all, total, 100);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0].pid, 200u);
  EXPECT_EQ(busy[1].pid, 300u);
  const std::string warning = format_busy_warning(0, busy);
  EXPECT_NE(warning.find("pid 200 (python3)"), std::string::npos) << warning;
  EXPECT_EQ(std::count(warning.begin(), warning.end(), '\n'), 1) << warning;
  EXPECT_EQ(format_busy_warning(0, {}), "");
}

TEST(MeasureReport, ClocksMemoryAndEnergyAreSummariesAtTheirPaths) {
  ResultRow r;
  r.algorithm = "x";
  r.spec.n = 16;
  r.summaries.set(summary_tag::sm_clock_median, 1980);
  r.summaries.set(summary_tag::throttled_samples, 3);
  r.summaries.set(summary_tag::peak_bytes, 4096);
  r.summaries.set(summary_tag::keys_per_joule, 2.5e8);
  const auto j = to_json(r);
  EXPECT_EQ(j.at("clocks").at("sm_mhz").at("median"), 1980);
  EXPECT_EQ(j.at("clocks").at("throttled_samples"), 3);
  EXPECT_EQ(j.at("memory").at("peak_bytes"), 4096);
  EXPECT_DOUBLE_EQ(j.at("energy").at("keys_per_joule").get<double>(), 2.5e8);
  r.status = RowStatus::throttled;
  EXPECT_EQ(row_from_json(to_json(r)).status, RowStatus::throttled);
  const std::string table = format_table({r});
  EXPECT_NE(table.find("SM MHz"), std::string::npos) << table;
  EXPECT_NE(table.find("Mkeys/J"), std::string::npos) << table;
  EXPECT_EQ(format_table({ResultRow{}}).find("Mkeys/J"), std::string::npos);  // sparse: absent without values
}

TEST(MeasureReport, TheContextRecordsConditionsAndBusyProcesses) {
  RunContext c;
  GpuConditions g;
  g.nvml = true;
  g.sm_clock_mhz = 1980;
  g.persistence_mode = true;
  c.conditions = g;
  c.busy = {{200, "python3", 1ull << 30, 50, 0}};
  c.settings.throttle_threshold = 0.8;
  c.settings.energy = true;
  const auto j = to_json(c);
  EXPECT_EQ(j.at("gpu_conditions").at("sm_clock_mhz"), 1980);
  EXPECT_EQ(j.at("gpu_conditions").at("persistence_mode"), true);
  EXPECT_TRUE(j.at("gpu_conditions").at("app_clocks_locked").is_null());
  EXPECT_EQ(j.at("gpu_conditions").at("busy_processes").at(0).at("pid"), 200);
  EXPECT_EQ(j.at("measurement").at("throttle_threshold"), 0.8);
  EXPECT_EQ(j.at("measurement").at("energy"), true);
}

ResultRow compared_row(double median_ms, double peak, double throttled, RowStatus status = RowStatus::ok) {
  ResultRow r;
  r.algorithm = "hp-1";
  r.spec.n = 1000;
  r.status = status;
  if (status == RowStatus::ok) {
    r.summaries.set(summary_tag::samples, 10);
    r.summaries.set(summary_tag::median_ms, median_ms);
  }
  r.summaries.set(summary_tag::peak_bytes, peak);
  r.summaries.set(summary_tag::bytes_per_key, peak / 1000);
  r.summaries.set(summary_tag::throttled_samples, throttled);
  return r;
}

TEST(MeasureCompare, MemoryAndThrottleChangesStandBesideTheTime) {
  const std::vector<ResultRow> base{compared_row(1.0, 12000, 0)};
  const std::vector<ResultRow> next{compared_row(1.0, 16000, 3)};
  const CompareReport report = compare_results(base, next, 0.05);
  ASSERT_EQ(report.matched.size(), 1u);
  EXPECT_DOUBLE_EQ(report.matched[0].memory_ratio, 16000.0 / 12000);
  const std::string text = format_comparison(report, "a", "b", 0.05);
  EXPECT_NE(text.find("12.0 -> 16.0 (1.333)"), std::string::npos) << text;
  EXPECT_NE(text.find("0 -> 3"), std::string::npos) << text;
}

TEST(MeasureCompare, AThrottledRowIsNoRegressionButIsNamed) {
  const CompareReport report = compare_results({compared_row(1.0, 12000, 0)},
                                               {compared_row(0, 12000, 20, RowStatus::throttled)}, 0.05);
  ASSERT_EQ(report.matched.size(), 1u);
  EXPECT_EQ(report.matched[0].verdict, Verdict::throttled);
  EXPECT_EQ(report.regressions(), 0u);
}

// Issue 47 item 2: rows of a caller's arrays matched by a generator description never used, so
// two different arrays of one size and dtype compared as one input.
TEST(MeasureCompare, CallerArraysMatchOnlyWhenTheirKeysDo) {
  auto array_row = [](const std::string& fingerprint) {
    ResultRow r = compared_row(1.0, 12000, 0);
    r.source = {{"kind", "array"}, {"key", "u32"}, {"n", 1000}};
    if (!fingerprint.empty()) r.source["fingerprint"] = fingerprint;
    return r;
  };
  EXPECT_EQ(compare_results({array_row("fast64:01")}, {array_row("fast64:01")}, 0.05).matched.size(), 1u);
  const CompareReport other = compare_results({array_row("fast64:01")}, {array_row("fast64:02")}, 0.05);
  EXPECT_TRUE(other.matched.empty());
  EXPECT_EQ(other.only_base.size(), 1u);
  EXPECT_EQ(other.only_new.size(), 1u);
  // Rows from before the fingerprint cannot be told apart, so they match nothing.
  EXPECT_TRUE(compare_results({array_row("")}, {array_row("")}, 0.05).matched.empty());
  // Nor does an array match a generated input of its size.
  EXPECT_TRUE(compare_results({array_row("fast64:01")}, {compared_row(1.0, 12000, 0)}, 0.05).matched.empty());
}

TEST(MeasureErrors, EnergyWithoutNvmlNamesWhatIsMissing) {
  const std::string m = energy_unavailable_message("NVML is absent");
  EXPECT_EQ(m, "--energy reads NVML's total-energy counter, but NVML is absent here; drop --energy");
}

}  // namespace
}  // namespace sb
