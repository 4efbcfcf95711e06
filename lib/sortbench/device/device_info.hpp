// What the run's GPU is, for the context block and for algorithms sizing their launches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// What CUDA says about the path from GPU `from` to GPU `to` (nvidia-smi topo -m tells NVLink
// from PCIe; CUDA tells peer access, native atomics across the link, which NVLink has and
// PCIe lacks, and a relative performance rank, 0 the best).
struct PeerLink {
  int from = 0, to = 0;
  bool access = false;
  bool native_atomics = false;
  int performance_rank = 0;
};
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t memory_free_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t shared_mem_per_block_optin = 0;
  std::uint64_t shared_mem_per_sm = 0;
  int max_threads_per_sm = 0;
  int sm_clock_mhz = 0;   // peak
  int mem_clock_mhz = 0;  // peak
  int mem_bus_bits = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;
  double copy_bandwidth_gbs = 0;  // measured device-to-device copy, bytes read + written
  // Every ordered pair of this host's GPUs where it has two or more (the context's topology,
  // issue 51): what a distributed run's exchange crosses.
  std::vector<PeerLink> peers;
};

// nullopt when a CUDA device is usable, otherwise why not (one line).
std::optional<std::string> cuda_unavailable_reason();

// Throws Error(no_device) when no device answers, UsageError when ordinal names no device
// of this machine (the message lists them). Leaves the current device as it was. With
// measure_bandwidth, times a device-to-device copy (about 0.2 s).
// Without a device: exit code no_device, the reason, then no_device_fix (what the caller's
// command can do instead: run and sort take --backend cpu, info and sweep do not).
DeviceInfo query_device(int ordinal, bool measure_bandwidth,
                        std::string_view no_device_fix = "run on a machine with an NVIDIA GPU or use --backend cpu");

// Makes `ordinal` the calling thread's current device (the GPU a run's single-GPU rows use).
void use_device(int ordinal);

// "--device 7: this machine has 1 GPU (0: NVIDIA H200); give --device 0": a wrong device
// number is a usage error, named with the GPUs there are.
std::string invalid_device_message(int ordinal, const std::vector<std::string>& names);

// Median of several timed cudaMemcpyAsync device-to-device copies of `bytes`, in GB/s
// counting bytes read plus bytes written.
double measure_copy_bandwidth_gbs(std::uint64_t bytes);

std::string format_cuda_version(int v);

// Every ordered pair of distinct devices in `devices`.
std::vector<PeerLink> query_peer_links(const std::vector<int>& devices);
std::string describe(const PeerLink& link);
// Every CUDA device, by ordinal: its name.
std::vector<std::string> device_names();

}  // namespace sb
