// NVML loaded at run time (nvml.hpp). Each entry point's type is decltype of its declaration
// in nvml.h; a missing symbol leaves that query unanswered rather than failing the run.
#include "sortbench/device/nvml.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include <fmt/format.h>

#if SORTBENCH_HAVE_NVML
#include <dlfcn.h>
#include <nvml.h>

#include <cuda_runtime_api.h>
#endif

namespace sb {

std::vector<GpuProcess> busy_processes(const std::vector<GpuProcess>& all, std::uint64_t total_memory_bytes,
                                       unsigned self_pid, double share) {
  std::vector<GpuProcess> busy;
  for (const GpuProcess& p : all) {
    if (p.pid == self_pid) continue;
    const bool memory = total_memory_bytes && p.memory_bytes > share * static_cast<double>(total_memory_bytes);
    const bool sm = p.sm_pct > 100.0 * share;
    const bool mem_util = p.mem_pct > 100.0 * share;
    if (memory || sm || mem_util) busy.push_back(p);
  }
  return busy;
}

std::string describe_process(const GpuProcess& p) {
  return fmt::format("pid {} ({}): {} % SM, {} % memory bandwidth, {:.1f} GiB", p.pid,
                     p.name.empty() ? "unknown" : p.name, p.sm_pct, p.mem_pct,
                     static_cast<double>(p.memory_bytes) / double(1ull << 30));
}

std::string nvml_library_path() {
  const char* env = std::getenv("SORTBENCH_NVML_LIBRARY");
  return env && *env ? env : "libnvidia-ml.so.1";
}

std::string nvml_absent_line(const std::string& why) {
  return fmt::format("note: NVML is absent ({}); clocks, throttling and energy are not recorded", why);
}

#if !SORTBENCH_HAVE_NVML

struct NvmlDevice::Api {};
NvmlDevice::~NvmlDevice() = default;
std::unique_ptr<NvmlDevice> NvmlDevice::open(int, std::string* why_absent) {
  if (why_absent) *why_absent = "this sortbench was built without nvml.h (pip install nvidia-nvml-dev, then reconfigure)";
  return nullptr;
}
ClockReading NvmlDevice::read_clocks() const { return {}; }
GpuConditions NvmlDevice::conditions() const { return {}; }
std::optional<double> NvmlDevice::energy_j() const { return std::nullopt; }
std::vector<GpuProcess> NvmlDevice::processes() const { return {}; }
std::uint64_t NvmlDevice::memory_total_bytes() const { return 0; }
std::string clock_event_reason_names(std::uint64_t mask) { return mask ? fmt::format("{:#x}", mask) : ""; }
std::uint64_t slowdown_reasons(std::uint64_t mask) { return mask; }

#else

namespace {

struct ReasonName {
  unsigned long long bit;
  const char* name;
};
// The bits nvml.h defines, under their nvidia-smi names.
constexpr ReasonName kReasons[] = {
    {nvmlClocksEventReasonGpuIdle, "gpu_idle"},
    {nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting"},
    {nvmlClocksEventReasonSwPowerCap, "sw_power_cap"},
    {nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
    {nvmlClocksEventReasonSyncBoost, "sync_boost"},
    {nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting"},
// Newer headers only (the nvidia-nvml-dev wheel has them; the CUDA 13.0 toolkit's nvml.h not).
#ifdef nvmlClocksEventReasonBoardLimit
    {nvmlClocksEventReasonBoardLimit, "board_limit"},
#endif
#ifdef nvmlClocksEventReasonReliability
    {nvmlClocksEventReasonReliability, "reliability"},
#endif
};

std::string process_name(unsigned pid) {
  std::ifstream comm(fmt::format("/proc/{}/comm", pid));
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

std::string clock_event_reason_names(std::uint64_t mask) {
  std::string out;
  std::uint64_t named = 0;
  for (const ReasonName& r : kReasons)
    if (mask & r.bit) {
      out += (out.empty() ? "" : ", ") + std::string(r.name);
      named |= r.bit;
    }
  if (mask & ~named) out += fmt::format("{}{:#x}", out.empty() ? "" : ", ", mask & ~named);
  return out;
}

std::uint64_t slowdown_reasons(std::uint64_t mask) {
  return mask & ~static_cast<std::uint64_t>(nvmlClocksEventReasonGpuIdle | nvmlClocksEventReasonApplicationsClocksSetting);
}

// The deprecated nvmlDeviceGetTemperature is the fallback for drivers older than
// nvmlDeviceGetTemperatureV; typing it names a deprecated declaration.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct NvmlDevice::Api {
  void* library = nullptr;
  nvmlDevice_t device{};
#define SB_NVML_ENTRY(name) decltype(&::name) name = nullptr
  SB_NVML_ENTRY(nvmlInit_v2);
  SB_NVML_ENTRY(nvmlShutdown);
  SB_NVML_ENTRY(nvmlErrorString);
  SB_NVML_ENTRY(nvmlDeviceGetHandleByPciBusId_v2);
  SB_NVML_ENTRY(nvmlDeviceGetClockInfo);
  SB_NVML_ENTRY(nvmlDeviceGetMaxClockInfo);
  SB_NVML_ENTRY(nvmlDeviceGetApplicationsClock);
  SB_NVML_ENTRY(nvmlDeviceGetDefaultApplicationsClock);
  SB_NVML_ENTRY(nvmlDeviceGetPersistenceMode);
  SB_NVML_ENTRY(nvmlDeviceGetTemperatureV);
  SB_NVML_ENTRY(nvmlDeviceGetTemperature);
  SB_NVML_ENTRY(nvmlDeviceGetPowerUsage);
  SB_NVML_ENTRY(nvmlDeviceGetEnforcedPowerLimit);
  SB_NVML_ENTRY(nvmlDeviceGetTotalEnergyConsumption);
  SB_NVML_ENTRY(nvmlDeviceGetCurrentClocksEventReasons);
  SB_NVML_ENTRY(nvmlDeviceGetComputeRunningProcesses_v3);
  SB_NVML_ENTRY(nvmlDeviceGetProcessUtilization);
  SB_NVML_ENTRY(nvmlDeviceGetMemoryInfo);
#undef SB_NVML_ENTRY

  template <typename F>
  void load(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(library, name));
  }
  int temperature_c() const {
    if (nvmlDeviceGetTemperatureV) {
      nvmlTemperature_t t{};
      t.version = nvmlTemperature_v1;
      t.sensorType = NVML_TEMPERATURE_GPU;
      if (nvmlDeviceGetTemperatureV(device, &t) == NVML_SUCCESS) return t.temperature;
    }
    unsigned c = 0;
    if (nvmlDeviceGetTemperature && nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &c) == NVML_SUCCESS)
      return static_cast<int>(c);
    return 0;
  }
  unsigned clock(decltype(nvmlDeviceGetClockInfo) get, nvmlClockType_t type) const {
    unsigned mhz = 0;
    return get && get(device, type, &mhz) == NVML_SUCCESS ? mhz : 0;
  }
  double power_w() const {
    unsigned mw = 0;
    return nvmlDeviceGetPowerUsage && nvmlDeviceGetPowerUsage(device, &mw) == NVML_SUCCESS ? mw / 1000.0 : 0.0;
  }
};
#pragma GCC diagnostic pop

NvmlDevice::~NvmlDevice() {
  if (api_ && api_->library) {
    if (api_->nvmlShutdown) api_->nvmlShutdown();
    dlclose(api_->library);
  }
}

std::unique_ptr<NvmlDevice> NvmlDevice::open(int cuda_ordinal, std::string* why_absent) {
  auto fail = [&](std::string why) {
    if (why_absent) *why_absent = std::move(why);
    return std::unique_ptr<NvmlDevice>();
  };
  const std::string path = nvml_library_path();
  std::unique_ptr<NvmlDevice> d(new NvmlDevice());
  d->api_ = std::make_unique<Api>();
  Api& a = *d->api_;
  a.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!a.library) return fail(fmt::format("{} could not be loaded", path));
  a.load(a.nvmlInit_v2, "nvmlInit_v2");
  a.load(a.nvmlShutdown, "nvmlShutdown");
  a.load(a.nvmlErrorString, "nvmlErrorString");
  a.load(a.nvmlDeviceGetHandleByPciBusId_v2, "nvmlDeviceGetHandleByPciBusId_v2");
  a.load(a.nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo");
  a.load(a.nvmlDeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
  a.load(a.nvmlDeviceGetApplicationsClock, "nvmlDeviceGetApplicationsClock");
  a.load(a.nvmlDeviceGetDefaultApplicationsClock, "nvmlDeviceGetDefaultApplicationsClock");
  a.load(a.nvmlDeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode");
  a.load(a.nvmlDeviceGetTemperatureV, "nvmlDeviceGetTemperatureV");
  a.load(a.nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature");
  a.load(a.nvmlDeviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
  a.load(a.nvmlDeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
  a.load(a.nvmlDeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption");
  a.load(a.nvmlDeviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons");
  a.load(a.nvmlDeviceGetComputeRunningProcesses_v3, "nvmlDeviceGetComputeRunningProcesses_v3");
  a.load(a.nvmlDeviceGetProcessUtilization, "nvmlDeviceGetProcessUtilization");
  a.load(a.nvmlDeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
  if (!a.nvmlInit_v2 || !a.nvmlShutdown || !a.nvmlDeviceGetHandleByPciBusId_v2) {
    dlclose(a.library);
    a.library = nullptr;
    return fail(fmt::format("{} lacks nvmlInit_v2", path));
  }
  if (const nvmlReturn_t r = a.nvmlInit_v2(); r != NVML_SUCCESS) {
    const std::string why = a.nvmlErrorString ? a.nvmlErrorString(r) : "error";
    dlclose(a.library);
    a.library = nullptr;
    return fail(fmt::format("nvmlInit failed: {}", why));
  }
  char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_ordinal) != cudaSuccess) {
    cudaGetLastError();
    return fail(fmt::format("CUDA device {} has no PCI bus id to find it by", cuda_ordinal));
  }
  if (const nvmlReturn_t r = a.nvmlDeviceGetHandleByPciBusId_v2(bus_id, &a.device); r != NVML_SUCCESS)
    return fail(fmt::format("NVML has no device at PCI bus id {} ({})", bus_id,
                            a.nvmlErrorString ? a.nvmlErrorString(r) : "error"));
  return d;
}

ClockReading NvmlDevice::read_clocks() const {
  const Api& a = *api_;
  ClockReading r;
  r.sm_mhz = a.clock(a.nvmlDeviceGetClockInfo, NVML_CLOCK_SM);
  r.mem_mhz = a.clock(a.nvmlDeviceGetClockInfo, NVML_CLOCK_MEM);
  r.temperature_c = a.temperature_c();
  r.power_w = a.power_w();
  unsigned long long reasons = 0;
  if (a.nvmlDeviceGetCurrentClocksEventReasons &&
      a.nvmlDeviceGetCurrentClocksEventReasons(a.device, &reasons) == NVML_SUCCESS)
    r.event_reasons = reasons;
  return r;
}

GpuConditions NvmlDevice::conditions() const {
  const Api& a = *api_;
  GpuConditions c;
  c.nvml = true;
  c.sm_clock_mhz = a.clock(a.nvmlDeviceGetClockInfo, NVML_CLOCK_SM);
  c.mem_clock_mhz = a.clock(a.nvmlDeviceGetClockInfo, NVML_CLOCK_MEM);
  c.sm_clock_max_mhz = a.clock(a.nvmlDeviceGetMaxClockInfo, NVML_CLOCK_SM);
  c.mem_clock_max_mhz = a.clock(a.nvmlDeviceGetMaxClockInfo, NVML_CLOCK_MEM);
  const unsigned app = a.clock(a.nvmlDeviceGetApplicationsClock, NVML_CLOCK_SM);
  const unsigned app_default = a.clock(a.nvmlDeviceGetDefaultApplicationsClock, NVML_CLOCK_SM);
  if (app && app_default) {
    c.app_sm_clock_mhz = app;
    c.app_clocks_locked = app != app_default;
  }
  nvmlEnableState_t persistence{};
  if (a.nvmlDeviceGetPersistenceMode && a.nvmlDeviceGetPersistenceMode(a.device, &persistence) == NVML_SUCCESS)
    c.persistence_mode = persistence == NVML_FEATURE_ENABLED;
  c.temperature_c = a.temperature_c();
  c.power_w = a.power_w();
  unsigned limit_mw = 0;
  if (a.nvmlDeviceGetEnforcedPowerLimit && a.nvmlDeviceGetEnforcedPowerLimit(a.device, &limit_mw) == NVML_SUCCESS)
    c.power_limit_w = limit_mw / 1000.0;
  c.energy_counter = energy_j().has_value();
  return c;
}

std::optional<double> NvmlDevice::energy_j() const {
  const Api& a = *api_;
  unsigned long long mj = 0;
  if (!a.nvmlDeviceGetTotalEnergyConsumption || a.nvmlDeviceGetTotalEnergyConsumption(a.device, &mj) != NVML_SUCCESS)
    return std::nullopt;
  return static_cast<double>(mj) / 1000.0;
}

std::uint64_t NvmlDevice::memory_total_bytes() const {
  const Api& a = *api_;
  nvmlMemory_t m{};
  return a.nvmlDeviceGetMemoryInfo && a.nvmlDeviceGetMemoryInfo(a.device, &m) == NVML_SUCCESS ? m.total : 0;
}

std::vector<GpuProcess> NvmlDevice::processes() const {
  const Api& a = *api_;
  std::map<unsigned, GpuProcess> by_pid;
  if (a.nvmlDeviceGetComputeRunningProcesses_v3) {
    unsigned count = 0;
    std::vector<nvmlProcessInfo_t> infos;
    nvmlReturn_t r = a.nvmlDeviceGetComputeRunningProcesses_v3(a.device, &count, nullptr);
    if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
      infos.resize(count + 8);  // room for processes that start meanwhile
      count = static_cast<unsigned>(infos.size());
      r = a.nvmlDeviceGetComputeRunningProcesses_v3(a.device, &count, infos.data());
    }
    if (r == NVML_SUCCESS)
      for (unsigned i = 0; i < count; ++i) {
        GpuProcess& p = by_pid[infos[i].pid];
        p.pid = infos[i].pid;
        // NVML_VALUE_NOT_AVAILABLE where the driver cannot say (e.g. some containers).
        if (infos[i].usedGpuMemory != static_cast<unsigned long long>(NVML_VALUE_NOT_AVAILABLE)) p.memory_bytes = infos[i].usedGpuMemory;
      }
  }
  if (a.nvmlDeviceGetProcessUtilization) {
    unsigned count = 0;
    nvmlReturn_t r = a.nvmlDeviceGetProcessUtilization(a.device, nullptr, &count, 0);
    std::vector<nvmlProcessUtilizationSample_t> samples;
    if (r == NVML_ERROR_INSUFFICIENT_SIZE && count) {
      samples.resize(count);
      r = a.nvmlDeviceGetProcessUtilization(a.device, samples.data(), &count, 0);
    }
    if (r == NVML_SUCCESS)
      for (unsigned i = 0; i < count && i < samples.size(); ++i) {
        GpuProcess& p = by_pid[samples[i].pid];
        p.pid = samples[i].pid;
        p.sm_pct = std::max(p.sm_pct, samples[i].smUtil);
        p.mem_pct = std::max(p.mem_pct, samples[i].memUtil);
      }
  }
  std::vector<GpuProcess> all;
  for (auto& [pid, p] : by_pid) {
    p.name = process_name(pid);
    all.push_back(p);
  }
  return all;
}

#endif

}  // namespace sb
