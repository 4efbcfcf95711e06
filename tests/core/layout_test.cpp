// The house rules of docs/architecture.md ("The house"), checked on the source tree:
// lib/ is its parts, each part includes only the parts below it, a kernel family includes only
// core/ and algo/ of lib (one include root makes every part visible, so this test is what
// stops a family from reaching the generator or the harness), a family reaches another only
// through the public headers that family declares, no code cites a design document outside the
// repository, and no file in lib/, kernels/ or apps/ is longer than a reader can hold.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
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
      {"device", {"core", "device"}},
      {"facts", {"core", "input", "facts"}},
      {"verify", {"core", "algo", "input", "verify"}},
      {"timing", {"core", "algo", "input", "device", "facts", "timing"}},
      {"place", {"core", "algo", "input", "device", "facts", "verify", "timing", "place"}},
      {"sink", {"core", "algo", "input", "device", "facts", "verify", "timing", "place", "sink"}},
      {"session", {"core", "algo", "input", "device", "facts", "verify", "timing", "place", "sink", "session"}},
      {"report", {"core", "algo", "input", "device", "facts", "verify", "timing", "place", "session", "report"}},
      {"experiment",
       {"core", "algo", "input", "device", "facts", "verify", "timing", "place", "session", "report", "experiment"}},
      {"suite",
       {"core", "algo", "input", "device", "facts", "verify", "timing", "place", "sink", "session", "report", "suite"}},
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

// A family reaches another only through that family's public headers, declared in its
// CMakeLists.txt (sortbench_family_public_headers, kernels/CMakeLists.txt), whatever the include's
// spelling: "../hp/hp_index.hpp", "hp/hp_index.hpp" and "hp_index.hpp" are the same file.
using PublicHeaders = std::map<std::string, std::set<std::string>>;

PublicHeaders public_headers(const fs::path& kernels) {
  static const std::regex call(R"re(sortbench_family_public_headers\s*\(\s*sortbench_(\w+)([^)]*)\))re");
  PublicHeaders out;
  for (const auto& e : fs::directory_iterator(kernels)) {
    if (!e.is_directory()) continue;
    out[e.path().filename().string()];  // a family that declares none has none
    std::ifstream in(e.path() / "CMakeLists.txt");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator m(text.begin(), text.end(), call), end; m != end; ++m) {
      std::istringstream names((*m)[2].str());
      for (std::string name; names >> name;) out[(*m)[1].str()].insert(name);
    }
  }
  return out;
}

// Where the build's include folders would find a quoted include: beside the including file, from
// kernels/ (a family's folder's parent), or from a family's folder (each may be one).
std::optional<fs::path> resolve_include(const fs::path& kernels, const fs::path& including, const std::string& spelled) {
  std::vector<fs::path> roots{including.parent_path(), kernels};
  for (const auto& e : fs::directory_iterator(kernels))
    if (e.is_directory()) roots.push_back(e.path());
  for (const fs::path& root : roots)
    if (fs::is_regular_file(root / spelled)) return fs::weakly_canonical(root / spelled);
  return std::nullopt;
}

// Why an include of one family's file by another breaks the rule, or "".
std::string cross_family_violation(const fs::path& kernels, const fs::path& including, const std::string& spelled,
                                   const PublicHeaders& publics) {
  const auto resolved = resolve_include(kernels, including, spelled);
  if (!resolved) return "";
  const fs::path root = fs::weakly_canonical(kernels);
  const fs::path from = fs::relative(fs::weakly_canonical(including), root);
  const fs::path to = fs::relative(*resolved, root);
  const std::vector<fs::path> to_parts(to.begin(), to.end());
  const std::string from_family = from.begin()->string(), to_family = to_parts.front().string();
  if (to_family == ".." || from_family == to_family) return "";
  // Public: a header directly in the family's folder that the family declares.
  const auto it = publics.find(to_family);
  if (it != publics.end() && to_parts.size() == 2 && it->second.count(to_parts[1].string())) return "";
  return from.string() + " includes " + to.string() + " (\"" + spelled + "\"), which is not one of " + to_family +
         "'s public headers: include one it declares in kernels/" + to_family +
         "/CMakeLists.txt (sortbench_family_public_headers), or declare this one there";
}

std::vector<std::string> quoted_includes(const fs::path& file) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, include_line)) out.push_back(m[1]);
  }
  return out;
}

TEST(Layout, FamiliesReachEachOtherOnlyThroughPublicHeaders) {
  const fs::path kernels = kRoot / "kernels";
  const PublicHeaders publics = public_headers(kernels);
  EXPECT_TRUE(publics.at("hp").count("hp.hpp")) << "kernels/hp/CMakeLists.txt declares its public headers";
  for (const fs::path& file : sources_under(kernels))
    for (const std::string& spelled : quoted_includes(file)) {
      const std::string why = cross_family_violation(kernels, file, spelled, publics);
      EXPECT_TRUE(why.empty()) << why;
    }
}

// The rule on a planted tree: each spelling of a private header of another family is caught,
// and a public one or a family's own header is not.
TEST(Layout, CrossFamilyRuleCatchesPlantedViolations) {
  const fs::path tmp = fs::temp_directory_path() / ("sortbench_layout_" + std::to_string(::getpid()));
  const fs::path kernels = tmp / "kernels";
  fs::create_directories(kernels / "a");
  fs::create_directories(kernels / "b");
  for (const char* f : {"a/a.hpp", "a/a_private.cuh", "b/b.cu", "b/b_own.hpp"}) std::ofstream(kernels / f) << "\n";
  std::ofstream(kernels / "a/CMakeLists.txt") << "sortbench_family_public_headers(sortbench_a a.hpp)\n";
  std::ofstream(kernels / "b/CMakeLists.txt") << "add_library(sortbench_b STATIC b.cu)\n";
  const PublicHeaders publics = public_headers(kernels);
  const fs::path b = kernels / "b/b.cu";
  for (const char* spelled : {"../a/a_private.cuh", "a/a_private.cuh", "a_private.cuh"})
    EXPECT_NE(cross_family_violation(kernels, b, spelled, publics).find("not one of a's public headers"),
              std::string::npos)
        << spelled << " was let through";
  for (const char* spelled : {"../a/a.hpp", "a/a.hpp", "a.hpp", "b_own.hpp", "sortbench/core/keys.hpp"})
    EXPECT_EQ(cross_family_violation(kernels, b, spelled, publics), "") << spelled;
  fs::remove_all(tmp);
}

TEST(Layout, NoFileLongerThanAReaderCanHold) {
  constexpr std::size_t kMaxLines = 600;
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
