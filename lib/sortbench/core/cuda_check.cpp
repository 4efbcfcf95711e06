#include "sortbench/core/cuda_check.hpp"

#include <fmt/format.h>

namespace sb {

namespace {
bool g_error_locations = false;
}  // namespace

void set_error_locations(bool on) { g_error_locations = on; }

void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  const ExitCode code = err == cudaErrorMemoryAllocation ? ExitCode::device_memory : ExitCode::cuda;
  std::string message = fmt::format("CUDA error {} ({}) in {}", cudaGetErrorName(err), cudaGetErrorString(err), what);
  if (g_error_locations) message += fmt::format(" at {}:{}", file, line);
  throw Error(code, message);
}

}  // namespace sb
