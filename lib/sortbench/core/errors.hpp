// The errors a user can cause, each with its documented exit code (docs/usage.md, "Exit codes").
// Messages are one line: the problem, then the fix.
#pragma once

#include <stdexcept>
#include <string>

namespace sb {

enum class ExitCode : int {
  ok = 0,
  verification_failed = 1,  // a result was not a sorted permutation of its input
  usage = 2,                // bad command line, parameters or spec
  no_device = 3,            // the GPU backend was asked for and no CUDA device answered
  device_memory = 4,        // the input does not fit in free GPU memory
  output = 5,               // an output file cannot be written
  cuda = 6,                 // a CUDA call failed during the run
  internal = 70,
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

struct UsageError : Error {
  explicit UsageError(const std::string& m) : Error(ExitCode::usage, m) {}
};

// Runs f; an Error it throws becomes a UsageError (exit 2). For the output files of `sort`, where
// an unwritable path or a full disk is the user's to fix.
template <typename F>
auto as_usage_error(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace sb
