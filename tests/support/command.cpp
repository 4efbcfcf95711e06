#include "support/command.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>
#include <stdexcept>

namespace sb::test {

CommandResult run_command(const std::string& command_line, bool split_stderr) {
  CommandResult r;
  std::optional<TempDir> err_dir;
  if (split_stderr) err_dir.emplace();
  const std::string redirect = split_stderr ? " 2>" + err_dir->file("stderr.txt") : " 2>&1";
  FILE* pipe = popen((command_line + redirect).c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + command_line);
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (split_stderr) r.err = read_text(err_dir->file("stderr.txt"));
  return r;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "sortbench-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

std::vector<std::string> TempDir::names() const {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> error_lines(const std::string& err) {
  std::vector<std::string> lines;
  for (std::string& line : lines_of(err))
    if (line.rfind("warning: GPU ", 0) != 0 || line.find(" is busy with other processes") == std::string::npos)
      lines.push_back(std::move(line));
  return lines;
}

}  // namespace sb::test
