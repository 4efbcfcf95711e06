#include "sortbench/device/device_info.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"

namespace sb {

std::optional<std::string> cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fmt::format("no CUDA device ({}: {})", cudaGetErrorName(err), cudaGetErrorString(err));
  }
  if (count == 0) return std::string("no CUDA device found");
  return std::nullopt;
}

std::string invalid_device_message(int ordinal, const std::vector<std::string>& names) {
  std::string listed;
  for (std::size_t i = 0; i < names.size(); ++i) listed += fmt::format("{}{}: {}", i ? ", " : "", i, names[i]);
  const std::string choice =
      names.size() == 1 ? std::string("give --device 0") : fmt::format("give --device 0 to {}", names.size() - 1);
  return fmt::format("--device {}: this machine has {} GPU{} ({}); {}", ordinal, names.size(),
                     names.size() == 1 ? "" : "s", listed, choice);
}

std::string format_cuda_version(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

double measure_copy_bandwidth_gbs(std::uint64_t bytes) {
  DeviceBuffer src(bytes), dst(bytes);
  SB_CUDA_CHECK(cudaMemset(src.get(), 1, bytes));
  cudaEvent_t start, stop;
  SB_CUDA_CHECK(cudaEventCreate(&start));
  SB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < 12; ++i) {
    SB_CUDA_CHECK(cudaEventRecord(start));
    SB_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
    SB_CUDA_CHECK(cudaEventRecord(stop));
    SB_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i >= 2) ms.push_back(t);  // the first copies warm up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  const double median_ms = ms[ms.size() / 2];
  return 2.0 * static_cast<double>(bytes) / (median_ms * 1e-3) / 1e9;
}

DeviceInfo query_device(int ordinal, bool measure_bandwidth, std::string_view no_device_fix) {
  if (auto why = cuda_unavailable_reason())
    throw Error(ExitCode::no_device, fmt::format("{}; {}", *why, no_device_fix));
  int count = 0;
  SB_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (ordinal < 0 || ordinal >= count) throw UsageError(invalid_device_message(ordinal, device_names()));
  DeviceInfo d;
  d.ordinal = ordinal;
  // Asked about `ordinal` without making it current (docs/architecture.md, "Devices and
  // contexts"); the memory query and the copy need it current, so they run with it and the
  // caller's device is restored.
  int caller_device = 0;
  SB_CUDA_CHECK(cudaGetDevice(&caller_device));
  struct RestoreDevice {
    int ordinal;
    ~RestoreDevice() { cudaSetDevice(ordinal); }
  } restore{caller_device};
  SB_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp p{};
  SB_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_mem_per_sm = p.sharedMemPerMultiprocessor;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.mem_bus_bits = p.memoryBusWidth;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal) == cudaSuccess) d.sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess) d.mem_clock_mhz = khz / 1000;
  cudaGetLastError();
  SB_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  SB_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  d.memory_free_bytes = free_bytes;
  if (count >= 2) {
    std::vector<int> all(static_cast<std::size_t>(count));
    std::iota(all.begin(), all.end(), 0);
    try {
      d.peers = query_peer_links(all);
    } catch (const Error&) {
      (void)cudaGetLastError();  // a context's facts, not worth a run: it then has no topology
    }
  }
  if (measure_bandwidth) {
    const std::uint64_t bytes = std::min<std::uint64_t>(std::uint64_t{1} << 30, free_bytes / 4);
    d.copy_bandwidth_gbs = measure_copy_bandwidth_gbs(bytes);
  }
  return d;
}

void use_device(int ordinal) { SB_CUDA_CHECK(cudaSetDevice(ordinal)); }

std::vector<PeerLink> query_peer_links(const std::vector<int>& devices) {
  std::vector<PeerLink> links;
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      PeerLink l;
      l.from = a;
      l.to = b;
      int v = 0;
      SB_CUDA_CHECK(cudaDeviceCanAccessPeer(&v, a, b));
      l.access = v != 0;
      if (l.access) {
        SB_CUDA_CHECK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported, a, b));
        l.native_atomics = v != 0;
        SB_CUDA_CHECK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, a, b));
        l.performance_rank = v;
      }
      links.push_back(l);
    }
  return links;
}

std::string describe(const PeerLink& l) {
  if (!l.access) return "no peer access (through host memory)";
  return fmt::format("peer access, {}, performance rank {}",
                     l.native_atomics ? "native atomics (NVLink-class link)" : "no native atomics (PCIe-class link)",
                     l.performance_rank);
}

std::vector<std::string> device_names() {
  int count = 0;
  SB_CUDA_CHECK(cudaGetDeviceCount(&count));
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    SB_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    names.emplace_back(p.name);
  }
  return names;
}

}  // namespace sb
