// scripts/plot.py draws the figures of a spec from results: a PNG from the smoke fixture,
// the bitonic table's PNG and Markdown, and a winner map (skipped without matplotlib).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/command.hpp"

namespace sb {
namespace {

using test::run_command;
using test::source_path;

// The first Python that imports matplotlib: python3 on PATH (which may be a pyenv one), or
// Debian's /usr/bin/python3 where python3-matplotlib installs; empty when neither does.
const std::string& python() {
  static const std::string found = [] {
    for (const char* candidate : {"python3", "/usr/bin/python3"})
      if (run_command(std::string(candidate) + " -c 'import matplotlib'").exit_code == 0) return std::string(candidate);
    return std::string();
  }();
  return found;
}

bool have_matplotlib() { return !python().empty(); }

void expect_png(const std::string& path) {
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const std::string head = test::read_text(path).substr(0, 8);
  EXPECT_EQ(head, std::string("\x89PNG\r\n\x1a\n", 8)) << path;
  EXPECT_GT(std::filesystem::file_size(path), 5000u) << path;
}

std::string plot(const std::string& spec, const std::string& results, const std::string& out) {
  return python() + " " + source_path("scripts/plot.py") + " --spec " + source_path(spec) + " " + source_path(results) +
         " -o " + out;
}

TEST(PlotPy, LinesFigureFromTheSmokeFixture) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3 cannot import matplotlib; scripts/setup.sh installs python3-matplotlib";
  test::TempDir dir;
  const auto r = run_command(plot("datasets/smoke.json", "tests/fixtures/smoke-results.jsonl", dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_png(dir.file("smoke.png"));
}

TEST(PlotPy, PaperFigureWithItsOwnPanelAndEveryVariant) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3 cannot import matplotlib; scripts/setup.sh installs python3-matplotlib";
  test::TempDir dir;
  const auto r = run_command(plot("datasets/hp-6.3.2-duplicates.json", "tests/fixtures/hp-results.jsonl", dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_png(dir.file("hp-fig7-paper.png"));       // every delta x sigma panel, the paper's algorithms
  expect_png(dir.file("hp-fig7-paper-main.png"));  // figure 7 itself: delta 50, sigma 50
  expect_png(dir.file("hp-fig7.png"));             // every hp variant
}

TEST(PlotPy, BitonicTableBesideTheArticle) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3 cannot import matplotlib; scripts/setup.sh installs python3-matplotlib";
  test::TempDir dir;
  const auto r = run_command(plot("datasets/bitonic-table.json", "tests/fixtures/bitonic-results.jsonl", dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_png(dir.file("bitonic-table.png"));
  const std::string md = test::read_text(dir.file("bitonic-table.md"));
  EXPECT_NE(md.find("| n | B2 | B2C2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2^27 |"), std::string::npos) << md;
  EXPECT_NE(md.find(" / 1744"), std::string::npos) << "the article's B2 time at 2^27: " << md;
}

TEST(PlotPy, WinnerMapNamesTheFastestAndItsRatio) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3 cannot import matplotlib; scripts/setup.sh installs python3-matplotlib";
  test::TempDir dir;
  const auto r = run_command(plot("datasets/winner-map.json", "tests/fixtures/winner-results.jsonl", dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_png(dir.file("winner-map-sigma.png"));
  expect_png(dir.file("winner-map-len.png"));
  const std::string md = test::read_text(dir.file("winner-map-sigma.md"));
  EXPECT_NE(md.find("(2.00x)"), std::string::npos) << md;
}

TEST(PlotPy, RefusesASpecWithoutFigures) {
  test::TempDir dir;
  const std::string spec = dir.file("s.json");
  test::write_text(spec, R"({"algorithms": ["cpu-std-sort"]})");
  const auto r = run_command((have_matplotlib() ? python() : std::string("python3")) + " " + source_path("scripts/plot.py") + " --spec " + spec + " " +
                             source_path("tests/fixtures/smoke-results.jsonl") + " -o " + dir.path());
  EXPECT_NE(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

// scripts/energy_plot.py (issue 16): keys/s against keys/J, one point per algorithm with an
// energy figure; a file without any says so and fails.
std::string energy_row(const std::string& algorithm, double keys_per_s, double keys_per_joule) {
  return R"({"algorithm": ")" + algorithm + R"(", "status": "ok", "keys_per_s": )" + std::to_string(keys_per_s) +
         R"(, "input": {"n": 67108864, "key": "u32", "requested": {"delta": 50, "sigma": 50}},)" +
         R"( "energy": {"keys_per_joule": )" + std::to_string(keys_per_joule) + R"(, "power_w": 400, "idle_power_w": 90}})";
}

TEST(EnergyPlotPy, KeysPerSecondAgainstKeysPerJoule) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3 cannot import matplotlib; scripts/setup.sh installs python3-matplotlib";
  test::TempDir dir;
  test::write_text(dir.file("energy.json"), R"({"schema_version": 1, "context": {}, "results": [)" +
                                                energy_row("cub-radix", 5e10, 1.2e8) + ", " +
                                                energy_row("hp-auto", 1.3e11, 3.1e8) + "]}");
  const auto r = run_command(python() + " " + source_path("scripts/energy_plot.py") + " " + dir.file("energy.json") +
                             " -o " + dir.file("fig"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_png(dir.file("fig/energy.png"));
  const std::string table = test::read_text(dir.file("fig/energy.md"));
  EXPECT_NE(table.find("| hp-auto | 130.000 | 310.00 | 400 | 90 |"), std::string::npos) << table;
  EXPECT_LT(table.find("hp-auto"), table.find("cub-radix")) << "fastest first";
  test::write_text(dir.file("none.json"), R"({"schema_version": 1, "context": {}, "results": []})");
  const auto none = run_command(python() + " " + source_path("scripts/energy_plot.py") + " " + dir.file("none.json") +
                                " -o " + dir.file("fig2"));
  EXPECT_NE(none.exit_code, 0);
  EXPECT_NE(none.output.find("no row with an energy figure"), std::string::npos) << none.output;
}

}  // namespace
}  // namespace sb
