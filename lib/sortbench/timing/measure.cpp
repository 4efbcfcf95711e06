#include "sortbench/timing/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

namespace sb {

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

void SteadyClockTimer::start() { start_s_ = steady_now_s(); }
void SteadyClockTimer::stop() { ms_ = (steady_now_s() - start_s_) * 1e3; }

std::size_t max_discarded_samples(const MeasureSettings& s) {
  return static_cast<std::size_t>(std::max(s.min_reps, 10));
}

MeasureResult measure(StopRule& rule, SampleTimer& timer, const SampleSteps& steps,
                      const std::vector<SampleCollector*>& collectors, double recovery_s) {
  const MeasureSettings& settings = rule.settings();
  for (int i = 0; i < settings.warmup; ++i) {
    steps.prepare();
    steps.run(false);
  }
  timer.wait_idle();
  for (SampleCollector* c : collectors) c->begin();
  MeasureResult result;
  SampleNoise noise;
  const double begin = steady_now_s();
  for (;;) {
    steps.prepare();
    timer.start();
    steps.run(true);
    timer.stop();  // before the collectors: their host-side reads must not delay the stop mark
    for (SampleCollector* c : collectors) c->launched();
    StopRule::Reading own;
    own.sample_ms = timer.elapsed_ms();
    own.keep = std::all_of(collectors.begin(), collectors.end(),
                           [ms = own.sample_ms](SampleCollector* c) { return c->accept(ms); });
    own.elapsed_s = steady_now_s() - begin;
    const StopRule::Reading agreed = rule.agree(own);
    if (agreed.keep) {
      result.samples_ms.push_back(agreed.sample_ms);
      noise.add(agreed.sample_ms);
      for (SampleCollector* c : collectors) c->record(agreed.sample_ms);
    } else {
      ++result.discarded;
      if (result.discarded >= max_discarded_samples(settings)) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(recovery_s));
    }
    if (rule.enough(noise, agreed.elapsed_s)) break;
  }
  for (SampleCollector* c : collectors) c->end();
  return result;
}

MeasureResult measure(const MeasureSettings& settings, SampleTimer& timer, const SampleSteps& steps,
                      const std::vector<SampleCollector*>& collectors, double recovery_s) {
  StopRule rule(settings);
  return measure(rule, timer, steps, collectors, recovery_s);
}

}  // namespace sb
