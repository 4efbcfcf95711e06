// The command line as a user meets it: each user error is one line on stderr, a documented
// exit code, and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sortbench/algo/registry.hpp"
#include "sortbench/device/device_info.hpp"
#include "support/command.hpp"

namespace {

using sb::test::CommandResult;

CommandResult run(const std::string& args) {
  return sb::test::run_command(sb::test::exe() + " " + args, /*split_stderr=*/true);
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_usage_error(const std::string& args, const std::string& mention) {
  const CommandResult r = run(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << ": one line expected, got:\n" << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << args << ": '" << mention << "' not in: " << r.err;
}

TEST(Cli, ListShowsTheBaselines) {
  const CommandResult r = run("list");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"cub-radix", "cub-radix-bits", "cub-radix-pairs", "cub-merge", "thrust-sort",
                           "cpu-std-sort", "cpu-parallel-sort"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
}

// Issue 35 item 8: `list` groups the algorithms by role, each once, under its group's heading,
// with its own line on when to pick it (so hp-stable and hp-tiled-stable read differently).
TEST(Cli, ListGroupsByRoleWithOneLineOnWhenToPickEach) {
  const CommandResult r = run("list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const char* headings[] = {"Reproductions of the papers", "Fast variants", "Baselines", "Distributed", "Choosers"};
  const sb::AlgorithmRole roles[] = {sb::AlgorithmRole::reproduction, sb::AlgorithmRole::fast_variant,
                                     sb::AlgorithmRole::baseline, sb::AlgorithmRole::distributed,
                                     sb::AlgorithmRole::chooser};
  std::map<std::string, std::string> line_of;   // algorithm -> its line
  std::map<std::string, int> group_of;          // algorithm -> the heading above it
  int group = -1;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    for (int g = 0; g < 5; ++g)
      if (line.rfind(headings[g], 0) == 0) group = g;
    if (line.rfind("  ", 0) != 0) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    EXPECT_EQ(line_of.count(name), 0u) << name << " listed twice";
    line_of[name] = line;
    group_of[name] = group;
  }
  for (const sb::Algorithm& a : sb::registry().all()) {
    ASSERT_EQ(line_of.count(a.name), 1u) << a.name << " not listed:\n" << r.output;
    EXPECT_EQ(group_of[a.name], static_cast<int>(std::find(std::begin(roles), std::end(roles), a.role) - roles))
        << a.name;
    EXPECT_NE(line_of[a.name].find(a.pick_when), std::string::npos) << line_of[a.name];
  }
  EXPECT_EQ(group_of["hp"], 0);
  EXPECT_EQ(group_of["hp-tiled-stable"], 1);
  EXPECT_EQ(group_of["cub-radix"], 2);
  EXPECT_EQ(group_of["auto"], 4);
  EXPECT_NE(sb::registry().find("hp-stable")->pick_when, sb::registry().find("hp-tiled-stable")->pick_when);
  // --details adds what each accepts and implements.
  const CommandResult d = run("list --details");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.output.find("source: CUB DeviceRadixSort"), std::string::npos) << d.output;
}

// One definition of each device option (docs/usage.md "One spelling per idea"): the same help
// text in every subcommand that takes it, the same check, and the old spellings refused.
TEST(Cli, DeviceOptionsReadAlikeInEverySubcommand) {
  // The option's entry in `SUBCOMMAND --help`: its line and the description CLI11 may wrap
  // onto the next ones.
  auto help_line = [](const std::string& subcommand, const std::string& option) {
    const CommandResult h = run(subcommand + " --help");
    std::istringstream in(h.output);
    std::string entry;
    for (std::string line; std::getline(in, line);) {
      const bool starts_option = line.rfind("  -", 0) == 0;
      if (!entry.empty() && (starts_option || line.empty())) break;
      if (!entry.empty()) entry += " " + line.substr(line.find_first_not_of(' '));
      if (starts_option && line.find("  " + option + " ") != std::string::npos) entry = line.substr(line.find(option));
    }
    return entry.empty() ? "(no " + option + " in " + subcommand + " --help)" : entry;
  };
  for (const char* sub : {"run", "sort"}) EXPECT_EQ(help_line(sub, "--backend"), help_line("gen", "--backend")) << sub;
  for (const char* sub : {"run", "sort", "sweep", "info"})
    EXPECT_EQ(help_line(sub, "--device"), help_line("gen", "--device")) << sub;
  EXPECT_NE(help_line("gen", "--backend").find("who does the work"), std::string::npos);
  for (const char* sub : {"gen", "run", "sort input.npy -o out.npy"})
    expect_usage_error(std::string(sub) + " --backend tpu", "--backend");
  expect_usage_error("gen --backend cpu -n 100 --device 1", "drop --device");
  expect_usage_error("run --backend cpu --algo cpu-std-sort -n 100 --device 1", "drop --device");
  expect_usage_error("run --backend cpu --algo cpu-std-sort -n 100 --gpus 2", "drop --gpus");
  expect_usage_error("sort --backend cpu in.npy -o out.npy --device 0", "drop --device");
}

TEST(Cli, OldOutputSpellingsNameTheNewOne) {
  sb::test::TempDir dir;
  expect_usage_error("gen --backend cpu -n 100 --out " + dir.file("k.npy"), "-o/--output");
  expect_usage_error("sweep --spec " + sb::test::source_path("datasets/smoke.json") + " --out " + dir.file("s.jsonl"),
                     "-o/--output");
  EXPECT_FALSE(std::filesystem::exists(dir.file("k.npy")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.jsonl")));
}

// Issue 52 item 3: a row for each algorithm that cannot take the input; a run where none can is
// exit 2 naming each one's reason, and writes no report.
TEST(Cli, ARunWhereNoRequestedAlgorithmCanRunIsExitTwoWithNoReport) {
  sb::test::TempDir dir;
  const std::string json = dir.file("r.json");
  const CommandResult none = run("run -n 1000 --key f64 --backend cpu --algo cpu-hp --quiet --json " + json);
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("no requested algorithm can run on this input (cpu-hp: "), std::string::npos) << none.err;
  EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
  EXPECT_FALSE(std::filesystem::exists(json));
  // One that can: the other's row says why it could not, and the run is exit 0.
  const CommandResult some =
      run("run -n 1000 --key f64 --backend cpu --algo cpu-hp,cpu-stable-sort --reps 1 --quiet --json " + json);
  EXPECT_EQ(some.exit_code, 0) << some.err;
  EXPECT_TRUE(std::filesystem::exists(json));
}

TEST(Cli, UsageErrorsAreOneLineWithExitCode2) {
  expect_usage_error("run --algo cub-radx --backend cpu", "did you mean cub-radix");
  expect_usage_error("run -n -5 --backend cpu --algo cpu-std-sort", "-n");
  expect_usage_error("run -n lots --backend cpu --algo cpu-std-sort", "not a number");
  expect_usage_error("run -n 1.5 --backend cpu --algo cpu-std-sort", "-n '1.5' is not a whole number");
  expect_usage_error("run -n 99999999999999999999999 --backend cpu --algo cpu-std-sort", "too large");
  expect_usage_error("run --delta 0 --backend cpu --algo cpu-std-sort", "--delta");
  expect_usage_error("run --delta -3 --backend cpu --algo cpu-std-sort", "--delta");
  expect_usage_error("run --sigma 0.5 --backend cpu --algo cpu-std-sort", "--sigma");
  expect_usage_error("run -n 100 --max-val 10 --len 20 --backend cpu --algo cpu-std-sort", "exceeds range");
  expect_usage_error("run -n 10 --max-val 100 --len 20 --backend cpu --algo cpu-std-sort", "exceeds -n");
  expect_usage_error("run --min-val 5 --max-val 5 --backend cpu --algo cpu-std-sort", "must be below");
  expect_usage_error("run --max-val 2^33 --backend cpu --algo cpu-std-sort", "--key u32 holds values in");
  expect_usage_error("run --min-val -2^40 --key i32 --backend cpu --algo cpu-std-sort", "--key i32 holds values in");
  expect_usage_error("run --max-val 2^65 --key u64 --backend cpu --algo cpu-std-sort", "too large");
  expect_usage_error("run --dist real --backend cpu --algo cpu-std-sort", "--key f32 or --key f64");
  expect_usage_error("run --dist entropy --entropy 0.5 --backend cpu --algo cpu-std-sort", "CUB's levels");
  expect_usage_error("run --dist entropy --key f32 --backend cpu --algo cpu-std-sort", "NaN");
  expect_usage_error("run -n 2^33 --delta 4 --payload index --backend cpu --algo cpu-std-sort", "--payload u64");
  expect_usage_error("run --dist lumpy --backend cpu --algo cpu-std-sort", "--dist");
  expect_usage_error("run --algo cub-radix --backend cpu", "--backend cpu");
  expect_usage_error("run --param nosuch=1 --backend cpu --algo cpu-std-sort", "nosuch");
  expect_usage_error("run --no-such-flag", "no-such-flag");
  expect_usage_error("gen -n 2^26 --key f32", "--key f32");
}

TEST(Cli, PlacementAndGpuMemoryLimitAreCheckedBeforeAnyGpuWork) {
  // Issue 37: a limit is bytes with -n's suffixes; the CPU backend takes neither option.
  expect_usage_error("run --gpu-memory-limit 0 --algo cub-radix", "--gpu-memory-limit 0");
  expect_usage_error("run --gpu-memory-limit lots --algo cub-radix", "--gpu-memory-limit");
  expect_usage_error("run --gpu-memory-limit 8G --backend cpu --algo cpu-std-sort", "--backend cpu");
  expect_usage_error("run --placement host --backend cpu --algo cpu-std-sort", "--backend cpu");
  expect_usage_error("run --placement disk --algo cub-radix", "--placement");
  expect_usage_error("sort a.npy -o b.npy --backend cpu --gpu-memory-limit 4G", "--backend cpu");
  // Issue 52: the external sort's host limit and folder, checked the same way.
  expect_usage_error("sort a.npy -o b.npy --host-memory-limit 0", "--host-memory-limit 0");
  expect_usage_error("sort a.npy -o b.npy --host-memory-limit lots", "--host-memory-limit");
  expect_usage_error("sort a.npy -o b.npy --backend cpu --host-memory-limit 4G", "--backend cpu");
  expect_usage_error("sort a.npy -o b.npy --backend cpu --tmp-dir /tmp", "--tmp-dir");
  // run takes both for its streamed placement, the same way (issue 52 item 1).
  expect_usage_error("run --host-memory-limit 0 --algo ooc-sort", "--host-memory-limit 0");
  expect_usage_error("run --host-memory-limit lots --algo ooc-sort", "--host-memory-limit");
  expect_usage_error("run --backend cpu --host-memory-limit 4G --algo cpu-std-sort", "--backend cpu");
  expect_usage_error("run --backend cpu --tmp-dir /tmp --algo cpu-std-sort", "--tmp-dir");
  expect_usage_error("run --tmp-dir /nonexistent/runs --algo ooc-sort", "--tmp-dir /nonexistent/runs is not a folder");
}

TEST(Cli, DesignCardExampleParses) {
  // Runs where a GPU is present (exit 0), reports the missing device otherwise (exit 3):
  // never a usage error.
  const CommandResult r = run("run --algo hp --delta 50 --sigma 50 -n 2^16 --reps 1 --quiet");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.exit_code << ": " << r.err;
}

TEST(Cli, NoDeviceSuggestsTheCpuBackend) {
  if (!sb::cuda_unavailable_reason()) GTEST_SKIP() << "a CUDA device is present";
  const CommandResult r = run("run --algo cub-radix -n 1000");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--backend cpu"), std::string::npos) << r.err;
}

// tune measures a GPU: without one it is exit 3 in one line, offering no --backend it lacks.
TEST(Cli, TuneWithoutAGpuSaysItMeasuresOne) {
  if (!sb::cuda_unavailable_reason()) GTEST_SKIP() << "a CUDA device is present";
  const CommandResult r = run("tune");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("tune measures a GPU"), std::string::npos) << r.err;
}

// Issue 47 item 7: info and sweep take no --backend, so their message must not offer it.
TEST(Cli, NoDeviceMessagesOfferOnlyWhatTheCommandTakes) {
  if (!sb::cuda_unavailable_reason()) GTEST_SKIP() << "a CUDA device is present";
  sb::test::TempDir dir;
  const CommandResult info = run("info");
  EXPECT_EQ(info.exit_code, 3);
  EXPECT_EQ(lines(info.err), 1u) << info.err;
  EXPECT_EQ(info.err.find("use --backend cpu"), std::string::npos) << info.err;
  const CommandResult sweep = run("sweep --spec " + sb::test::source_path("datasets/hp-6.3.2-duplicates.json") +
                                  " -o " + dir.file("s.jsonl"));
  EXPECT_EQ(sweep.exit_code, 3);
  EXPECT_EQ(lines(sweep.err), 1u) << sweep.err;
  EXPECT_EQ(sweep.err.find("use --backend cpu"), std::string::npos) << sweep.err;
  EXPECT_NE(sweep.err.find("\"backend\": \"cpu\""), std::string::npos) << sweep.err;
}

// Issue 16's options: --energy needs the GPU's energy counter; --throttle-threshold is a share.
TEST(Cli, MeasurementOptionsOutOfPlaceAreUsageErrorsWithoutOutput) {
  sb::test::TempDir dir;
  expect_usage_error("run --backend cpu --algo cpu-std-sort -n 1024 --energy --json " + dir.file("out.json"),
                     "drop --energy");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.json")));
  expect_usage_error("run --backend cpu --algo cpu-std-sort -n 1024 --throttle-threshold 1.5", "--throttle-threshold");
}

TEST(Cli, UnwritableJsonFailsBeforeSortingAndWritesNothing) {
  const CommandResult r = run("run --backend cpu --algo cpu-std-sort -n 1000 --json /nonexistent-dir/x.json");
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.output.find("verified"), std::string::npos) << "nothing may run before the check";
}

TEST(Cli, CpuRunWritesJsonAndCsv) {
  const auto dir = std::filesystem::temp_directory_path() / "sortbench_cli_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "r.json").string(), csv = (dir / "r.csv").string();
  const CommandResult r = run("run --backend cpu --algo all -n 64K --delta 50 --payload index --reps 3 --budget 0.1 --json " +
                       json + " --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream jf(json);
  const auto doc = nlohmann::json::parse(jf);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_TRUE(doc["context"]["gpu"].is_null());
  ASSERT_GE(doc["results"].size(), 2u);
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["input"]["n"], 65536);
    EXPECT_EQ(row["input"]["requested"]["delta"], 50.0);
    if (row["status"] == "ok") {
      EXPECT_EQ(row["verification"], "passed");
      EXPECT_GE(row["time_ms"]["samples"].get<int>(), 3);
    }
  }
  std::ifstream cf(csv);
  std::string header, line;
  std::getline(cf, header);
  std::size_t rows = 0;
  while (std::getline(cf, line)) ++rows;
  EXPECT_EQ(rows, doc["results"].size());
  std::filesystem::remove_all(dir);
}

