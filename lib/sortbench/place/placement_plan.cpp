// The fit rule (placement_plan.hpp).
#include "sortbench/place/placement_plan.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/cuda_check.hpp"

namespace sb {

std::string DeviceFit::shortfall(const std::string& fix) const {
  return fmt::format("the input needs {} on the GPU ({} of {} each{}) but {} {}; {}", bytes_text(needed()),
                     copies == 3 ? "input plus two work buffers" : "input plus a work buffer", bytes_text(column_bytes),
                     workspace ? fmt::format(", and a sort's workspace of {}", bytes_text(workspace)) : "",
                     bytes_text(usable), limited ? "is the --gpu-memory-limit" : "are free", fix);
}

DeviceFit device_fit(std::uint64_t column_bytes, bool repeated, std::uint64_t free_bytes, std::uint64_t memory_limit,
                     std::uint64_t workspace) {
  DeviceFit f;
  f.column_bytes = column_bytes;
  f.workspace = workspace;
  f.copies = repeated ? 3 : 2;
  f.limited = memory_limit && memory_limit < free_bytes;
  f.usable = f.limited ? memory_limit : free_bytes;
  return f;
}

std::uint64_t free_device_bytes() {
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

DeviceFit device_fit_here(std::uint64_t column_bytes, bool repeated, std::uint64_t memory_limit,
                          std::uint64_t workspace) {
  return device_fit(column_bytes, repeated, free_device_bytes(), memory_limit, workspace);
}

}  // namespace sb
