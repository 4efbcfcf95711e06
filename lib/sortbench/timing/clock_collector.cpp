#include "sortbench/timing/clock_collector.hpp"

#include <algorithm>

namespace sb {
namespace {

template <typename T, typename Get>
std::vector<double> values_of(const std::vector<T>& v, Get get) {
  std::vector<double> out;
  out.reserve(v.size());
  for (const T& x : v) out.push_back(static_cast<double>(get(x)));
  std::sort(out.begin(), out.end());
  return out;
}

double median_sorted(const std::vector<double>& v) {
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

bool ThrottleFilter::accept(unsigned sm_mhz) {
  if (reference_mhz_ == 0 || sm_mhz == 0) return true;
  if (sm_mhz >= threshold_ * reference_mhz_) return true;
  ++discarded_;
  return false;
}

bool ClockCollector::accept(double) {
  last_ = read_();
  reasons_ |= last_.event_reasons;
  return filter_.accept(last_.sm_mhz);
}

void ClockCollector::summarize(Summaries& s) const {
  namespace t = summary_tag;
  s.set(t::throttled_samples, static_cast<double>(filter_.discarded()));
  s.set(t::clock_event_reasons, static_cast<double>(reasons_));
  if (kept_.empty()) return;
  const auto sm = values_of(kept_, [](const ClockReading& r) { return r.sm_mhz; });
  const auto mem = values_of(kept_, [](const ClockReading& r) { return r.mem_mhz; });
  const auto power = values_of(kept_, [](const ClockReading& r) { return r.power_w; });
  const auto temp = values_of(kept_, [](const ClockReading& r) { return r.temperature_c; });
  if (sm.back() > 0) {
    s.set(t::sm_clock_min, sm.front());
    s.set(t::sm_clock_median, median_sorted(sm));
  }
  if (mem.back() > 0) {
    s.set(t::mem_clock_min, mem.front());
    s.set(t::mem_clock_median, median_sorted(mem));
  }
  if (temp.back() > 0) s.set(t::temperature_max, temp.back());
  if (power.back() > 0) s.set(t::power_median, median_sorted(power));
}

}  // namespace sb
