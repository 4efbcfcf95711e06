// The house rules of docs/architecture.md ("The house"), checked on the source tree:
// lib/ is its parts, each part includes only the parts below it, a kernel family includes only
// core/ and algo/ of lib (one include root makes every part visible, so this test is what
// stops a family from reaching the generator or the harness), and no file in lib/, kernels/
// or apps/ is longer than a reader can hold.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = SORTBENCH_SOURCE_DIR;

// Which lib parts each part may include (itself included).
const std::map<std::string, std::set<std::string>>& allowed_parts() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"core", {"core"}},
      {"algo", {"core", "algo"}},
      {"input", {"core", "input"}},
      {"measure", {"core", "algo", "input", "measure"}},
      {"report", {"core", "algo", "input", "measure", "report"}},
      {"experiment", {"core", "algo", "input", "measure", "report", "experiment"}},
      {"suite", {"core", "algo", "input", "measure", "report", "suite"}},
  };
  return allowed;
}

bool is_source(const fs::path& p) {
  static const std::set<std::string> exts = {".hpp", ".cpp", ".cu", ".cuh", ".in"};
  return exts.count(p.extension().string()) > 0;
}

std::vector<fs::path> sources_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && is_source(e.path())) out.push_back(e.path());
  return out;
}

// The lib parts a file includes ("sortbench/<part>/file.hpp"), with the line of each.
std::vector<std::pair<std::string, std::string>> included_parts(const fs::path& file) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*"sortbench/([^"]+)")re");
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, include_line)) continue;
    const std::string path = m[1];
    const auto slash = path.find('/');
    out.emplace_back(slash == std::string::npos ? std::string() : path.substr(0, slash), line);
  }
  return out;
}

std::string from_root(const fs::path& p) { return fs::relative(p, kRoot).string(); }

TEST(Layout, LibIsItsPartsAndNothingElse) {
  for (const auto& e : fs::directory_iterator(kRoot / "lib/sortbench")) {
    if (e.is_directory()) {
      EXPECT_TRUE(allowed_parts().count(e.path().filename().string()))
          << from_root(e.path()) << " is not one of lib's parts; add it to allowed_parts() with its rule";
    } else {
      ADD_FAILURE() << from_root(e.path()) << " lies outside lib's parts; move it into the part it belongs to";
    }
  }
}

TEST(Layout, EachPartIncludesOnlyThePartsBelowIt) {
  for (const auto& [part, may] : allowed_parts()) {
    const fs::path dir = kRoot / "lib/sortbench" / part;
    ASSERT_TRUE(fs::is_directory(dir)) << from_root(dir);
    for (const fs::path& file : sources_under(dir))
      for (const auto& [included, line] : included_parts(file))
        EXPECT_TRUE(may.count(included)) << from_root(file) << " (part " << part << ") includes " << included
                                         << "/: " << line;
  }
}

TEST(Layout, KernelFamiliesIncludeOnlyCoreAndAlgo) {
  std::size_t files = 0;
  for (const fs::path& file : sources_under(kRoot / "kernels")) {
    ++files;
    for (const auto& [included, line] : included_parts(file))
      EXPECT_TRUE(included == "core" || included == "algo")
          << from_root(file) << " includes " << (included.empty() ? "a header outside the parts" : included + "/")
          << ": " << line << " (a family sees lib's core/ and algo/ only)";
  }
  EXPECT_GT(files, 20u) << "the kernels/ tree was not found under " << kRoot;
}

TEST(Layout, NoFileLongerThanAReaderCanHold) {
  constexpr std::size_t kMaxLines = 800;
  for (const char* top : {"lib", "kernels", "apps"})
    for (const fs::path& file : sources_under(kRoot / top)) {
      std::ifstream in(file);
      std::size_t lines = 0;
      std::string line;
      while (std::getline(in, line)) ++lines;
      EXPECT_LE(lines, kMaxLines) << from_root(file) << " has " << lines << " lines; split it by what its parts do";
    }
}

// The design document is the project's own (docs/architecture.md): a comment that cites one
// outside the repository sends the next reader to a file they do not have.
TEST(Layout, CodeCitesOnlyTheProjectsOwnDesignDocument) {
  // Spelled in two pieces so that this file does not match itself.
  static const std::regex outside(std::string("shared") + "/docs|" + "design" + R"(\.md)");
  ASSERT_TRUE(fs::exists(kRoot / "docs" / "architecture.md"));
  for (const char* top : {"lib", "kernels", "apps", "tests"})
    for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || !(is_source(e.path()) || ext == ".py" || ext == ".txt")) continue;
      std::ifstream in(e.path());
      std::string line;
      for (std::size_t number = 1; std::getline(in, line); ++number)
        EXPECT_FALSE(std::regex_search(line, outside))
            << from_root(e.path()) << ":" << number << " cites a design document outside the repository; cite "
            << "docs/architecture.md: " << line;
    }
}

}  // namespace
