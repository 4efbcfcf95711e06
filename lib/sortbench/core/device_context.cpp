// Device contexts and their kernel facts (device_context.hpp).
#include "sortbench/core/device_context.hpp"

#include <iterator>

#include "sortbench/core/cuda_check.hpp"

namespace sb {

cudaFuncAttributes KernelFacts::attributes(const void* kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = attributes_.find(kernel);
  if (it == attributes_.end()) {
    cudaFuncAttributes a{};
    SB_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    it = attributes_.emplace(kernel, a).first;
  }
  return it->second;
}

int KernelFacts::blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_smem) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_tuple(kernel, threads, dynamic_smem);
  auto it = occupancy_.find(key);
  if (it == occupancy_.end()) {
    int blocks = 0;
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem));
    it = occupancy_.emplace(key, blocks).first;
  }
  return it->second;
}

void KernelFacts::allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t& allowed = dynamic_smem_[kernel];
  if (bytes <= allowed) return;
  SB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  allowed = bytes;
  attributes_.erase(kernel);  // maxDynamicSharedSizeBytes changed
  for (auto it = occupancy_.begin(); it != occupancy_.end();)
    it = std::get<0>(it->first) == kernel ? occupancy_.erase(it) : std::next(it);
}

void KernelFacts::keep_limit(cudaLimit limit, std::size_t found) {
  std::lock_guard<std::mutex> lock(mutex_);
  found_limits_.emplace(limit, found);
}

std::optional<std::size_t> KernelFacts::take_limit(cudaLimit limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = found_limits_.find(limit);
  if (it == found_limits_.end()) return std::nullopt;
  const std::size_t found = it->second;
  found_limits_.erase(it);
  return found;
}

DeviceContext make_device_context(int ordinal, cudaStream_t stream) {
  DeviceContext c;
  c.ordinal = ordinal;
  SB_CUDA_CHECK(cudaGetDeviceProperties(&c.props, ordinal));
  c.stream = stream;
  c.kernels = std::make_shared<KernelFacts>();
  const ProfileBinding binding = profile_for_gpu(c.props.name);
  c.profile = binding.profile;
  c.rule = binding.rule;
  return c;
}

DeviceContext current_device_context(cudaStream_t stream) {
  int ordinal = 0;
  SB_CUDA_CHECK(cudaGetDevice(&ordinal));
  return make_device_context(ordinal, stream);
}

cudaFuncAttributes kernel_attributes(const DeviceContext* device, const void* kernel) {
  if (device && device->kernels) return device->kernels->attributes(kernel);
  cudaFuncAttributes a{};
  SB_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  return a;
}

int kernel_blocks_per_sm(const DeviceContext* device, const void* kernel, int threads, std::size_t dynamic_smem) {
  if (device && device->kernels) return device->kernels->blocks_per_sm(kernel, threads, dynamic_smem);
  int blocks = 0;
  SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem));
  return blocks;
}

void allow_kernel_dynamic_smem(const DeviceContext* device, const void* kernel, std::size_t bytes) {
  if (device && device->kernels) return device->kernels->allow_dynamic_smem(kernel, bytes);
  SB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

int multiprocessor_count(const DeviceContext* device) {
  if (device) return device->props.multiProcessorCount;
  int ordinal = 0, sms = 0;
  SB_CUDA_CHECK(cudaGetDevice(&ordinal));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal));
  return sms;
}

}  // namespace sb
