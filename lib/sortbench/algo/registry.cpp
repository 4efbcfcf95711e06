// The Registry class: adding, finding and selecting algorithms by name (registry.hpp).
#include "sortbench/algo/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sortbench/core/errors.hpp"

namespace sb {

void Registry::add(Algorithm a) {
  if (a.name.empty() || a.family.empty() || a.key_types.empty() || !a.workspace_bytes)
    throw std::logic_error("algorithm '" + a.name + "' is missing its name, family, key types or workspace_bytes");
  if (a.backend == Backend::gpu ? !(a.run_device || a.ranks || a.run_streamed) : !a.run_host)
    throw std::logic_error("algorithm '" + a.name + "' has no run function for its backend");
  if (a.pick_when.empty())
    throw std::logic_error("algorithm '" + a.name + "' has no pick_when: `list` says in one line when to choose it");
  if (find(a.name)) throw std::logic_error("algorithm '" + a.name + "' registered twice");
  algorithms_.push_back(std::move(a));
}

const Algorithm* Registry::find(std::string_view name) const {
  for (const auto& a : algorithms_)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

void Registry::note_unavailable(std::string family, std::string why) {
  unavailable_.emplace_back(std::move(family), std::move(why));
}

const Algorithm& Registry::named(std::string_view name) const {
  if (const Algorithm* a = find(name)) return *a;
  throw UsageError(fmt::format("unknown algorithm '{}'; did you mean {}? ('sortbench list' shows every name)", name,
                               fmt::join(closest(name), ", ")));
}

std::vector<std::string> Registry::closest(std::string_view name, std::size_t count) const {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& a : algorithms_) {
    const bool prefix = a.name.rfind(std::string(name), 0) == 0;
    scored.emplace_back(prefix ? 0 : edit_distance(name, a.name), a.name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(scored[i].second);
  return out;
}

std::vector<const Algorithm*> Registry::select(std::string_view list, Backend backend) const {
  std::vector<const Algorithm*> out;
  auto add_unique = [&](const Algorithm* a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    if (item == "all") {  // the single-device algorithms: a distributed one or a chooser is asked for by name
      for (const auto& a : algorithms_)
        if (a.backend == backend && !a.distributed() && a.role != AlgorithmRole::chooser) add_unique(&a);
      continue;
    }
    if (item.back() == '*') {
      const std::string_view prefix = item.substr(0, item.size() - 1);
      bool any = false;
      for (const auto& a : algorithms_)
        if (std::string_view(a.name).substr(0, prefix.size()) == prefix) add_unique(&a), any = true;
      if (!any)
        throw UsageError(fmt::format("no algorithm matches '{}'; 'sortbench list' shows every name", item));
      continue;
    }
    add_unique(&named(item));
  }
  if (out.empty()) throw UsageError("no algorithm selected; give --algo NAME[,NAME...] or --algo all");
  return out;
}

}  // namespace sb
