// The command line on a GPU machine: a run that verifies, and an input too large for the GPU.
#include <gtest/gtest.h>

#include <string>

#include "support/command.hpp"

namespace {

// Exit code of a sortbench command line; err gets what it printed on stderr.
int run(const std::string& args, std::string& err) {
  const sb::test::CommandResult r =
      sb::test::run_command(sb::test::exe() + " " + args + " >/dev/null", /*split_stderr=*/true);
  err = r.err;
  return r.exit_code;
}

TEST(CliGpu, DefaultRunOfCubRadixVerifies) {
  std::string err;
  EXPECT_EQ(run("run --algo cub-radix --quiet", err), 0) << err;
}

TEST(CliGpu, InputLargerThanTheGpuIsExitCode4WithBytes) {
  std::string err;
  EXPECT_EQ(run("run -n 2^35 --delta 64 --algo cub-radix --quiet", err), 4) << err;
  EXPECT_NE(err.find("GiB"), std::string::npos) << err;
  EXPECT_NE(err.find("free"), std::string::npos) << err;
  EXPECT_NE(err.find("lower -n"), std::string::npos) << err;
}

}  // namespace
