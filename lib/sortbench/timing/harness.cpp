// The CPU half of the harness: samples timed with the steady clock (see harness.hpp).
#include "sortbench/timing/harness.hpp"

#include <chrono>
#include <cstring>

#include "sortbench/facts/key_discovery.hpp"

namespace sb {

std::vector<SampleCollector*> with_recorder(const std::vector<SampleCollector*>& collectors,
                                            DiscoveryRecorder* recorder) {
  std::vector<SampleCollector*> all;
  if (recorder) all.push_back(recorder);
  all.insert(all.end(), collectors.begin(), collectors.end());
  return all;
}

MeasureSettings single_sample_settings() {
  MeasureSettings s;
  s.warmup = 0;
  s.min_reps = 1;
  s.max_reps = 1;
  s.flush_l2 = false;
  return s;
}

SortTiming time_host(const Algorithm& algo, const SortProblem& problem, const void* keys, const void* vals,
                     void* work_keys, void* work_vals, const MeasureSettings& settings,
                     const std::vector<SampleCollector*>& collectors) {
  using clock = std::chrono::steady_clock;
  const bool discover = problem.range == RangeMode::measured && algo.reads_key_facts;
  SortProblem run_problem = problem;
  run_problem.facts.discovered = discover;
  double last_discovery_ms = 0;
  const std::size_t key_size = problem.n() * key_bytes(problem.shape.key);
  const std::size_t val_size = problem.n() * payload_bytes(problem.shape.payload);
  SampleSteps steps;
  steps.prepare = [&] {
    if (key_size) std::memcpy(work_keys, keys, key_size);
    if (vals && work_vals && val_size) std::memcpy(work_vals, vals, val_size);
  };
  steps.run = [&](bool) {
    if (discover) {
      const auto t0 = clock::now();
      apply_key_facts(run_problem.facts, problem.shape.key,
                      discover_key_facts_host(problem.shape.key, work_keys, problem.n()));
      last_discovery_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    }
    algo.run_host(run_problem, HostBuffers{work_keys, vals ? work_vals : nullptr});
  };
  SortTiming timing;
  DiscoveryRecorder recorder([&] { return last_discovery_ms; }, timing.discovery_ms);
  SteadyClockTimer timer;
  MeasureResult m = measure(settings, timer, steps, with_recorder(collectors, discover ? &recorder : nullptr));
  timing.samples_ms = std::move(m.samples_ms);
  timing.discarded = m.discarded;
  return timing;
}

}  // namespace sb
