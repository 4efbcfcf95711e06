// Distributed sorts on two GPUs (issue 15), through the real executable: every distributed
// algorithm on G = 2 for the GPU test matrix's distributions, sizes not divisible by G, n < G,
// all keys equal, and a rank that runs out of memory. Label gpu-multi; main() exits 77
// (skipped) with the reason when fewer than two GPUs answer.
#include <cuda_runtime_api.h>

#include <iostream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/command.hpp"

namespace sb::test {
namespace {

// Runs sortbench run on 2 GPUs with `args` and returns the JSON document.
nlohmann::json run_two(const std::string& args, int expect_exit = 0) {
  TempDir dir;
  const std::string json = dir.file("out.json");
  const CommandResult r =
      run_command(exe() + " run --gpus 2 --reps 2 --budget 0 --quiet --json " + json + " " + args, true);
  EXPECT_EQ(r.exit_code, expect_exit) << args << "\n" << r.output << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(read_text(json));
}

void expect_all_ok(const nlohmann::json& doc, const std::string& what) {
  ASSERT_TRUE(doc.contains("results")) << what;
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["status"], "ok") << what << ": " << row.dump();
    EXPECT_EQ(row["verification"], "passed") << what << ": " << row.dump();
  }
}

TEST(DistGpu, EveryDistributionOnTwoRanks) {
  for (const char* dist : {"uniform", "zipf"}) {
    const std::string args = std::string("--algo dist-hp,dist-sample-sort -n 1000003 --delta 4 --sigma 2 --dist ") + dist;
    expect_all_ok(run_two(args), args);
  }
  expect_all_ok(run_two("--algo dist-sample-sort -n 2^20 --key u64"), "u64 keys");
  expect_all_ok(run_two("--algo dist-sample-sort -n 777777 --key f32"), "f32 keys");
  expect_all_ok(run_two("--algo dist-hp,dist-sample-sort -n 777777 --key i32 --delta 8 --min-val -3000"), "i32");
}

TEST(DistGpu, TinyAndEqualInputs) {
  for (const char* n : {"1", "3"})
    expect_all_ok(run_two(std::string("--algo dist-hp,dist-sample-sort -n ") + n), std::string("n = ") + n);
  // All keys equal: a sample sort without tie-breaking would send every key to one rank.
  const auto doc = run_two("--algo dist-hp,dist-sample-sort -n 1000001 --len 1");
  expect_all_ok(doc, "all keys equal");
  for (const auto& row : doc["results"])
    for (const auto& d : row["details"].items())
      if (d.key() == "imbalance") EXPECT_LT(std::stod(d.value().get<std::string>()), 1.01) << row.dump();
}

TEST(DistGpu, SpeedupsAgainstTheSingleGpuReferences) {
  const auto doc = run_two("--algo cub-radix,dist-hp -n 2^24 --delta 50 --sigma 50");
  expect_all_ok(doc, "speed-up");
  bool found = false;
  for (const auto& row : doc["results"])
    if (row["algorithm"] == "dist-hp") found = row["details"].contains("speedup_vs_cub-radix");
  EXPECT_TRUE(found) << doc.dump();
}

TEST(DistGpu, RankOutOfMemoryStopsEveryRank) {
  // 2^36 u64 keys: 256 GiB per rank's slice; the single-GPU rows cannot hold it either.
  TempDir dir;
  const CommandResult r =
      run_command(exe() + " run --gpus 2 --algo dist-sample-sort -n 2^36 --key u64 --reps 1 --quiet", true);
  EXPECT_EQ(r.exit_code, 4) << r.output << r.err;
  EXPECT_NE(r.err.find("rank "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("free"), std::string::npos) << r.err;
  EXPECT_EQ(r.output.find("dist-sample-sort"), std::string::npos) << "no partial table: " << r.output;
}

// The same ranks as two processes (one per GPU) meeting in a shared directory: both print
// the same verified row.
TEST(DistGpu, TwoProcessesMeetThroughTheRendezvous) {
  TempDir dir;
  const std::string meet = dir.file("meet");
  ASSERT_EQ(run_command("mkdir " + meet).exit_code, 0);
  const std::string common = " run --algo dist-hp,dist-sample-sort -n 1000003 --delta 4 --reps 2 --budget 0 --quiet "
                             "--world 2 --rendezvous " + meet;
  const CommandResult r = run_command(exe() + common + " --rank 1 --device 1 --json " + dir.file("r1.json") + " > " +
                                      dir.file("r1.txt") + " 2>&1 & " + exe() + common + " --rank 0 --device 0 --json " +
                                      dir.file("r0.json") + "; e=$?; wait $! || e=$?; exit $e");
  ASSERT_EQ(r.exit_code, 0) << r.output << read_text(dir.file("r1.txt"));
  const auto r0 = nlohmann::json::parse(read_text(dir.file("r0.json")));
  const auto r1 = nlohmann::json::parse(read_text(dir.file("r1.json")));
  expect_all_ok(r0, "rank 0");
  expect_all_ok(r1, "rank 1");
  // The samples are agreed by an all-reduce: both processes report the same times.
  EXPECT_EQ(r0["results"][0]["time_ms"]["median"], r1["results"][0]["time_ms"]["median"]);
}

// A rank that never starts: the other stops at the rendezvous timeout with a one-line error
// naming the missing rank, instead of waiting forever.
TEST(DistGpu, MissingRankTimesOut) {
  TempDir dir;
  const CommandResult r = run_command("SORTBENCH_RENDEZVOUS_TIMEOUT=5 " + exe() +
                                          " run --algo dist-hp -n 1000 --rank 0 --world 2 --rendezvous " + dir.path(),
                                      true);
  EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
  EXPECT_NE(r.err.find("rank 1 is not ready"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sb::test

int main(int argc, char** argv) {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  if (gpus < 2) {
    std::cout << "SKIPPED: the distributed tests need 2 GPUs; this machine has " << gpus << "\n";
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
