// The scripts around the sweep: sweep.sh (one shard per GPU, merged), figures.sh (every
// spec in pieces with --resume) and ci-regression.sh (sweep, compare with a baseline).
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

}  // namespace
}  // namespace sb
