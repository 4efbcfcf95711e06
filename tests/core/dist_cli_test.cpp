// The distributed options as a user meets them without a GPU: wrong combinations are one-line
// usage errors (exit 2) before any device is touched; `list` names the distributed family or
// says in one line why it was not built.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "support/command.hpp"

namespace {

using sb::test::CommandResult;

CommandResult run(const std::string& args) {
  return sb::test::run_command(sb::test::exe() + " " + args, /*split_stderr=*/true);
}

void expect_usage_error(const std::string& args, const std::string& mention) {
  const CommandResult r = run(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": one line expected, got:\n" << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << args << ": '" << mention << "' not in: " << r.err;
  EXPECT_TRUE(r.output.empty()) << args << ": no output expected, got:\n" << r.output;
}

TEST(DistCli, ListNamesTheFamilyOrWhyItIsMissing) {
  const CommandResult r = run("list");
  ASSERT_EQ(r.exit_code, 0);
  const bool built = r.output.find("dist-hp") != std::string::npos &&
                     r.output.find("dist-sample-sort") != std::string::npos;
  const bool noted = r.output.find("distributed: not built") != std::string::npos &&
                     r.output.find("pip install nvidia-nccl-cu13") != std::string::npos;
  EXPECT_NE(built, noted) << r.output;
}

TEST(DistCli, ProcessOptionsGoTogether) {
  sb::test::TempDir dir;
  expect_usage_error("run --algo cub-radix --rank 0", "--rank, --world and --rendezvous go together");
  expect_usage_error("run --algo cub-radix --world 2 --rendezvous " + dir.path(), "go together");
  expect_usage_error("run --algo cub-radix --rank 2 --world 2 --rendezvous " + dir.path(), "--rank 2 is not below --world 2");
  expect_usage_error("run --algo cub-radix --rank 0 --world 2 --rendezvous " + dir.file("missing"), "is not a directory");
}

// Issue 47 item 3: with --backend cpu the rank options were ignored and the run exited 0.
TEST(DistCli, RankOptionsWithTheCpuBackendAreRefused) {
  sb::test::TempDir dir;
  expect_usage_error("run --backend cpu --algo cpu-std-sort -n 1000 --rank 0 --world 2 --rendezvous " + dir.path(),
                     "--rank places work on a GPU but --backend cpu uses none; drop --rank");
  expect_usage_error("run --backend cpu --algo cpu-std-sort -n 1000 --world 2", "--world");
  sb::test::write_text(dir.file("in.txt"), "3\n1\n2\n");
  expect_usage_error("sort --backend cpu " + dir.file("in.txt") + " -o " + dir.file("out.txt") +
                         " --rank 0 --world 2 --rendezvous " + dir.path(),
                     "--backend cpu");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.txt")));
}

TEST(DistCli, GpusAndDevicesExcludeEachOther) {
  expect_usage_error("run --algo cub-radix --gpus 2 --devices 0,1", "--devices");
  expect_usage_error("run --algo cub-radix --gpus 0", "--gpus");
}

// Issue 38: sort takes the same rank options as run, checked before any GPU is touched.
TEST(DistCli, SortOnRanksRefusesWhatCannotGoTogether) {
  sb::test::TempDir dir;
  sb::test::write_text(dir.file("in.txt"), "3\n1\n2\n");
  const std::string sort = "sort " + dir.file("in.txt") + " -o " + dir.file("out.txt");
  expect_usage_error(sort + " --gpus 2 --devices 0,1", "--devices");
  expect_usage_error(sort + " --gpus 2 --rank 0 --world 2 --rendezvous " + dir.path(), "--rank");
  expect_usage_error(sort + " --rank 0", "--rank, --world and --rendezvous go together");
  expect_usage_error(sort + " --rank 2 --world 2 --rendezvous " + dir.path(), "--rank 2 is not below --world 2");
  expect_usage_error(sort + " --backend cpu --gpus 2", "--gpus places work on a GPU but --backend cpu");
  expect_usage_error(sort + " --gpus 2 --gpu-memory-limit 4G", "ranks hold their shards whole");
  const sb::test::CommandResult list = run("list");
  if (list.output.find("dist-sample-sort") != std::string::npos) {
    expect_usage_error(sort + " --gpus 2 --algo cub-radix", "--algo cub-radix sorts on one GPU");
    expect_usage_error(sort + " --gpus 2 --algo cub-radix", "dist-sample-sort");
  } else {
    expect_usage_error(sort + " --gpus 2", "this build has no NCCL");
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.txt"))) << "no output from a refused sort";
}

}  // namespace
