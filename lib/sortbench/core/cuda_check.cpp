#include "sortbench/core/cuda_check.hpp"

#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"

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

void throw_device_allocation_error(cudaError_t err, std::size_t bytes, const char* file, int line) {
  if (err != cudaErrorMemoryAllocation) throw_cuda_error(err, "cudaMalloc", file, line);
  (void)cudaGetLastError();  // not sticky: the context stays usable
  std::size_t free_bytes = 0, total = 0;
  std::string free_text = "an unknown amount";
  if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
    free_text = fmt::format("{} of {}", bytes_text(free_bytes), bytes_text(total));
  std::string message = fmt::format(
      "the GPU could not allocate {} ({} bytes): {} are free; free the GPU's memory (another process may hold it) "
      "or sort fewer keys",
      bytes_text(bytes), bytes, free_text);
  if (g_error_locations) message += fmt::format(" at {}:{}", file, line);
  throw Error(ExitCode::device_memory, message);
}

}  // namespace sb
