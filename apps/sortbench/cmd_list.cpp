// sortbench list: every registered algorithm and what it accepts.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::cli {

Command add_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "list every registered algorithm");
  return {cmd, [] {
            const auto& all = registry().all();
            std::size_t width = 4;
            for (const auto& a : all) width = std::max(width, a.name.size());
            auto joined = [](const auto& items) {
              std::string out;
              for (auto item : items) out += (out.empty() ? "" : ",") + std::string(to_string(item));
              return out;
            };
            std::cout << fmt::format("{:<{}}  {:<11}  {:<3}  {:<31}  {:<19}  {:<6}  {:<28}  {}\n", "name", width,
                                     "family", "bk", "keys", "payloads", "stable", "constraints", "source");
            for (const auto& a : all)
              std::cout << fmt::format("{:<{}}  {:<11}  {:<3}  {:<31}  {:<19}  {:<6}  {:<28}  {}\n", a.name, width,
                                       a.family, to_string(a.backend), joined(a.key_types), joined(a.payloads),
                                       a.stable ? "yes" : "no", a.constraints.empty() ? "-" : a.constraints,
                                       a.source);
            for (const auto& [family, why] : registry().unavailable())
              std::cout << fmt::format("{}: {}\n", family, why);
            return 0;
          }};
}

}  // namespace sb::cli
