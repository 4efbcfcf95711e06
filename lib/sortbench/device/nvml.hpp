// NVML at run time: the driver's libnvidia-ml.so.1 is loaded with dlopen, so sortbench starts
// where it is absent (and says so in one line); the entry points are typed from the real
// nvml.h (the nvidia-nvml-dev wheel, found by CMake), never declared by hand. Without that
// header at build time NVML is compiled out and every query answers "absent". The CUDA
// device is matched to its NVML device by PCI bus id, as nvbench's device_info does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sb {

// One moment of the device's clocks; zero where NVML did not answer.
struct ClockReading {
  unsigned sm_mhz = 0;
  unsigned mem_mhz = 0;
  int temperature_c = 0;
  double power_w = 0;
  std::uint64_t event_reasons = 0;  // nvmlClocksEventReason* bits
};

// What `info` shows and the JSON context records about the device's conditions.
struct GpuConditions {
  bool nvml = false;
  std::string nvml_absent;  // why not, when nvml is false
  unsigned sm_clock_mhz = 0, sm_clock_max_mhz = 0, mem_clock_mhz = 0, mem_clock_max_mhz = 0;
  std::optional<bool> app_clocks_locked;  // application clocks set away from their defaults
  unsigned app_sm_clock_mhz = 0;
  std::optional<bool> persistence_mode;
  int temperature_c = 0;
  double power_w = 0, power_limit_w = 0;
  bool energy_counter = false;  // nvmlDeviceGetTotalEnergyConsumption answers
};

// A process on the GPU: its memory (running compute processes) and SM / memory-controller
// utilization (NVML's recent process samples; 0 where none).
struct GpuProcess {
  unsigned pid = 0;
  std::string name;
  std::uint64_t memory_bytes = 0;
  unsigned sm_pct = 0, mem_pct = 0;
};

// Processes other than self_pid that hold more than `share` of SM time or of the memory.
std::vector<GpuProcess> busy_processes(const std::vector<GpuProcess>& all, std::uint64_t total_memory_bytes,
                                       unsigned self_pid, double share = 0.10);
// "pid 4711 (python3): 35 % SM, 12.0 GiB": one process, for the warning.
std::string describe_process(const GpuProcess& p);

// "sw_power_cap, hw_slowdown": the clock-event reasons set in mask (empty: none).
std::string clock_event_reason_names(std::uint64_t mask);
// The reasons that say the clock was held down (not idle, not application-clock settings).
std::uint64_t slowdown_reasons(std::uint64_t mask);

// The library dlopen loads: $SORTBENCH_NVML_LIBRARY when set (tests point it at a missing
// file to take the absent path), else libnvidia-ml.so.1.
std::string nvml_library_path();

class NvmlDevice {
 public:
  // The NVML device of CUDA device `cuda_ordinal`; null and *why_absent set when NVML is
  // compiled out, the library cannot be loaded or initialized, or no device has that bus id.
  static std::unique_ptr<NvmlDevice> open(int cuda_ordinal, std::string* why_absent);
  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  ClockReading read_clocks() const;
  GpuConditions conditions() const;
  // Total energy since the driver loaded, in joules; nullopt where the GPU has no counter.
  std::optional<double> energy_j() const;
  std::vector<GpuProcess> processes() const;
  std::uint64_t memory_total_bytes() const;

  struct Api;  // the loaded entry points (nvml.cpp)

 private:
  NvmlDevice() = default;
  std::unique_ptr<Api> api_;
};

// The one line a run or `info` prints when NVML is absent.
std::string nvml_absent_line(const std::string& why);

}  // namespace sb
