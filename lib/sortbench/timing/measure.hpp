// The one measurement loop (docs/architecture.md, "One pipeline"), after nvbench's cold measurement
// (detail/measure_cold.cu): warm-up runs, then samples until their relative standard deviation
// is under max_noise or the time budget is spent (and at least min_reps). What a sample costs
// is read by a pluggable timer (CUDA events on the GPU, the steady clock on the CPU); what else
// is watched while sampling (SM clocks and throttling, device memory, range discovery) is a
// collector. A collector may refuse a sample (nvbench's throttle check): the sample is
// discarded, counted, and retaken after a short recovery pause.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace sb {

struct MeasureSettings {
  int warmup = 1;
  int min_reps = 10;
  int max_reps = 100000;
  double max_noise = 0.01;  // relative standard deviation target
  double budget_s = 2.0;    // wall-clock budget per algorithm, after min_reps
  bool flush_l2 = true;
  // GPU rows, where NVML answers: a sample taken below this share of the starting SM clock is
  // discarded and retaken (clock_collector.hpp).
  double throttle_threshold = 0.75;
  bool energy = false;  // GPU rows: a batch measuring joules per sort (energy.hpp)
};

struct TimingStats {
  std::size_t samples = 0;
  double min_ms = 0, median_ms = 0, mean_ms = 0, max_ms = 0, stddev_ms = 0, rel_stddev = 0;
};

TimingStats summarize_times(std::vector<double> ms);

// Welford's running mean and variance: the stopping rule costs O(1) per sample, however
// many thousand samples a fast sort takes.
class SampleNoise {
 public:
  void add(double x);
  std::size_t count() const { return count_; }
  double rel_stddev() const;  // sample stddev / mean, as summarize_times computes it

 private:
  std::size_t count_ = 0;
  double mean_ = 0, m2_ = 0;
};

bool enough_samples(const SampleNoise& noise, double elapsed_s, const MeasureSettings& s);
// Seconds on the host's steady clock (the loop's budget, the CPU timer, the energy batch).
double steady_now_s();
bool enough_samples(const std::vector<double>& ms, double elapsed_s, const MeasureSettings& s);

// Reads what one sample cost. start() and stop() bracket the timed work; elapsed_ms() waits
// for it when the work is asynchronous; wait_idle() waits for everything enqueued so far.
class SampleTimer {
 public:
  virtual ~SampleTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual double elapsed_ms() = 0;
  virtual void wait_idle() {}
};

// Wall time on the host's steady clock: the CPU backend's timer.
class SteadyClockTimer final : public SampleTimer {
 public:
  void start() override;
  void stop() override;
  double elapsed_ms() override { return ms_; }

 private:
  double start_s_ = 0, ms_ = 0;
};

// Watches the samples. The loop calls begin() once after the warm-up, launched() when a
// sample's work and its stop mark are enqueued (asynchronous work may still be running: what
// it holds is held now),
// accept() once the sample's time is known (false discards it), record() for each kept
// sample and end() after the last.
class SampleCollector {
 public:
  virtual ~SampleCollector() = default;
  virtual void begin() {}
  virtual void launched() {}
  virtual bool accept(double /*ms*/) { return true; }
  virtual void record(double /*ms*/) {}
  virtual void end() {}
};

// One sample's steps: prepare is untimed (restore the input, flush L2); run(timed) is the work
// (timed is false for warm-up runs).
struct SampleSteps {
  std::function<void()> prepare;
  std::function<void(bool timed)> run;
};

struct MeasureResult {
  std::vector<double> samples_ms;  // the kept samples
  std::size_t discarded = 0;       // samples a collector refused (retaken)
};

// When the loop has enough: the noise of the kept samples is under max_noise (at least min_reps,
// at most max_reps) or the budget is spent (enough_samples). Where several participants time one
// sample together (the ranks of a distributed sort, each on its own clock), agree() turns each
// one's own reading into the common one, so every participant keeps, discards and stops at the
// same sample; one participant agrees with itself.
class StopRule {
 public:
  struct Reading {
    double sample_ms = 0;  // what this sample cost
    double elapsed_s = 0;  // wall time since the first timed sample began
    bool keep = true;      // every collector accepted it
  };
  explicit StopRule(const MeasureSettings& settings) : settings_(settings) {}
  virtual ~StopRule() = default;
  virtual Reading agree(const Reading& own) { return own; }
  bool enough(const SampleNoise& noise, double elapsed_s) const { return enough_samples(noise, elapsed_s, settings_); }
  const MeasureSettings& settings() const { return settings_; }

 private:
  MeasureSettings settings_;
};

// A refused sample is retaken after recovery_s; the loop gives up refusing once this many
// samples were discarded, so a GPU that throttles throughout ends its row instead of the run.
inline constexpr double kRecoveryPauseS = 0.05;
std::size_t max_discarded_samples(const MeasureSettings& s);

// The loop: settings.warmup untimed runs, then timed samples until rule.enough(). Every
// participant of an agreeing rule runs this loop with its own timer.
MeasureResult measure(StopRule& rule, SampleTimer& timer, const SampleSteps& steps,
                      const std::vector<SampleCollector*>& collectors, double recovery_s = kRecoveryPauseS);
// One participant: the plain stop rule of the settings.
MeasureResult measure(const MeasureSettings& settings, SampleTimer& timer, const SampleSteps& steps,
                      const std::vector<SampleCollector*>& collectors, double recovery_s = kRecoveryPauseS);

}  // namespace sb
