// ProgressMeter (progress.hpp), issue 37.
#include "sortbench/core/progress.hpp"

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"

namespace sb {
namespace {

std::atomic<bool> g_enabled{true};

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void set_progress_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }
bool progress_enabled() { return g_enabled.load(std::memory_order_relaxed); }

ProgressMeter::ProgressMeter(std::string label, std::uint64_t total_bytes)
    : ProgressMeter(std::move(label), total_bytes, std::cerr, steady_seconds) {}

ProgressMeter::ProgressMeter(std::string label, std::uint64_t total_bytes, std::ostream& out, Clock clock)
    : label_(std::move(label)), total_(total_bytes), out_(&out), clock_(std::move(clock)), start_(clock_()) {
  next_print_.store(start_ + kIntervalSeconds, std::memory_order_relaxed);
}

void ProgressMeter::advance(std::uint64_t bytes) {
  done_.fetch_add(bytes, std::memory_order_relaxed);
  if (total_ < kMinTotalBytes || !progress_enabled()) return;
  const double now = clock_();
  if (now < next_print_.load(std::memory_order_relaxed)) return;
  // Another thread printing now has this interval's line in hand; this advance is counted anyway.
  std::unique_lock<std::mutex> lock(print_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_ || now < next_print_.load(std::memory_order_relaxed)) return;
  print(now);
  next_print_.store(now + kIntervalSeconds, std::memory_order_relaxed);
}

void ProgressMeter::finish() {
  std::lock_guard<std::mutex> lock(print_mutex_);
  if (finished_) return;
  finished_ = true;
  if (printed_ && progress_enabled()) print(clock_());
}

void ProgressMeter::print(double now) {
  const std::uint64_t done = done_.load(std::memory_order_relaxed);
  const double seconds = now - start_;
  const double gbs = seconds > 0 ? static_cast<double>(done) / seconds / 1e9 : 0.0;
  const unsigned percent = total_ ? static_cast<unsigned>(100.0 * static_cast<double>(done) / total_) : 100;
  // One write of the whole line, so lines from two meters never interleave mid-line.
  *out_ << fmt::format("{}: {:.1f} of {} ({}%), {:.1f} GB/s\n", label_,
                       static_cast<double>(done) / double(std::uint64_t{1} << 30), gib_text(total_), percent, gbs)
        << std::flush;
  printed_ = true;
}

}  // namespace sb