// Issue 47 item 7: infinities were printed as +-2^64 and delta and sigma computed from them.
TEST(Cli, GenOfRealKeysPrintsTheirExtremesAsKeys) {
  const CommandResult r = run("gen --backend cpu -n 100000 --key f64 --dist real");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.output.find("18446744073709551616"), std::string::npos) << r.output;
  const bool infinite = r.output.find("inf") != std::string::npos;
  if (infinite) EXPECT_NE(r.output.find("not defined"), std::string::npos) << r.output;
}

TEST(Cli, SortWithAMistypedAlgorithmSuggestsNames) {
  sb::test::TempDir dir;
  sb::test::write_text(dir.file("in.txt"), "3\n1\n2\n");
  expect_usage_error("sort --backend cpu --algo cpu-std-sotr " + dir.file("in.txt") + " -o " + dir.file("o.txt"),
                     "did you mean cpu-std-sort");
  EXPECT_FALSE(std::filesystem::exists(dir.file("o.txt")));
}

TEST(Cli, GenPrintsRealizedStatisticsAndWritesRawKeys) {
  const auto path = (std::filesystem::temp_directory_path() / "sortbench_gen.bin").string();
  const CommandResult r = run("gen --backend cpu -n 1000 --max-val 500 --len 17 --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.output.find("len      17"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("realized len 17"), std::string::npos) << r.output;
  EXPECT_EQ(std::filesystem::file_size(path), 4000u);
  std::filesystem::remove(path);
}

}  // namespace
