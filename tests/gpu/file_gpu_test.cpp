// Your data on the GPU (issue #14): sort and run --input of a 2^28-key (1 GiB) .npy file,
// every phase reported, the output verified and equal to the CPU backend's; range discovery
// timed inside the measured rows.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/command.hpp"

namespace {

using sb::test::CommandResult;
using sb::test::TempDir;
using sb::test::sortbench;

TEST(FileGpu, SortsA2To28KeyFileAndReportsEachPhase) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen -n 2^28 --delta 4 -o " + dir.file("big.npy")).exit_code, 0);
  const CommandResult s = sortbench("sort " + dir.file("big.npy") + " -o " + dir.file("sorted.npy"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  // The download overlaps the write (part of it); verification ran on the GPU (an H200 holds a
  // copy of the input beside the sort's buffers).
  for (const char* phase : {"read", "host-to-device", "analyze", "sort", "verify", "write", "verified on the gpu"})
    EXPECT_NE(s.output.find(phase), std::string::npos) << phase << " not in:\n" << s.output;
  std::cout << s.output;
}

TEST(FileGpu, SortOutputEqualsTheCpuBackend) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen -n 1M --key i64 --min-val -1000 --delta 0.01 -o " + dir.file("k.npy")).exit_code, 0);
  for (const char* algo : {"auto", "cub-radix-bits", "cub-radix"}) {
    ASSERT_EQ(sortbench(std::string("sort --quiet --algo ") + algo + " " + dir.file("k.npy") + " -o " +
                        dir.file("gpu.npy"))
                  .exit_code,
              0)
        << algo;
    ASSERT_EQ(sortbench("sort --quiet --backend cpu " + dir.file("k.npy") + " -o " + dir.file("cpu.npy")).exit_code, 0);
    EXPECT_EQ(sb::test::read_text(dir.file("gpu.npy")), sb::test::read_text(dir.file("cpu.npy"))) << algo;
  }
  ASSERT_EQ(sortbench("sort --quiet --argsort " + dir.file("k.npy") + " -o " + dir.file("gpu_arg.npy")).exit_code, 0);
  ASSERT_EQ(
      sortbench("sort --quiet --argsort --backend cpu " + dir.file("k.npy") + " -o " + dir.file("cpu_arg.npy")).exit_code,
      0);
  EXPECT_EQ(sb::test::read_text(dir.file("gpu_arg.npy")), sb::test::read_text(dir.file("cpu_arg.npy")));
}

TEST(FileGpu, RunInputOfA2To28KeyFileDiscoversTheRangeInsideTheTimedRegion) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen -n 2^28 --delta 4 -o " + dir.file("big.npy")).exit_code, 0);
  const std::string json = dir.file("r.json");
  const CommandResult r = sortbench("run --input " + dir.file("big.npy") +
                                    " --algo cub-radix,cub-radix-bits,hp-auto --reps 3 --budget 0.5 --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.output.find("fastest: "), std::string::npos) << r.output;
  std::ifstream in(json);
  const auto doc = nlohmann::json::parse(in);
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["range_mode"], "measured");
    EXPECT_EQ(row["verification"], "passed") << row["algorithm"];
    const bool reads_facts = row["algorithm"] != "cub-radix";
    EXPECT_EQ(row["details"].contains("discovery_ms"), reads_facts) << row["algorithm"];
  }
}

TEST(FileGpu, MeasuredRangeIsNotFreeOnEqualKeys) {
  // The example: with a given range, equal keys cost cub-radix-bits nothing; measured,
  // it pays at least the pass that finds min and max.
  TempDir dir;
  for (const char* mode : {"given", "measured"}) {
    const std::string json = dir.file(std::string(mode) + ".json");
    const CommandResult r = sortbench(std::string("run -n 16777217 --dist equal --algo cub-radix-bits --reps 5 --range ") +
                                      mode + " --quiet --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::ifstream g(dir.file("given.json")), m(dir.file("measured.json"));
  const auto gd = nlohmann::json::parse(g), md = nlohmann::json::parse(m);
  const double given_ms = gd["results"][0]["time_ms"]["median"];
  const double measured_ms = md["results"][0]["time_ms"]["median"];
  EXPECT_GT(measured_ms, given_ms) << "discovery must cost something";
}

}  // namespace
