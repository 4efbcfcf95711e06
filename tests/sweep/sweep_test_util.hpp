// Helpers of the sweep tests: temporary folders, running the real executable, reading files.
#pragma once

#include <string>
#include <vector>

namespace sb::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command line; output captured, exit code decoded.
CommandResult run_command(const std::string& command_line);

// A fresh, empty folder under the system temporary folder, removed at exit of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);
std::vector<std::string> lines_of(const std::string& text);

inline std::string source_path(const std::string& relative) { return std::string(SORTBENCH_SOURCE_DIR) + "/" + relative; }
inline std::string exe() { return SORTBENCH_EXE; }

}  // namespace sb::test
