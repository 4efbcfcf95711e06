// The scripts around the sweep: sweep.sh (one shard per GPU, merged), figures.sh (every
// spec in pieces with --resume) and ci-regression.sh (sweep, compare with a baseline); and
// results_table.py, which makes docs/results.md's tables from the committed JSON (issue 35
// item 7), so that document is checked here against what the JSON makes.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "sortbench/experiment/sweep.hpp"
#include "support/command.hpp"

namespace sb {
namespace {

using nlohmann::json;
using test::exe;
using test::run_command;
using test::source_path;

const std::string kSmoke = source_path("datasets/smoke.json");

TEST(SweepScripts, SweepShMergesOneShardPerGpuInRowOrder) {
  test::TempDir dir;
  const std::string out = dir.file("smoke.jsonl");
  const auto r = run_command("SWEEP_GPUS=3 SORTBENCH=" + exe() + " bash " + source_path("scripts/sweep.sh") + " " +
                             kSmoke + " " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = test::lines_of(test::read_text(out));
  ASSERT_EQ(lines.size(), 1u + 24u);
  EXPECT_EQ(json::parse(lines[0]).at("sweep").at("shard"), "merged from 3 shards");
  std::set<std::string> keys;
  std::size_t last_row = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const json j = json::parse(lines[i]);
    const std::size_t row = j.at("row_index").get<std::size_t>();
    EXPECT_GE(row, last_row) << "rows in order";
    last_row = row;
    keys.insert(result_key(j.at("row_key").get<std::string>(), j.at("algorithm").get<std::string>()));
  }
  EXPECT_EQ(keys.size(), 24u);
  // Rerun with --resume: every shard is complete, the merge is unchanged.
  const auto again = run_command("SWEEP_GPUS=3 SORTBENCH=" + exe() + " bash " + source_path("scripts/sweep.sh") +
                                 " " + kSmoke + " " + out + " --resume");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(test::lines_of(test::read_text(out)).size(), lines.size());
}

TEST(SweepScripts, FiguresShRunsInPiecesUntilComplete) {
  test::TempDir dir;
  const std::string env = "cd " + source_path("") + " && OUTDIR=" + dir.path() + " SPECS=smoke SORTBENCH=" + exe() +
                          " SWEEP_GPUS=1 bash scripts/figures.sh ";
  const auto none = run_command(env + "0");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("incomplete; run scripts/figures.sh again"), std::string::npos) << none.output;
  const auto all = run_command(env + "300");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("all sweeps complete"), std::string::npos) << all.output;
  EXPECT_EQ(read_sweep_file(dir.file("smoke.jsonl"), false).results, 24u);
}

TEST(SweepScripts, CiRegressionFailsOnlyOnARegression) {
  test::TempDir dir;
  const std::string baseline = dir.file("baselines/smoke.jsonl");
  const std::string cmd = "SORTBENCH=" + exe() + " bash " + source_path("scripts/ci-regression.sh") + " " + kSmoke +
                          " " + baseline;
  const auto first = run_command(cmd);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("no baseline yet"), std::string::npos) << first.output;
  // The baseline's medians scaled, their noise made negligible.
  auto scale_baseline = [&](double factor) {
    std::string doctored;
    for (const auto& line : test::lines_of(test::read_text(baseline))) {
      json j = json::parse(line);
      if (j.contains("time_ms") && !j.at("time_ms").is_null()) {
        j["time_ms"]["median"] = j["time_ms"]["median"].get<double>() * factor;
        j["time_ms"]["rel_stddev"] = 0.001;
      }
      doctored += j.dump() + "\n";
    }
    test::write_text(baseline, doctored);
  };
  // A baseline a thousand times slower: a rerun is no regression however loaded the machine
  // (a CPU sort of 16K keys swings 0.5-24 ms here under parallel builds).
  scale_baseline(1000.0);
  const auto rerun = run_command(cmd);
  EXPECT_EQ(rerun.exit_code, 0) << rerun.output;
  // Then ten times faster than first measured: every row of a new run is a regression.
  scale_baseline(0.1 / 1000.0);
  const auto regressed = run_command(cmd);
  EXPECT_EQ(regressed.exit_code, 1) << regressed.output;
  EXPECT_NE(regressed.output.find("SLOWER"), std::string::npos) << regressed.output;
}

// The line of `text` that starts with `prefix`, or "" (a table row by its label).
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& line : test::lines_of(text))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

