// Host memory (host_memory.hpp), issue 37.
#include "sortbench/core/host_memory.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"

namespace sb {

std::uint64_t host_peak_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

std::uint64_t host_current_bytes() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t parse_mem_available(std::string_view meminfo) {
  constexpr std::string_view key = "MemAvailable:";
  std::size_t at = meminfo.find(key);
  // Only at a line's start: no other field ends in this name today, but one might.
  while (at != std::string_view::npos && at != 0 && meminfo[at - 1] != '\n') at = meminfo.find(key, at + 1);
  if (at == std::string_view::npos) return 0;
  std::size_t p = at + key.size();
  while (p < meminfo.size() && meminfo[p] == ' ') ++p;
  std::uint64_t kib = 0;
  const auto [end, ec] = std::from_chars(meminfo.data() + p, meminfo.data() + meminfo.size(), kib);
  if (ec != std::errc()) return 0;
  // The kernel writes "kB" and means KiB.
  return kib * 1024;
}

std::uint64_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  if (!in) return 0;
  std::ostringstream text;
  text << in.rdbuf();
  return parse_mem_available(text.str());
}

std::string pinned_failure_message(std::size_t bytes, std::string_view what, std::uint64_t available) {
  const std::string there = available ? fmt::format("{} available", bytes_text(available)) : "available unknown";
  return fmt::format("pinned host memory for {}: {} needed, {}; lower -n or free host memory", what,
                     bytes_text(bytes), there);
}

void* pinned_alloc(std::size_t bytes, std::string_view what) {
  void* p = nullptr;
  // Never null, as malloc-backed host columns are not, so an empty column still has an address.
  const cudaError_t err = cudaMallocHost(&p, bytes ? bytes : 1);
  if (err == cudaSuccess) return p;
  (void)cudaGetLastError();
  if (err == cudaErrorMemoryAllocation)
    throw Error(ExitCode::device_memory, pinned_failure_message(bytes, what, host_available_bytes()));
  throw_cuda_error(err, "cudaMallocHost", __FILE__, __LINE__);
}

void pinned_free(void* p) noexcept {
  if (p) cudaFreeHost(p);
}

}  // namespace sb
