// The real `sortbench sweep` on datasets/smoke.json: a sweep killed midway and resumed
// holds exactly the results of an uninterrupted one; dry runs, shards and refusals.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

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

// result key -> how often it occurs; also checks the file's shape (one context line first,
// every line complete JSON).
std::map<std::string, int> result_counts(const std::string& path) {
  std::map<std::string, int> counts;
  const auto lines = test::lines_of(test::read_text(path));
  EXPECT_FALSE(lines.empty()) << path;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const json j = json::parse(lines[i]);
    if (i == 0) {
      EXPECT_TRUE(j.contains("context")) << "first line of " << path << " is the context";
      continue;
    }
    EXPECT_FALSE(j.contains("context")) << "a second context line at " << i;
    ++counts[result_key(j.at("row_key").get<std::string>(), j.at("algorithm").get<std::string>())];
    EXPECT_EQ(j.at("status"), "ok") << lines[i];
  }
  const std::string text = test::read_text(path);
  EXPECT_TRUE(!text.empty() && text.back() == '\n') << "ends with a complete line";
  return counts;
}

std::size_t count_lines(const std::string& path) { return test::lines_of(test::read_text(path)).size(); }

TEST(SweepCli, KilledMidwayAndResumedEqualsAnUninterruptedSweep) {
  test::TempDir dir;
  const std::string whole = dir.file("whole.jsonl"), killed = dir.file("killed.jsonl");
  const auto full = run_command(exe() + " sweep --spec " + kSmoke + " -o " + whole);
  ASSERT_EQ(full.exit_code, 0) << full.output;
  const auto expected = result_counts(whole);
  ASSERT_EQ(expected.size(), 24u);  // 12 rows x 2 algorithms
  for (const auto& [key, n] : expected) EXPECT_EQ(n, 1) << key;

  // Start the same sweep and SIGKILL it once a few results are on disk.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string e = exe();
    if (FILE* quiet = freopen("/dev/null", "w", stderr)) (void)quiet;  // its progress lines
    execl(e.c_str(), e.c_str(), "sweep", "--spec", kSmoke.c_str(), "-o", killed.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool exited_early = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count_lines(killed) < 1 + 5 && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited_early = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!exited_early) {
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status));
  }
  ASSERT_FALSE(exited_early) << "the smoke sweep finished before it could be killed";
  const std::size_t before = count_lines(killed) - 1;
  EXPECT_LT(before, expected.size()) << "killed midway";
  // A torn line, as if the kill had hit a write: resume must cut it off and rerun its row.
  {
    const std::string text = test::read_text(killed);
    test::write_text(killed, text + R"({"algorithm": "cpu-std-sort", "row_key": "n=16)");
  }

  const auto refused = run_command(exe() + " sweep --spec " + kSmoke + " -o " + killed);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--resume"), std::string::npos) << refused.output;

  const auto resumed = run_command(exe() + " sweep --spec " + kSmoke + " -o " + killed + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(std::to_string(expected.size() - before) + " ok)"), std::string::npos)
      << "reruns exactly the missing results, the torn one included: " << resumed.output;
  EXPECT_NE(resumed.output.find("partial last line"), std::string::npos) << resumed.output;
  EXPECT_EQ(result_counts(killed), expected);

  // Resuming a complete sweep runs nothing.
  const auto again = run_command(exe() + " sweep --spec " + kSmoke + " -o " + killed + " --resume");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("complete, 0 results written now (none)"), std::string::npos) << again.output;
  EXPECT_EQ(result_counts(killed), expected);
}

TEST(SweepCli, ShardsTogetherHoldTheWholeSweep) {
  test::TempDir dir;
  std::map<std::string, int> merged;
  for (int i = 0; i < 3; ++i) {
    const std::string out = dir.file("shard" + std::to_string(i) + ".jsonl");
    const auto r = run_command(exe() + " sweep --spec " + kSmoke + " --shard " + std::to_string(i) + "/3 -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("[1/8]"), std::string::npos) << "one progress line per result: " << r.output;
    for (const auto& [k, n] : result_counts(out)) merged[k] += n;
  }
  EXPECT_EQ(merged.size(), 24u);
  for (const auto& [k, n] : merged) EXPECT_EQ(n, 1) << k;
}

TEST(SweepCli, DryRunListsTheRowsAndAnEstimate) {
  const auto r = run_command(exe() + " sweep --spec " + kSmoke + " --dry-run --shard 1/2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("12 rows, shard 1/2 runs 6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("n=65536 delta=1 min_val=0 dist=uniform key=u32 payload=none seed=1"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("12 results to run; estimated time"), std::string::npos) << r.output;
}

TEST(SweepCli, SpecErrorsExitWithTheUsageCode) {
  test::TempDir dir;
  const std::string spec = dir.file("bad.json");
  test::write_text(spec, R"({"backend": "cpu", "algorithms": ["cpu-std-sort"], "axes": [{"name": "n", "values": []}]})");
  const auto r = run_command(exe() + " sweep --spec " + spec + " -o " + dir.file("o.jsonl"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(spec + ": axes[0] (n): the axis has no values"), std::string::npos) << r.output;
  // --resume refuses the output of another spec.
  const std::string other = dir.file("other.json");
  test::write_text(other, R"({"name": "other", "backend": "cpu", "algorithms": ["cpu-std-sort"],
                              "axes": [{"name": "n", "values": [1024]}]})");
  ASSERT_EQ(run_command(exe() + " sweep --spec " + other + " -o " + dir.file("other.jsonl")).exit_code, 0);
  const auto mixed = run_command(exe() + " sweep --spec " + kSmoke + " -o " + dir.file("other.jsonl") + " --resume");
  EXPECT_EQ(mixed.exit_code, 2) << mixed.output;
  EXPECT_NE(mixed.output.find("holds the sweep 'other', not 'smoke'"), std::string::npos) << mixed.output;
  const auto missing = run_command(exe() + " sweep --spec " + dir.file("none.json") + " --dry-run");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

}  // namespace
}  // namespace sb
