// main() of the GPU test executables (tests/gpu: one GPU; tests/gpu_multi: SORTBENCH_TEST_GPUS = 2, or
// SORTBENCH_TEST_RANKS where ctest runs them at every GPU of the machine).
// - Listing (--gtest_list_tests) needs no GPU: ctest discovers the tests on any machine.
// - Under ctest with a resource spec (scripts/gpu-resources.sh), the GPUs ctest allocated to this
//   test (CTEST_RESOURCE_GROUP_<i>_GPUS = "id:3,slots:1") become the process's CUDA devices 0, 1,
//   ..., before CUDA starts, so tests and the sortbench processes they start use only those.
// - Without a CUDA device, or with fewer than the tests need, it says so and exits 77, which
//   ctest reports as skipped (SKIP_RETURN_CODE), so CI on a machine without a GPU stays green.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <cuda_runtime_api.h>

#include "sortbench/device/device_info.hpp"
#include "support/gpu_resources.hpp"

#ifndef SORTBENCH_TEST_GPUS
#define SORTBENCH_TEST_GPUS 1
#endif

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strcmp(argv[i], "--gtest_list_tests") == 0;
  testing::InitGoogleTest(&argc, argv);
  if (listing) return RUN_ALL_TESTS();
  try {
    if (const auto devices = sb::test::ctest_allocated_gpus(); !devices.empty()) {
      setenv("CUDA_VISIBLE_DEVICES", devices.c_str(), 1);
      std::cout << "GPUs of this test (ctest's resource allocation): CUDA_VISIBLE_DEVICES=" << devices << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "ctest's resource allocation: " << e.what() << "\n";
    return 1;
  }
  // Each test is a process of its own: load only the kernels it launches (CUDA's lazy loading,
  // unless the caller chose otherwise), not the whole registry's.
  setenv("CUDA_MODULE_LOADING", "LAZY", 0);
  // And starts a CUDA context of its own, which the driver creates one at a time for the whole
  // machine: on 2 x H200, 16 tests' contexts took 3.7-5.4 s with the default 8 hardware queues
  // each, 1.65 s with one. No test needs two kernels of one process to run at once (their
  // streams' order is kept either way), so one queue, unless the caller chose otherwise; the
  // sortbench processes that tests start inherit it.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
  const char* trace = std::getenv("SORTBENCH_TEST_TRACE");
  const bool tracing = trace && *trace && std::strcmp(trace, "0") != 0;
  auto start = std::chrono::steady_clock::now();
  // Where a test's time goes (support/sortbench_test.hpp): the driver's and the context's start first.
  auto say = [&](const char* what) {
    if (!tracing) return;
    const auto now = std::chrono::steady_clock::now();
    std::printf("[trace] %9.2f ms  %s\n", std::chrono::duration<double, std::milli>(now - start).count(), what);
    start = now;
  };
  if (auto why = sb::cuda_unavailable_reason()) {
    std::cout << "SKIPPED: GPU tests need a CUDA device: " << *why << "\n";
    return 77;
  }
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  // The gpu-multi suite's run at every GPU of the machine asks for that many (SORTBENCH_TEST_RANKS).
  const char* ranks = std::getenv("SORTBENCH_TEST_RANKS");
  const int needed = std::max(SORTBENCH_TEST_GPUS, ranks && *ranks ? std::atoi(ranks) : 0);
  if (gpus < needed) {
    std::cout << "SKIPPED: these tests need " << needed << " GPUs; this process sees " << gpus << "\n";
    return 77;
  }
  say("CUDA driver started");
  if (tracing) {
    (void)cudaFree(nullptr);
    say("CUDA context started");
  }
  const int status = RUN_ALL_TESTS();
  say("tests ran");
  return status;
}
