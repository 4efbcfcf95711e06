// A progress line for work that runs long enough to look hung (issue 37: out-of-core passes over
// tens of GiB, a large `gen -o`): "sort: 12.0 of 32.0 GiB (37%), 48.1 GB/s" on stderr, at most
// every two seconds, so stdout stays the command's result and a log stays short. Inputs under
// 1 GiB finish in seconds and print nothing. The clock and the stream are injectable so the
// rules are tested on the CPU without waiting.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>

namespace sb {

// The global quiet switch (--quiet, the Python module, tests): off, no meter prints.
void set_progress_enabled(bool on);
bool progress_enabled();

class ProgressMeter {
 public:
  // Seconds on a monotonic clock.
  using Clock = std::function<double()>;
  static constexpr std::uint64_t kMinTotalBytes = std::uint64_t{1} << 30;
  static constexpr double kIntervalSeconds = 2.0;

  // Prints to std::cerr on the steady clock.
  ProgressMeter(std::string label, std::uint64_t total_bytes);
  ProgressMeter(std::string label, std::uint64_t total_bytes, std::ostream& out, Clock clock);
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // Safe from any thread (a copy's host callback may call it while the caller's thread does).
  void advance(std::uint64_t bytes);
  // The final line, once, and only where a progress line was printed before: a short job that
  // stayed silent does not end with a lone line.
  void finish();
  std::uint64_t done() const { return done_.load(std::memory_order_relaxed); }

 private:
  void print(double now);

  std::string label_;
  std::uint64_t total_;
  std::ostream* out_;
  Clock clock_;
  double start_;
  std::atomic<std::uint64_t> done_{0};
  // The next time a line may be printed; read without the lock so most advances cost one load.
  std::atomic<double> next_print_;
  std::mutex print_mutex_;
  bool printed_ = false;
  bool finished_ = false;
};

}  // namespace sb
