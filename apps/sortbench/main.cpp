// sortbench: which GPU sort is fastest for my data, on this GPU, and by how much.
// Exit codes: docs/usage.md "Exit codes" (sortbench/core/errors.hpp).
#include <iostream>

#include "cli.hpp"
#include "sortbench/report/build_info.hpp"
#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"

int main(int argc, char** argv) {
  CLI::App app{"sortbench: a GPU sorting benchmark suite"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(sb::build_version()) + " (" + sb::build_git_commit() + ")");
  bool verbose = false;
  app.add_flag("--verbose", verbose, "add the source location to CUDA error messages");
  std::string profile;
  app.add_option("--profile", profile,
                 "the GPU profile the automatic choices read: FILE (as `sortbench tune -o FILE` writes it) or none "
                 "for the built-in rules; default: $SORTBENCH_PROFILE, else this GPU's cached profile");
  app.fallthrough();  // --verbose and --profile also after the subcommand
  std::vector<sb::cli::Command> commands{sb::cli::add_list(app), sb::cli::add_info(app), sb::cli::add_gen(app),
                                         sb::cli::add_run(app), sb::cli::add_sweep(app),
                                         sb::cli::add_compare(app), sb::cli::add_sort(app),
                                         sb::cli::add_tune(app)};
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
    sb::ProfilePolicy policy = sb::profile_policy();  // SORTBENCH_PROFILE's, where set
    policy.version = sb::build_version();
    if (!profile.empty()) policy.pin(profile);
    // A pinned profile that cannot be read is exit 2 before any work, as every bad input file.
    if (policy.kind == sb::ProfilePolicy::Kind::file) sb::load_pinned_profile(policy.path);
    sb::set_profile_policy(policy);
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
