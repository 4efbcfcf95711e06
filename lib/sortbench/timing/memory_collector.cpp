#include "sortbench/timing/memory_collector.hpp"

#include <algorithm>

namespace sb {

void MemoryAccount::summarize(Summaries& s, std::uint64_t n) const {
  namespace t = summary_tag;
  s.set(t::workspace_bytes, static_cast<double>(workspace_bytes));
  s.set(t::buffer_bytes, static_cast<double>(buffer_bytes));
  if (peak_used == 0) return;  // never read
  s.set(t::peak_bytes, static_cast<double>(peak_bytes()));
  if (n) s.set(t::bytes_per_key, static_cast<double>(peak_bytes()) / static_cast<double>(n));
}

void MemoryCollector::launched() { account_.peak_used = std::max(account_.peak_used, used_()); }

}  // namespace sb
