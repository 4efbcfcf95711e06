#include "sortbench/timing/energy.hpp"

#include <chrono>
#include <thread>

#include "sortbench/timing/measure.hpp"

namespace sb {

std::optional<EnergyFigures> energy_figures(const EnergyBatch& sorts, const EnergyBatch& restores,
                                            const EnergyBatch& idle, std::uint64_t n) {
  if (sorts.runs == 0 || sorts.seconds <= 0) return std::nullopt;
  const double restore_j = restores.runs ? restores.joules / static_cast<double>(restores.runs) : 0.0;
  EnergyFigures e;
  e.joules_per_sort = sorts.joules / static_cast<double>(sorts.runs) - restore_j;
  if (e.joules_per_sort <= 0) return std::nullopt;
  e.keys_per_joule = static_cast<double>(n) / e.joules_per_sort;
  e.power_w = sorts.power_w();
  e.idle_power_w = idle.power_w();
  return e;
}

void summarize_energy(const EnergyFigures& e, const EnergyBatch& sorts, Summaries& s) {
  namespace t = summary_tag;
  s.set(t::joules_per_sort, e.joules_per_sort);
  s.set(t::keys_per_joule, e.keys_per_joule);
  s.set(t::energy_power, e.power_w);
  s.set(t::idle_power, e.idle_power_w);
  s.set(t::energy_batch_sorts, static_cast<double>(sorts.runs));
  s.set(t::energy_batch_s, sorts.seconds);
}

EnergyBatch run_energy_batch(const std::function<void()>& step, const std::function<void()>& wait,
                             const std::function<double()>& energy_j, double min_s) {
  EnergyBatch b;
  std::uint64_t chunk = 1;
  wait();
  const double e0 = energy_j();
  const double t0 = steady_now_s();
  double elapsed = 0;
  while (elapsed < min_s) {
    const double chunk_start = steady_now_s();
    for (std::uint64_t i = 0; i < chunk; ++i) step();
    wait();
    b.runs += chunk;
    const double t = steady_now_s();
    elapsed = t - t0;
    if (t - chunk_start < 0.05) chunk *= 2;
  }
  b.joules = energy_j() - e0;
  b.seconds = steady_now_s() - t0;
  return b;
}

EnergyBatch idle_energy(const std::function<double()>& energy_j, double seconds) {
  EnergyBatch b;
  const double e0 = energy_j();
  const double t0 = steady_now_s();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  b.joules = energy_j() - e0;
  b.seconds = steady_now_s() - t0;
  b.runs = 1;
  return b;
}

}  // namespace sb
