// Messages a user sees name the problem and the fix, not a source file (issue 16's error
// part): a wrong --device, and CUDA failures, whose location only --verbose adds.
#include <gtest/gtest.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/device/device_info.hpp"
#include "support/command.hpp"

namespace sb {
namespace {

TEST(Errors, AWrongDeviceNamesTheGpusThereAre) {
  EXPECT_EQ(invalid_device_message(7, {"NVIDIA H200"}),
            "--device 7: this machine has 1 GPU (0: NVIDIA H200); give --device 0");
  EXPECT_EQ(invalid_device_message(-1, {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}),
            "--device -1: this machine has 2 GPUs (0: NVIDIA H200, 1: NVIDIA H100 80GB HBM3); give --device 0 to 1");
}

std::string cuda_error_text(const char* file) {
  try {
    throw_cuda_error(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)", file, 42);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::cuda);
    return e.what();
  }
  return {};
}

TEST(Errors, CudaFailuresNameTheCallAndTheErrorButNoSourcePath) {
  const std::string plain = cuda_error_text("/build/path/lib/sortbench/timing/harness_device.cu");
  EXPECT_NE(plain.find("cudaErrorInvalidValue"), std::string::npos) << plain;
  EXPECT_NE(plain.find("cudaMemcpy"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("harness_device.cu"), std::string::npos) << plain;
  set_error_locations(true);
  const std::string verbose = cuda_error_text("/build/path/lib/sortbench/timing/harness_device.cu");
  set_error_locations(false);
  EXPECT_NE(verbose.find("harness_device.cu:42"), std::string::npos) << verbose;
}

// Issue 48: a test (or a run) whose GPU runs out of memory says how much it asked for.
TEST(Errors, AFailedDeviceAllocationNamesTheBytesAndIsExitFour) {
  try {
    throw_device_allocation_error(cudaErrorMemoryAllocation, std::size_t{12} << 30, "/build/path/x.hpp", 7);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::device_memory);
    const std::string m = e.what();
    EXPECT_NE(m.find("could not allocate 12.0 GiB (12884901888 bytes)"), std::string::npos) << m;
    EXPECT_NE(m.find("are free"), std::string::npos) << m;
    EXPECT_EQ(m.find("x.hpp"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  // Anything but out of memory stays a CUDA error naming the call.
  try {
    throw_device_allocation_error(cudaErrorInvalidValue, 64, "x.hpp", 7);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::cuda);
    EXPECT_NE(std::string(e.what()).find("cudaMalloc"), std::string::npos) << e.what();
  }
}

TEST(Errors, VerboseIsAcceptedBeforeAndAfterTheSubcommand) {
  EXPECT_EQ(test::run_command(test::exe() + " --verbose list").exit_code, 0);
  EXPECT_EQ(test::run_command(test::exe() + " list --verbose").exit_code, 0);
  const auto unknown = test::run_command(test::exe() + " list --no-such-option", true);
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
}

}  // namespace
}  // namespace sb
