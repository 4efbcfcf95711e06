// sortbench list: every registered algorithm, grouped by what it is for (issue 35 item 8), with
// one line each on when to pick it; --details adds what it accepts and what it implements.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::cli {
namespace {

struct Group {
  AlgorithmRole role;
  const char* title;
};

constexpr Group kGroups[] = {
    {AlgorithmRole::reproduction, "Reproductions of the papers (as published: to set beside the papers' numbers)"},
    {AlgorithmRole::fast_variant, "Fast variants (ours, beyond the papers)"},
    {AlgorithmRole::baseline, "Baselines (libraries and the CPU)"},
    {AlgorithmRole::distributed, "Distributed (several GPUs: run --gpus N or --devices LIST)"},
    {AlgorithmRole::chooser, "Choosers (run another algorithm chosen for the input; not part of --algo all)"},
};

template <typename Items>
std::string joined(const Items& items) {
  std::string out;
  for (auto item : items) out += (out.empty() ? "" : ",") + std::string(to_string(item));
  return out;
}

int run_list(bool details) {
  const auto& all = registry().all();
  std::size_t width = 4;
  for (const auto& a : all) width = std::max(width, a.name.size());
  for (const Group& group : kGroups) {
    bool any = false;
    for (const auto& a : all) {
      if (a.role != group.role) continue;
      if (!any) std::cout << fmt::format("{}{}\n", &group == kGroups ? "" : "\n", group.title);
      any = true;
      std::cout << fmt::format("  {:<{}}  {:<3}  {:<10}  {}\n", a.name, width, to_string(a.backend),
                               a.stable ? "stable" : "not stable", a.pick_when);
      if (details)
        std::cout << fmt::format("  {:<{}}  family {}; keys {}; payloads {}; {}source: {}\n", "", width, a.family,
                                 joined(a.key_types), joined(a.payloads),
                                 a.constraints.empty() ? "" : "constraints: " + a.constraints + "; ", a.source);
    }
  }
  for (const auto& [family, why] : registry().unavailable()) std::cout << fmt::format("{}: {}\n", family, why);
  return 0;
}

}  // namespace

Command add_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "list every registered algorithm, grouped by role, and when to pick each");
  auto details = std::make_shared<bool>(false);
  cmd->add_flag("--details", *details, "also print each one's key types, payloads, constraints and source");
  return {cmd, [details] { return run_list(*details); }};
}

}  // namespace sb::cli
