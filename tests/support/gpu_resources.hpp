// The GPUs ctest allocated to a test (its resource allocation environment, CTest's
// RESOURCE_GROUPS with the spec scripts/gpu-resources.sh writes): the value for
// CUDA_VISIBLE_DEVICES, e.g. "3" or "0,1" (one entry per group, in group order), or "" outside
// ctest's resource allocation. Pure string work, so tests/core checks it without a GPU.
#pragma once

#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

namespace sb::test {

// getenv is a parameter so the CPU tests can hand it a map.
inline std::string allocated_gpus(const std::function<const char*(const std::string&)>& getenv_of) {
  const char* count_text = getenv_of("CTEST_RESOURCE_GROUP_COUNT");
  if (!count_text || !*count_text) return "";
  const int count = std::atoi(count_text);
  std::string devices;
  for (int group = 0; group < count; ++group) {
    const std::string name = "CTEST_RESOURCE_GROUP_" + std::to_string(group) + "_GPUS";
    const char* value = getenv_of(name);
    // "id:3,slots:1" (several allocations of one group are ';'-separated; a group holds one GPU here).
    const std::string v = value ? value : "";
    const auto id = v.find("id:");
    if (id == std::string::npos)
      throw std::runtime_error(name + " = '" + v + "' names no GPU id; is the resource spec from scripts/gpu-resources.sh?");
    const auto end = v.find_first_of(",;", id);
    devices += (devices.empty() ? "" : ",") + v.substr(id + 3, end == std::string::npos ? end : end - id - 3);
  }
  return devices;
}

inline std::string ctest_allocated_gpus() {
  return allocated_gpus([](const std::string& name) { return std::getenv(name.c_str()); });
}

}  // namespace sb::test
