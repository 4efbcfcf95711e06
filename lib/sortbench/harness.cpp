#include "sortbench/harness.hpp"
#include "sortbench/key_facts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

namespace sb {

TimingStats summarize_times(std::vector<double> ms) {
  TimingStats s;
  s.samples = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  const std::size_t m = ms.size() / 2;
  s.median_ms = ms.size() % 2 ? ms[m] : 0.5 * (ms[m - 1] + ms[m]);
  s.mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  double sq = 0;
  for (double x : ms) sq += (x - s.mean_ms) * (x - s.mean_ms);
  s.stddev_ms = ms.size() > 1 ? std::sqrt(sq / static_cast<double>(ms.size() - 1)) : 0.0;
  s.rel_stddev = s.mean_ms > 0 ? s.stddev_ms / s.mean_ms : 0.0;
  return s;
}

void SampleNoise::add(double x) {
  ++count_;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (x - mean_);
}

double SampleNoise::rel_stddev() const {
  if (count_ < 2 || mean_ <= 0) return 0.0;
  return std::sqrt(m2_ / static_cast<double>(count_ - 1)) / mean_;
}

bool enough_samples(const SampleNoise& noise, double elapsed_s, const MeasureSettings& s) {
  if (noise.count() >= static_cast<std::size_t>(s.max_reps)) return true;
  if (noise.count() < static_cast<std::size_t>(s.min_reps)) return false;
  return noise.rel_stddev() <= s.max_noise || elapsed_s >= s.budget_s;
}

bool enough_samples(const std::vector<double>& ms, double elapsed_s, const MeasureSettings& s) {
  SampleNoise noise;
  for (double x : ms) noise.add(x);
  return enough_samples(noise, elapsed_s, s);
}

std::vector<double> time_host(const Algorithm& algo, const SortProblem& problem, const void* keys,
                              const void* vals, void* work_keys, void* work_vals,
                              const MeasureSettings& settings, std::vector<double>* discovery_ms) {
  using clock = std::chrono::steady_clock;
  const bool discover = problem.range == RangeMode::measured && algo.reads_key_facts;
  SortProblem run_problem = problem;
  auto sort_once = [&](std::vector<double>* discovery) {
    if (discover) {
      const auto t0 = clock::now();
      apply_key_facts(run_problem.realized, problem.spec.key,
                      discover_key_facts_host(problem.spec.key, work_keys, problem.n()));
      if (discovery) discovery->push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    algo.run_host(run_problem, HostBuffers{work_keys, vals ? work_vals : nullptr});
  };
  const std::size_t key_size = problem.n() * key_bytes(problem.spec.key);
  const std::size_t val_size = problem.n() * payload_bytes(problem.spec.payload);
  auto reset = [&] {
    if (key_size) std::memcpy(work_keys, keys, key_size);
    if (vals && work_vals && val_size) std::memcpy(work_vals, vals, val_size);
  };
  for (int i = 0; i < settings.warmup; ++i) {
    reset();
    sort_once(nullptr);
  }
  std::vector<double> samples;
  SampleNoise noise;
  const auto begin = clock::now();
  do {
    reset();
    const auto t0 = clock::now();
    sort_once(discovery_ms);
    const auto t1 = clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    noise.add(samples.back());
  } while (!enough_samples(noise, std::chrono::duration<double>(clock::now() - begin).count(), settings));
  return samples;
}

}  // namespace sb
