// Inputs larger than the GPU (issue 37), made so with a small --gpu-memory-limit: the streamed
// placement, ooc-hp and ooc-sort over many chunks (runs of equal keys and equal-key pairs
// across chunk and bucket edges, every scalar key type, payloads and their stability), in-core
// and CPU algorithms on the same host-resident input, and `sort` of a file streamed from the
// file to the output file.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/command.hpp"

namespace {

using sb::test::CommandResult;
using sb::test::TempDir;
using sb::test::sortbench;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

nlohmann::json rows_of(const std::string& json) { return read_json(json)["results"]; }

const nlohmann::json* row_named(const nlohmann::json& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r["algorithm"] == name) return &r;
  return nullptr;
}

// The streamed placement's case of the quick tier (gpu-quick: the suite's name ends in Quick).
TEST(OutOfCoreQuick, RunStreamsAnInputPastTheLimitThroughEveryKindOfAlgorithm) {
  TempDir dir;
  const std::string json = dir.file("r.json");
  const CommandResult r =
      sortbench("run -n 2^24 --delta 50 --sigma 50 --gpu-memory-limit 48M --reps 2 --warmup 0 --budget 0 "
                "--algo ooc-hp,ooc-sort,cub-radix-bits,cpu-parallel-sort --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("streams through the GPU"), std::string::npos) << r.err;
  const auto rows = rows_of(json);
  for (const char* name : {"ooc-hp", "ooc-sort", "cpu-parallel-sort"}) {
    const auto* row = row_named(rows, name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_EQ((*row)["status"], "ok") << name << ": " << row->dump();
    EXPECT_EQ((*row)["verification"], "passed") << name;
    EXPECT_EQ((*row)["details"]["placement"], "host") << name;
  }
  const auto& hp = *row_named(rows, "ooc-hp");
  EXPECT_GT(std::stoull(hp["details"]["chunks"].get<std::string>()), 4u);
  EXPECT_EQ(hp["details"]["bytes_over_link"], std::to_string(2ull * (1ull << 24) * 4));
  EXPECT_TRUE(hp["details"].contains("link_limit_ms"));
  EXPECT_GT(std::stoull(row_named(rows, "ooc-sort")->at("details")["runs"].get<std::string>()), 1u);
  // Its input, a work copy and its workspace do not fit in 48 MiB: it says so.
  EXPECT_EQ((*row_named(rows, "cub-radix-bits"))["status"], "unsupported");
  const auto doc = read_json(json);
  EXPECT_GT(doc["context"]["link_h2d_gbs"].get<double>(), 0.0);
}

TEST(OutOfCore, InCoreAlgorithmsOnAHostPlacementCopyInSortAndCopyOut) {
  TempDir dir;
  const std::string json = dir.file("r.json");
  const CommandResult r = sortbench("run -n 2^22 --placement host --reps 2 --warmup 0 --budget 0 "
                                    "--algo ooc-hp,hp-auto,cub-radix-bits --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : rows_of(json)) {
    EXPECT_EQ(row["verification"], "passed") << row["algorithm"];
    EXPECT_EQ(row["details"]["bytes_over_link"], std::to_string(2ull * (1ull << 22) * 4)) << row["algorithm"];
  }
}

TEST(OutOfCore, RunMergeSortTakesEveryKeyTypeAndPayloadStably) {
  TempDir dir;
  for (const char* key : {"u32", "i32", "f32", "u64", "i64", "f64"}) {
    for (const char* payload : {"none", "index", "u64"}) {
      const std::string json = dir.file("r.json");
      const CommandResult r = sortbench(std::string("run -n 3000001 --delta 20 --key ") + key + " --payload " + payload +
                                        " --gpu-memory-limit 40M --placement host --reps 1 --warmup 0 --budget 0 "
                                        "--algo ooc-sort --quiet --json " + json);
      ASSERT_EQ(r.exit_code, 0) << key << " " << payload << ": " << r.err;
      const auto rows = rows_of(json);
      const auto& row = rows[0];
      EXPECT_EQ(row["verification"], "passed") << key << " " << payload << ": " << row.dump();
      EXPECT_GT(std::stoull(row["details"]["runs"].get<std::string>()), 1u) << key << " " << payload;
    }
  }
}

TEST(OutOfCore, EqualKeysAndTheRangesEndsAcrossChunks) {
  TempDir dir;
  for (const std::string args : {"--dist equal", "--key u64 --len 2 --delta 0.000001", "--key i64 --min-val -5000000 --delta 3",
                                 "--key u64 --dist entropy --entropy 0.201", "-n 1 --len 1", "--key u64 --dist zipf"}) {
    const std::string json = dir.file("r.json");
    const std::string n = args.find("-n ") == std::string::npos ? "-n 2000003 " : "";
    const CommandResult r = sortbench("run " + n + args + " --gpu-memory-limit 24M --placement host --reps 1 "
                                      "--warmup 0 --budget 0 --algo ooc-hp,ooc-sort --range measured --quiet --json " + json);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
    for (const auto& row : rows_of(json)) {
      if (row["status"] == "unsupported") continue;  // ooc-hp: a histogram past what 24 MiB holds
      EXPECT_EQ(row["verification"], "passed") << args << " " << row.dump();
    }
  }
}

TEST(OutOfCore, SortStreamsAFileLargerThanTheLimitFromFileToFile) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen -n 6M --key u64 --delta 50 --sigma 50 -o " + dir.file("k.npy")).exit_code, 0);
  const CommandResult s = sortbench("sort " + dir.file("k.npy") + " -o " + dir.file("gpu.npy") +
                                    " --gpu-memory-limit 16M --json " + dir.file("s.json"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const auto doc = read_json(dir.file("s.json"));
  EXPECT_EQ(doc["sort"]["algorithm"], "ooc-hp");
  EXPECT_EQ(doc["sort"]["placement"], "file");
  EXPECT_GT(doc["sort"]["memory"]["host_peak_bytes"].get<std::uint64_t>(), 0u);
  ASSERT_EQ(sortbench("sort --quiet --backend cpu " + dir.file("k.npy") + " -o " + dir.file("cpu.npy")).exit_code, 0);
  EXPECT_EQ(sb::test::read_text(dir.file("gpu.npy")), sb::test::read_text(dir.file("cpu.npy")));
  // Positions ride along: the run-merge sort, read from the file once, its runs in host memory.
  const CommandResult a = sortbench("sort --argsort " + dir.file("k.npy") + " -o " + dir.file("arg.npy") +
                                    " --gpu-memory-limit 16M --json " + dir.file("a.json"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  std::ifstream ain(dir.file("a.json"));
  const auto adoc = nlohmann::json::parse(ain);
  EXPECT_EQ(adoc["sort"]["algorithm"], "ooc-sort");
  EXPECT_EQ(adoc["sort"]["placement"], "file");
  EXPECT_EQ(adoc["sort"]["memory"]["runs_in"], "memory");
  EXPECT_EQ(adoc["sort"]["memory"]["tmp_bytes"], 0);
  ASSERT_EQ(sortbench("sort --quiet --argsort --backend cpu " + dir.file("k.npy") + " -o " + dir.file("carg.npy")).exit_code, 0);
  EXPECT_EQ(sb::test::read_text(dir.file("arg.npy")), sb::test::read_text(dir.file("carg.npy")));
}

// Issue 52: past --host-memory-limit the external sort keeps its runs in --tmp-dir, and leaves
// none there; keys with values and positions both keep equal keys in input order.
TEST(OutOfCore, SortPastTheHostLimitKeepsItsRunsOnDiskAndLeavesNone) {
  TempDir dir;
  const std::string runs = dir.file("runs");
  ASSERT_EQ(sortbench("gen -n 3M --key f64 --dist real --min-val 0 --max-val 1000 -o " + dir.file("k.npy")).exit_code, 0);
  ASSERT_EQ(sortbench("gen -n 3M --key u32 --delta 1 --sigma 1 -o " + dir.file("v.npy")).exit_code, 0);
  ASSERT_EQ(sb::test::run_command("mkdir " + runs).exit_code, 0);
  const std::string limits = " --gpu-memory-limit 16M --host-memory-limit 1M --tmp-dir " + runs;
  const CommandResult s = sortbench("sort --algo ooc-sort " + dir.file("k.npy") + " -o " + dir.file("gpu.npy") + limits +
                                    " --values " + dir.file("v.npy") + " --values-out " + dir.file("gv.npy") +
                                    " --json " + dir.file("s.json"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const auto doc = read_json(dir.file("s.json"));
  EXPECT_EQ(doc["sort"]["placement"], "file");
  EXPECT_EQ(doc["sort"]["memory"]["runs_in"], "files");
  EXPECT_EQ(doc["sort"]["memory"]["tmp_bytes"], 3u * 1024 * 1024 * 12);
  EXPECT_EQ(doc["sort"]["host_memory_limit_bytes"], 1024 * 1024);
  EXPECT_EQ(sb::test::run_command("ls -A " + runs).output, "");
  ASSERT_EQ(sortbench("sort --quiet --backend cpu --algo cpu-stable-sort " + dir.file("k.npy") + " -o " +
                      dir.file("cpu.npy") + " --values " + dir.file("v.npy") + " --values-out " + dir.file("cv.npy"))
                .exit_code,
            0);
  EXPECT_EQ(sb::test::read_text(dir.file("gpu.npy")), sb::test::read_text(dir.file("cpu.npy")));
  EXPECT_EQ(sb::test::read_text(dir.file("gv.npy")), sb::test::read_text(dir.file("cv.npy")));
  const CommandResult a = sortbench("sort --quiet --argsort --algo ooc-sort " + dir.file("v.npy") + " -o " +
                                    dir.file("arg.npy") + limits);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(sortbench("sort --quiet --argsort --backend cpu " + dir.file("v.npy") + " -o " + dir.file("carg.npy")).exit_code, 0);
  EXPECT_EQ(sb::test::read_text(dir.file("arg.npy")), sb::test::read_text(dir.file("carg.npy")));
  EXPECT_EQ(sb::test::run_command("ls -A " + runs).output, "");
  const CommandResult bad = sortbench("sort " + dir.file("k.npy") + " -o " + dir.file("x.npy") +
                                      " --gpu-memory-limit 16M --tmp-dir " + dir.file("nowhere"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--tmp-dir"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::ifstream(dir.file("x.npy")).good());
}

// Issue 52: a file that streams to ooc-sort is read once (its facts and fingerprint taken as the
// runs go up), and each pass is a phase; one whose first keys leave ooc-hp possible is measured
// first, since ooc-hp's histogram needs the range before it reads a key.
TEST(OutOfCore, SortOfAStreamedFileReadsItOnceUnlessTheRangeComesFirst) {
  TempDir dir;
  auto phases_of = [&](const std::string& json) {
    const auto doc = read_json(json);
    std::string names;
    for (const auto& p : doc["sort"]["phases"]) names += p["phase"].get<std::string>() + " ";
    return std::make_pair(doc["sort"]["algorithm"].get<std::string>(), names);
  };
  ASSERT_EQ(sortbench("gen -n 3M --key i64 --min-val -4000000000 --max-val 4000000000 -o " +
                      dir.file("wide.npy")).exit_code, 0);
  const CommandResult wide = sortbench("sort --quiet " + dir.file("wide.npy") + " -o " + dir.file("w.npy") +
                                       " --gpu-memory-limit 16M --json " + dir.file("w.json"));
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_EQ(phases_of(dir.file("w.json")), std::make_pair(std::string("ooc-sort"), std::string("sample runs select buckets write ")));
  ASSERT_EQ(sortbench("sort --quiet --backend cpu " + dir.file("wide.npy") + " -o " + dir.file("wc.npy")).exit_code, 0);
  EXPECT_EQ(sb::test::read_text(dir.file("w.npy")), sb::test::read_text(dir.file("wc.npy")));

  ASSERT_EQ(sortbench("gen -n 3M --delta 50 --sigma 50 -o " + dir.file("narrow.npy")).exit_code, 0);
  const CommandResult narrow = sortbench("sort --quiet " + dir.file("narrow.npy") + " -o " + dir.file("n.npy") +
                                         " --gpu-memory-limit 16M --json " + dir.file("n.json"));
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_EQ(phases_of(dir.file("n.json")).first, "ooc-hp");
  EXPECT_EQ(phases_of(dir.file("n.json")).second.rfind("read ", 0), 0u) << phases_of(dir.file("n.json")).second;
  ASSERT_EQ(sortbench("sort --quiet --backend cpu " + dir.file("narrow.npy") + " -o " + dir.file("nc.npy")).exit_code, 0);
  EXPECT_EQ(sb::test::read_text(dir.file("n.npy")), sb::test::read_text(dir.file("nc.npy")));
}

// A file of exactly half the limit leaves no room for its sort beside its two copies: it streams
// (it exited 4 when the fit rule counted the copies alone).
TEST(OutOfCore, AFileOfHalfTheLimitStreamsSinceItsSortNeedsRoomBesideIt) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen -n 4M --key u64 --min-val 0 --max-val 2^64 -o " + dir.file("k.npy")).exit_code, 0);
  const CommandResult s = sortbench("sort --quiet " + dir.file("k.npy") + " -o " + dir.file("o.npy") +
                                    " --gpu-memory-limit 64M --json " + dir.file("s.json"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(read_json(dir.file("s.json"))["sort"]["placement"], "file");
}

TEST(OutOfCore, RunInputOfAFilePastTheLimitStreamsItFromTheFile) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen -n 4M --delta 50 --sigma 50 -o " + dir.file("k.npy")).exit_code, 0);
  const std::string json = dir.file("r.json");
  const CommandResult r = sortbench("run --input " + dir.file("k.npy") + " --gpu-memory-limit 24M --reps 1 "
                                    "--warmup 0 --budget 0 --algo ooc-hp,ooc-sort,cpu-parallel-sort --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : rows_of(json)) {
    EXPECT_EQ(row["verification"], "passed") << row.dump();
    EXPECT_EQ(row["range_mode"], "measured") << row["algorithm"];
    EXPECT_EQ(row["details"]["placement"], "host") << row["algorithm"];
  }
}

// Issue 52 item 1: a run whose input and output do not fit under --host-memory-limit streams from
// its source, each ooc-* row reading it in chunks once (ooc-sort's runs in --tmp-dir, none left),
// its result verified on the GPU and dropped; the other rows say why they cannot.
TEST(OutOfCore, RunPastTheHostLimitReadsItsSourceInChunksEachRow) {
  TempDir dir;
  const std::string runs = dir.file("runs");
  ASSERT_EQ(sb::test::run_command("mkdir " + runs).exit_code, 0);
  ASSERT_EQ(sortbench("gen -n 3M --delta 50 --sigma 50 -o " + dir.file("k.npy")).exit_code, 0);
  const std::string limits = " --placement host --gpu-memory-limit 16M --host-memory-limit 1M --tmp-dir " + runs;
  for (const std::string input : {"--input " + dir.file("k.npy"), std::string("-n 3M --key f64 --dist real")}) {
    const std::string json = dir.file("r.json");
    const CommandResult r = sortbench("run " + input + limits +
                                      " --reps 1 --warmup 0 --budget 0 --quiet --algo ooc-hp,ooc-sort,cpu-parallel-sort "
                                      "--json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rows = rows_of(json);
    const bool file = input.rfind("--input", 0) == 0;
    for (const char* name : {"ooc-hp", "ooc-sort"}) {
      const auto* row = row_named(rows, name);
      if (!file && std::string(name) == "ooc-hp") {
        EXPECT_EQ((*row)["status"], "unsupported") << row->dump();  // float keys
        continue;
      }
      EXPECT_EQ((*row)["verification"], "passed") << row->dump();
      EXPECT_EQ((*row)["details"]["placement"], file ? "file" : "generated") << row->dump();
    }
    EXPECT_EQ((*row_named(rows, "cpu-parallel-sort"))["status"], "unsupported");
    EXPECT_EQ(sb::test::run_command("ls -A " + runs).output, "");
  }
}

TEST(OutOfCore, ALimitBelowOneChunkIsAUsageErrorNamingTheMinimum) {
  const CommandResult r = sortbench("run -n 2^20 --gpu-memory-limit 1K --algo ooc-sort --reps 1 --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
  EXPECT_NE(r.err.find("raise it to at least"), std::string::npos) << r.err;
  EXPECT_EQ(sb::test::error_lines(r.err).size(), 1u) << r.err;
}

TEST(OutOfCore, InputsThatFitKeepTheirInCorePlacement) {
  TempDir dir;
  const std::string json = dir.file("r.json");
  ASSERT_EQ(sortbench("run -n 2^20 --algo hp-auto,ooc-hp --reps 2 --quiet --json " + json).exit_code, 0);
  const auto rows = rows_of(json);
  EXPECT_FALSE(row_named(rows, "hp-auto")->at("details").contains("placement"));
  EXPECT_EQ((*row_named(rows, "ooc-hp"))["status"], "unsupported");  // the input is on the GPU
}

}  // namespace
