// The command line on a GPU machine: a run that verifies, and an input too large for the GPU.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

int run(const std::string& args, std::string& err) {
  const std::string cmd = std::string(SORTBENCH_EXE) + " " + args + " 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  err.clear();
  while (std::fgets(buf.data(), buf.size(), p)) err += buf.data();
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
