// main() of the GPU test executable: without a CUDA device it says so and exits 77, which
// CTest reports as skipped (SKIP_RETURN_CODE), so CI on a machine without a GPU stays green.
#include <gtest/gtest.h>

#include <iostream>

#include "sortbench/measure/device_info.hpp"

int main(int argc, char** argv) {
  if (auto why = sb::cuda_unavailable_reason()) {
    std::cout << "SKIPPED: GPU tests need a CUDA device: " << *why << "\n";
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
