// sortbench list: every registered algorithm and what it accepts.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/registry.hpp"

namespace sb::cli {

Command add_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "list every registered algorithm");
  return {cmd, [] {
            const auto& all = registry().all();
            std::size_t width = 4;
            for (const auto& a : all) width = std::max(width, a.name.size());
            std::cout << fmt::format("{:<{}}  {:<10}  {:<3}  {:<19}  {:<7}  {:<6}  {:<28}  {}\n", "name", width,
                                     "family", "bk", "keys", "payload", "stable", "constraints", "source");
            for (const auto& a : all) {
              std::string keys;
              for (KeyType k : a.key_types) keys += (keys.empty() ? "" : ",") + std::string(to_string(k));
              std::cout << fmt::format("{:<{}}  {:<10}  {:<3}  {:<19}  {:<7}  {:<6}  {:<28}  {}\n", a.name, width,
                                       a.family, to_string(a.backend), keys, a.payload ? "index" : "none",
                                       a.stable ? "yes" : "no", a.constraints.empty() ? "-" : a.constraints,
                                       a.source);
            }
            return 0;
          }};
}

}  // namespace sb::cli
