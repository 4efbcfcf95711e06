#include "sortbench/cuda_check.hpp"

#include <fmt/format.h>

namespace sb {

void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  const ExitCode code = err == cudaErrorMemoryAllocation ? ExitCode::device_memory : ExitCode::cuda;
  throw Error(code, fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(err),
                                cudaGetErrorString(err), what, file, line));
}

}  // namespace sb
