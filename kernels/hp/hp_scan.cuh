// Prefix sums for the H-P family: CUB DeviceScan::InclusiveSum, as the paper uses (section 5).
#pragma once

#include <cstdint>

#include <cub/device/device_scan.cuh>

#include "sortbench/core/cuda_check.hpp"

namespace sb::hp {

// Temporary bytes CUB needs for an inclusive sum of num 32-bit words.
inline std::size_t scan_temp_bytes(std::uint64_t num) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                              static_cast<std::uint32_t*>(nullptr), static_cast<std::int64_t>(num)));
  return bytes;
}

inline void inclusive_sum(void* temp, std::size_t temp_bytes, const std::uint32_t* in, std::uint32_t* out,
                          std::uint64_t num, cudaStream_t stream) {
  if (num == 0) return;
  SB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, static_cast<std::int64_t>(num), stream));
}

}  // namespace sb::hp
