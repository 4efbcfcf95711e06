// dist-sample-sort's partition-first exchange (issue 38, item 6) on two GPUs, through the real
// executable with --param exchange=partition: the GPU test matrix's key types and
// distributions, all keys equal, n < G, and an input past the small-input capacity (2^25 keys)
// so the sampling margin is what holds the received keys. Every row verified by the harness
// (slices sorted, in order across ranks, fingerprints equal). Float keys with -0.0, +0.0 and
// infinities (--dist real) check that splitters, sorts and merge share one order. Label gpu-multi; the executable's
// main() (dist_gpu_test.cpp) skips without two GPUs.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu_multi/expect_rows.hpp"
#include "support/command.hpp"

namespace sb::test {
namespace {

nlohmann::json run_partition(const std::string& args) {
  TempDir dir;
  const std::string json = dir.file("out.json");
  const CommandResult r = run_command(exe() + " run" + gpus_option() + "--reps 2 --budget 0 --quiet --json " + json +
                                          " --algo dist-sample-sort --param exchange=partition " + args,
                                      true);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(read_text(json));
}

// Every row verified, run by the partition exchange, with its three phases on both ranks.
void expect_partition_rows_ok(const nlohmann::json& doc, const std::string& what) {
  ASSERT_TRUE(doc.contains("results")) << what;
  ASSERT_FALSE(doc["results"].empty()) << what;
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["status"], "ok") << what << ": " << row.dump();
    EXPECT_EQ(row["verification"], "passed") << what << ": " << row.dump();
    const auto& d = row["details"];
    EXPECT_EQ(d.value("exchange", ""), "partition") << what << ": " << row.dump();
    for (const char* phase : {"rank0_local_ms", "rank1_exchange_ms", "rank1_merge_ms"})
      EXPECT_TRUE(d.contains(phase)) << what << ": " << phase;
  }
}

TEST(DistPartitionGpu, KeyTypesAndDistributions) {
  for (const char* args : {"-n 1000003 --dist uniform", "-n 1000003 --dist zipf", "-n 777777 --key f64",
                           "-n 777777 --key f32 --dist real", "-n 2^20 --key u64",
                           "-n 777777 --key i32 --delta 8 --min-val -3000"})
    expect_partition_rows_ok(run_partition(args), args);
}

TEST(DistPartitionGpu, PastTheSmallInputCapacity) {
  // n > 2^24: capacity is the slice plus the sampling margin, not n.
  expect_partition_rows_ok(run_partition("-n 2^25"), "2^25 uniform u32");
  expect_partition_rows_ok(run_partition("-n 2^25 --key u64 --dist zipf"), "2^25 zipf u64");
}

TEST(DistPartitionGpu, TinyInputs) {
  for (const char* n : {"1", "2", "3"}) expect_partition_rows_ok(run_partition(std::string("-n ") + n), n);
}

TEST(DistPartitionGpu, AllKeysEqualSplitEvenly) {
  // Ties broken by (rank, index in the slice): without it one rank would receive every key.
  for (const char* n : {"1000001", "2^25"}) {
    const auto doc = run_partition(std::string("--len 1 -n ") + n);
    expect_partition_rows_ok(doc, std::string("all keys equal, n = ") + n);
    for (const auto& row : doc["results"])
      EXPECT_LT(std::stod(row["details"].value("imbalance", "9")), 1.01) << row.dump();
  }
}

TEST(DistPartitionGpu, UnknownExchangeIsAUsageError) {
  const CommandResult r = run_command(
      exe() + " run" + gpus_option() + "--reps 1 --quiet --algo dist-sample-sort --param exchange=both -n 1000", true);
  EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
  EXPECT_NE(r.err.find("exchange=both"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sb::test
