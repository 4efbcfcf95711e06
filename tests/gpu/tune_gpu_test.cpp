// sortbench tune on a real GPU (issue 50 items 1, 2 and 4): the profile it writes holds both
// kinds of crossover (hp-tiled against CUB by sigma, the whole keys against offsets by key type)
// and the points behind them, within the two minutes; --check re-measures beside them
// and says how many points the profile predicts; and `run --algo auto` reading the profile picks
// for a u64 range of three digits what the profile's u64 crossover says; ooc-hp's chunk sizes
// (each's fill and rate), which a run reading the profile takes and --param chunk_mib overrides.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sortbench/core/choice_profile.hpp"
#include "support/command.hpp"

namespace {

using sb::test::CommandResult;
using sb::test::TempDir;
using sb::test::sortbench;

TEST(TuneGpu, WritesBothCrossoversChecksThemAndAutoReadsThem) {
  TempDir dir;
  const std::string profile = dir.file("profile.json");
  const CommandResult tune = sortbench("tune --budget 0 --reps 1 -o " + profile);
  ASSERT_EQ(tune.exit_code, 0) << tune.output << tune.err;
  const nlohmann::json p = nlohmann::json::parse(sb::test::read_text(profile));
  EXPECT_EQ(p["thresholds"]["hp_tiled_min_delta"].size(), 4u) << p.dump();
  EXPECT_EQ(p["thresholds"]["hp_pairs_min_delta"].size(), 5u) << p.dump();
  const nlohmann::json& radix = p["thresholds"]["radix_whole_from_digits"];
  std::set<std::string> keys;
  int u64_from = 0;
  for (const auto& c : radix) {
    const std::string key = c["key"];
    const int digits = c["whole_from_digits"], key_digits = key.find("64") != std::string::npos ? 8 : 4;
    EXPECT_GE(digits, 1) << c.dump();
    EXPECT_LE(digits, key_digits) << c.dump();
    keys.insert(key);
    if (key == "u64") u64_from = digits;
  }
  EXPECT_EQ(keys, (std::set<std::string>{"u32", "i32", "u64", "i64"}));
  int radix_points = 0;
  for (const auto& m : p["measured"]) radix_points += m.contains("cub-radix_ms");
  EXPECT_EQ(radix_points, 3 + 3 + 7 + 7);
  EXPECT_LE(p["tune"]["wall_s"].get<double>(), 120.0);
  // ooc-hp's chunk sizes, each with its fill and rate; a run takes the one its input's size
  // predicts fastest, and --param chunk_mib overrides it.
  const nlohmann::json& chunks = p["thresholds"]["stream_chunks"];
  EXPECT_EQ(chunks.size(), 5u) << p.dump();
  for (const auto& c : chunks) {
    EXPECT_EQ(c["algorithm"], "ooc-hp") << c.dump();
    EXPECT_GT(c["ms_per_gib"].get<double>(), 0.0) << c.dump();
    EXPECT_GE(c["fill_ms"].get<double>(), 0.0) << c.dump();
  }
  const sb::ChoiceProfile read = sb::parse_choice_profile(sb::test::read_text(profile), profile);
  const std::uint64_t expect_cap = *sb::stream_chunk_bytes(read, "ooc-hp", (std::uint64_t{1} << 24) * 4);
  for (const std::string param : {"", " --param chunk_mib=16"}) {
    const std::string ooc_json = dir.file("ooc.json");
    const CommandResult ooc = sortbench("run --algo ooc-hp --placement host --reps 1 --budget 0 --quiet -n 2^24 "
                                        "--delta 64 --profile " + profile + param + " --json " + ooc_json);
    ASSERT_EQ(ooc.exit_code, 0) << ooc.output << ooc.err;
    const nlohmann::json ooc_row = nlohmann::json::parse(sb::test::read_text(ooc_json))["results"][0];
    EXPECT_EQ(ooc_row["verification"], "passed") << ooc_row.dump();
    EXPECT_EQ(ooc_row["details"]["chunk_cap_bytes"], std::to_string(param.empty() ? expect_cap : 16u << 20))
        << ooc_row.dump();
  }
  const CommandResult bad = sortbench("run --algo ooc-hp --reps 1 --budget 0 --quiet -n 2^20 --param chunk_mib=0");
  EXPECT_EQ(bad.exit_code, 2) << bad.output << bad.err;
  EXPECT_NE(bad.err.find("chunk_mib=0 is not between 1 and 65536"), std::string::npos) << bad.err;

  const CommandResult check = sortbench("tune --check --budget 0 --reps 1 -o " + profile);
  EXPECT_TRUE(check.exit_code == 0 || check.exit_code == 1) << check.output << check.err;
  EXPECT_NE(check.output.find("points as the profile predicts"), std::string::npos) << check.output;

  // u64 keys over 2^20 values from 2^61: 3 of 8 digits, sorted by cub-radix-bits as offsets.
  const std::string json = dir.file("auto.json");
  const CommandResult run = sortbench("run --algo auto --reps 1 --budget 0 --quiet -n 2^22 --key u64 --min-val 2^61 "
                                      "--max-val 2305843009214742528 --profile " + profile + " --json " + json);
  ASSERT_EQ(run.exit_code, 0) << run.output << run.err;
  const nlohmann::json row = nlohmann::json::parse(sb::test::read_text(json))["results"][0];
  EXPECT_EQ(row["details"]["variant"], u64_from <= 3 ? "cub-radix" : "cub-radix-bits") << row.dump();
  EXPECT_EQ(row["details"]["rule"], "profile:" + profile) << row.dump();
  EXPECT_EQ(row["verification"], "passed") << row.dump();
}

}  // namespace
