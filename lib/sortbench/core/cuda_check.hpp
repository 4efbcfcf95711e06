// CUDA error checking that throws with the failing call and the CUDA error; the source
// location only when asked for (--verbose), since a user's message names no source path.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "sortbench/core/errors.hpp"

namespace sb {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line);

// A device allocation that failed: out of memory is Error(device_memory) naming the bytes asked
// for and the bytes free (a test or a user then sees how far off it was); any other error as
// throw_cuda_error.
[[noreturn]] void throw_device_allocation_error(cudaError_t err, std::size_t bytes, const char* file, int line);

// Whether CUDA error messages end with "at <file>:<line>" (default: no).
void set_error_locations(bool on);

}  // namespace sb

#define SB_CUDA_CHECK(call)                                                         \
  do {                                                                              \
    cudaError_t sb_err_ = (call);                                                   \
    if (sb_err_ != cudaSuccess) ::sb::throw_cuda_error(sb_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches bad launch configurations at once.
#define SB_CUDA_CHECK_LAUNCH() SB_CUDA_CHECK(cudaGetLastError())