TEST(ResultsTable, TablesAreComputedFromTheResultsTheTemplateNames) {
  // The fixture: 2^20 keys where hp-fast takes 1 ms and cub-radix 2; 2^24 keys where hp-fast
  // takes 2 ms (1.6 with --param low_bits=15), cub-radix 8, and hp-slow declined the input.
  const auto r = run_command("python3 " + source_path("scripts/results_table.py") + " --doc " +
                             source_path("tests/fixtures/results-table.md.in"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(line_starting(r.output, "| n = 2^20, δ = 1 |"),
            "| n = 2^20, δ = 1 | hp-fast 1 | 1.1 (hp-fast) | 4 | 2.00× | hp-fast 1, hp-auto 1.1, cub-radix 2, "
            "hp-slow 4 |");
  // A run with parameters gets its own row, beside the results without them.
  EXPECT_EQ(line_starting(r.output, "| n = 2^24, δ = 50 |"),
            "| n = 2^24, δ = 50 | hp-fast 2 | 2.5 (cub-radix) | unsupported | 4.00× | hp-fast 2, hp-auto 2.5, "
            "cub-radix 8 |");
  EXPECT_EQ(line_starting(r.output, "| n = 2^24, δ = 50 low_bits=15 |"),
            "| n = 2^24, δ = 50 low_bits=15 | hp-fast 1.6 | 2.5 (cub-radix) | unsupported | 5.00× | hp-fast 1.6, "
            "hp-auto 2.5, cub-radix 8 |");
  // @wins: how often each was the fastest, and the reference's time over the fastest one's.
  EXPECT_EQ(line_starting(r.output, "| δ = 50 |"), "| δ = 50 | 1 | hp-fast low_bits=15 1 | 5.00× (5.00× to 5.00×) |");
  // across: one column per value of the across label; an input without a value there is "–".
  EXPECT_EQ(line_starting(r.output, "| 1 |"), "| 1 | 2.00× | – |");
  // Each table names its file, the device and the commit from the file's context block.
  EXPECT_NE(r.output.find("`tests/fixtures/results-table.json`: Test GPU, commit 0123456."), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("@table"), std::string::npos) << "every directive is replaced";
}

TEST(ResultsTable, AnUnknownFieldNamesTheTemplateLine) {
  test::TempDir dir;
  test::write_text(dir.file("t.md.in"),
                   "text\n@table files=tests/fixtures/results-table.json rows=\"{nope}\" cols=\"a={ms(x)}\"\n");
  const auto r = run_command("python3 " + source_path("scripts/results_table.py") + " --doc " + dir.file("t.md.in"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("t.md.in:2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nope"), std::string::npos) << r.output;
}

TEST(ResultsTable, OneFileTableWithRatios) {
  const auto r = run_command("python3 " + source_path("scripts/results_table.py") + " " +
                             source_path("tests/fixtures/results-table.json") + " --ratio-to cub-radix");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| 2^20 | 1 | 1 | uniform | u32 | none | hp-fast | 1.0000 | 1.05 | 1.0 | verified | 2.00× |"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("| hp-slow | - | - | - | unsupported | - |"), std::string::npos) << r.output;
}

// docs/results.md cannot go stale: it must be exactly what its template makes from the
// committed JSON; a changed number is caught, with the command that rewrites the file.
TEST(ResultsTable, ResultsDocIsWhatTheCommittedJsonMakes) {
  const std::string script = "python3 " + source_path("scripts/results_table.py") + " --doc " +
                             source_path("docs/results.md.in") + " --check ";
  const auto r = run_command(script + source_path("docs/results.md"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  test::TempDir dir;
  std::string doc = test::read_text(source_path("docs/results.md"));
  const std::size_t at = doc.find("| 1.");
  ASSERT_NE(at, std::string::npos);
  doc.replace(at, 4, "| 9.");
  test::write_text(dir.file("results.md"), doc);
  const auto stale = run_command(script + dir.file("results.md"));
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_NE(stale.output.find("rewrite it with: python3 scripts/results_table.py --doc"), std::string::npos)
      << stale.output;
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

// scripts/gpu-check.sh's report (issue 48 item 5): a ctest JUnit file summed, without a GPU.
TEST(GpuSuiteReport, CountsAndTheSlowestFromCtestsJUnit) {
  test::TempDir dir;
  test::write_text(dir.file("j.xml"), R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux" tests="4" failures="1" disabled="0" skipped="1" hostname="" time="9">
  <testcase name="A.Fast" classname="A.Fast" time="0.5" status="run"><system-out>ok</system-out></testcase>
  <testcase name="B.Slow" classname="B.Slow" time="7.25" status="run"/>
  <testcase name="C.Broken" classname="C.Broken" time="1" status="fail"><failure message="Failed"/></testcase>
  <testcase name="D.NoGpu" classname="D.NoGpu" time="0.1" status="run"><skipped message="Skipped"/></testcase>
</testsuite>
)");
  const auto r = run_command("cd " + source_path("scripts") +
                             " && python3 -c \"import json, gpu_suite_report as g; print(json.dumps(g.summarize('" +
                             dir.file("j.xml") + "', 2)), g.folder_of('NVIDIA H200', 2), g.folder_of('NVIDIA H100 "
                             "80GB HBM3', 1))\"");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto space = r.output.find("} ");
  const json s = json::parse(r.output.substr(0, space + 1));
  EXPECT_EQ(s["tests"], 4);
  EXPECT_EQ(s["passed"], 2);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["skipped"], 1);
  ASSERT_EQ(s["slowest"].size(), 2u);
  EXPECT_EQ(s["slowest"][0]["test"], "B.Slow");
  EXPECT_EQ(s["slowest"][0]["seconds"], 7.25);
  EXPECT_NE(r.output.find(" h200x2 h100"), std::string::npos) << r.output;
}

// full runs the multi-GPU tests in a ctest run of their own first (gpu-check.sh): both JUnit
// files count in one report.
TEST(GpuSuiteReport, TheMultiGpuRunsJUnitCountsBesideTheRest) {
  test::TempDir dir;
  test::write_text(dir.file("multi.xml"), R"(<testsuite name="Linux" tests="1">
  <testcase name="DistGpu.A" classname="DistGpu.A" time="9.5" status="run"/>
</testsuite>
)");
  test::write_text(dir.file("rest.xml"), R"(<testsuite name="Linux" tests="2">
  <testcase name="Gpu.B" classname="Gpu.B" time="1" status="run"/>
  <testcase name="Gpu.C" classname="Gpu.C" time="0" status="notrun"/>
</testsuite>
)");
  const auto r = run_command("cd " + source_path("scripts") +
                             " && python3 -c \"import json, gpu_suite_report as g; print(json.dumps(g.summarize(['" +
                             dir.file("multi.xml") + "', '" + dir.file("rest.xml") + "'])))\"");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = json::parse(r.output);
  EXPECT_EQ(s["tests"], 3);
  EXPECT_EQ(s["passed"], 2);
  EXPECT_EQ(s["not_run"], 1);
  EXPECT_EQ(s["slowest"][0]["test"], "DistGpu.A");
}

TEST(GpuSuiteReport, GpuCheckWithoutAGpuSaysSoAndExits77) {
  if (run_command("nvidia-smi -L >/dev/null 2>&1").exit_code == 0) GTEST_SKIP() << "this machine has a GPU";
  const auto r = run_command("bash " + source_path("scripts/gpu-check.sh") + " quick");
  EXPECT_EQ(r.exit_code, 77) << r.output;
  EXPECT_NE(r.output.find("gpu-check: no GPU here"), std::string::npos) << r.output;
  const auto bad = run_command("bash " + source_path("scripts/gpu-check.sh") + " everything");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

// Issue 47 item 4: the README's own example failed without a GPU (-n given twice), and the CPU
// run's smaller default n went unsaid.
TEST(RunScript, TheReadmesExampleRunsOnTheCpuWithTheUsersN) {
  if (run_command("nvidia-smi -L >/dev/null 2>&1").exit_code == 0) GTEST_SKIP() << "this machine has a GPU";
  test::TempDir dir;
  const std::string run_sh = "SORTBENCH_RUN_NO_BUILD=1 BUILD_DIR=" + std::string(SORTBENCH_BUILD_DIR) + " bash " +
                             source_path("scripts/run.sh");
  const auto r = run_command(run_sh + " -n 2^16 --delta 50 --sigma 50 --reps 2 --budget 0.05 --json " + dir.file("a.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("runs the CPU backend"), std::string::npos) << r.output;
  const json a = json::parse(test::read_text(dir.file("a.json")));
  ASSERT_FALSE(a["results"].empty());
  for (const auto& row : a["results"]) EXPECT_EQ(row["input"]["n"], 65536) << row.dump();
  // Without -n: 2^20 keys, and it says so.
  const auto d = run_command(run_sh + " --algo cpu-std-sort --reps 2 --budget 0.05 --json " + dir.file("d.json"));
  ASSERT_EQ(d.exit_code, 0) << d.output;
  EXPECT_NE(d.output.find("n = 2^20 keys instead of the GPU default 2^24"), std::string::npos) << d.output;
  EXPECT_EQ(json::parse(test::read_text(dir.file("d.json")))["results"][0]["input"]["n"], 1048576);
}

}  // namespace
}  // namespace sb
