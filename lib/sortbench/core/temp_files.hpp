// Outputs written aside (issue 37): a file is written under a temporary name beside its target
// and renamed into place only when complete, so a reader never sees half a file. What removes a
// temporary when the work fails is its owner's destructor; what removes it when the user presses
// Ctrl-C (SIGINT) or a scheduler ends the job (SIGTERM), where no destructor runs, is a registry of
// the live temporaries that a signal handler unlinks before the signal ends the process as it
// would have. The handler may only call async-signal-safe functions, so the registry is a fixed
// array of C strings with an atomic state each, not a container that allocates.
#pragma once

#include <cstddef>
#include <string>

namespace sb {

// "<target>.sortbench-<pid>.tmp": beside the target so the rename stays on one file system, with
// the process id so two runs writing the same target do not write one temporary.
std::string temp_path_for(const std::string& target);

// Adds a path to the live temporaries, installing the SIGINT and SIGTERM handlers on first use
// (only over the default action: a program that handles the signal itself, such as Python, keeps
// its handler and unwinds, and a signal ignored stays ignored). The slot to unregister, or -1
// when the registry is full or the path too long; that file is then not removed on a signal.
int register_temp_file(const char* path) noexcept;
void unregister_temp_file(int slot) noexcept;
// How many paths are registered (tests).
std::size_t live_temp_file_count() noexcept;
// Unlinks every registered path; what the handler does, and async-signal-safe.
void remove_live_temp_files() noexcept;

// One output written aside: path() is where to write, commit() renames it to target(); destroyed
// uncommitted, it removes the temporary. Registered for the signal handler while it exists.
class TempOutput {
 public:
  explicit TempOutput(std::string target);
  ~TempOutput();
  TempOutput(const TempOutput&) = delete;
  TempOutput& operator=(const TempOutput&) = delete;

  const std::string& path() const { return temp_; }
  const std::string& target() const { return target_; }
  // Throws Error(output) naming both paths when the rename fails (the temporary is removed).
  void commit();
  // Removes the temporary now (a failed write: nothing of it stays behind).
  void discard() noexcept;

 private:
  std::string target_, temp_;
  int slot_ = -1;
  bool done_ = false;
};

}  // namespace sb
