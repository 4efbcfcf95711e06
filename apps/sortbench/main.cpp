// sortbench: which GPU sort is fastest for my data, on this GPU, and by how much.
// Exit codes: docs/usage.md "Exit codes" (sortbench/core/errors.hpp).
#include <iostream>

#include "cli.hpp"
#include "sortbench/report/build_info.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"

int main(int argc, char** argv) {
  CLI::App app{"sortbench: a GPU sorting benchmark suite"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(sb::build_version()) + " (" + sb::build_git_commit() + ")");
  bool verbose = false;
  app.add_flag("--verbose", verbose, "add the source location to CUDA error messages");
  app.fallthrough();  // --verbose also after the subcommand
  std::vector<sb::cli::Command> commands{sb::cli::add_list(app), sb::cli::add_info(app), sb::cli::add_gen(app),
                                         sb::cli::add_run(app), sb::cli::add_sweep(app),
                                         sb::cli::add_compare(app), sb::cli::add_sort(app)};
  sb::cli::set_command_line(sb::cli::joined_command_line(argc, argv));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "sortbench: error: " << e.what() << "; see 'sortbench --help'\n";
    return static_cast<int>(sb::ExitCode::usage);
  }
  sb::set_error_locations(verbose);
  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const sb::Error& e) {
    std::cerr << "sortbench: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "sortbench: internal error: " << e.what() << "\n";
    return static_cast<int>(sb::ExitCode::internal);
  }
  return static_cast<int>(sb::ExitCode::usage);
}
