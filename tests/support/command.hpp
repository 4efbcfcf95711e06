// Helpers of the tests that run the real executable: commands, temporary folders, files.
#pragma once

#include <string>
#include <vector>

namespace sb::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout, with stderr unless it was asked for apart
  std::string err;     // stderr, when asked for apart
};
// Runs a shell command line; output captured, exit code decoded. With split_stderr, stderr
// goes to `err` (checks that an error is one line on stderr and nothing on stdout).
CommandResult run_command(const std::string& command_line, bool split_stderr = false);

// A fresh, empty folder under the system temporary folder, removed at exit of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // The names in the folder, sorted: what a test expects to be left there (no temporaries).
  std::vector<std::string> names() const;

 private:
  std::string path_;
};

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);
std::vector<std::string> lines_of(const std::string& text);
// stderr's lines less the warning that the GPU is busy with other processes: GPU tests share
// their GPU with other tests (ctest's slots), and that warning is a line of its own.
std::vector<std::string> error_lines(const std::string& err);

// In the test executables that are built with the source folder and the executable's path.
#ifdef SORTBENCH_SOURCE_DIR
inline std::string source_path(const std::string& relative) { return std::string(SORTBENCH_SOURCE_DIR) + "/" + relative; }
#endif
#ifdef SORTBENCH_EXE
inline std::string exe() { return SORTBENCH_EXE; }
// The executable run with `args`, stderr apart from stdout.
inline CommandResult sortbench(const std::string& args) { return run_command(exe() + " " + args, true); }
#endif

}  // namespace sb::test
