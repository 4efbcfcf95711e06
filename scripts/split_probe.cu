// The two-rank split's speed on one GPU (issue 51, docs/distributed.md "Measured, round three"):
// dist-sample-sort partition-first's split_in_two (kernels/distributed/dist_split_in_two.cuh) of
// 2^30 uniform u32 keys a rank, its own part half of them, against a device-to-device copy of the
// same bytes (the floor: one read and one write of the slice). The best of five, CUDA events.
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Ilib -Ikernels \
//     -o /tmp/split_probe scripts/split_probe.cu && /tmp/split_probe [LOG2_N]
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include <cub/device/device_partition.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include "distributed/dist_split_in_two.cuh"

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void fill_uniform(std::uint32_t* keys, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    std::uint64_t x = i * 0x9E3779B97F4A7C15ull;  // splitmix64's finalizer: uniform 32-bit keys
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    keys[i] = static_cast<std::uint32_t>(x ^ (x >> 31));
  }
}

// CUB's two-way partition (decoupled look-back, kept part from the front, the rest reversed
// from the back): by the key alone, and by (key, index) as destination_of orders equal keys.
struct KeyBelow {
  const sb::dist::Splitter* s;
  __device__ bool operator()(std::uint32_t k) const { return k < s->key; }
};
struct KeptByIndex {
  const sb::dist::Splitter* s;
  __device__ bool operator()(const thrust::tuple<std::uint32_t, std::uint64_t>& t) const {
    return sb::dist::destination_of(thrust::get<0>(t), 0, thrust::get<1>(t), s, 1) == 0;
  }
};
struct DropIndex {
  __host__ __device__ std::uint32_t operator()(const thrust::tuple<std::uint32_t, std::uint64_t>& t) const {
    return thrust::get<0>(t);
  }
};

int main(int argc, char** argv) {
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 30;
  const std::uint64_t n = std::uint64_t{1} << log2_n;
  std::uint32_t *keys, *out;
  std::uint64_t* ends;
  sb::dist::Splitter* splitter;
  CK(cudaMalloc(&keys, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&ends, 16));
  CK(cudaMalloc(&splitter, sizeof(sb::dist::Splitter)));
  fill_uniform<<<1024, 256>>>(keys, n);
  const sb::dist::Splitter half{std::uint64_t{1} << 31, 1, 0};
  CK(cudaMemcpy(splitter, &half, sizeof(half), cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  auto best_of_five = [&](auto body) {
    float best = 1e30f;
    for (int t = 0; t < 6; ++t) {
      CK(cudaEventRecord(a));
      body();
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (t && ms < best) best = ms;  // the first is a warm-up
    }
    return best;
  };
  const float copy_ms = best_of_five([&] { CK(cudaMemcpyAsync(out, keys, n * 4, cudaMemcpyDeviceToDevice)); });
  const unsigned tiles = unsigned((n + sb::dist::kTwoWayTile - 1) / sb::dist::kTwoWayTile);
  const float split_ms = best_of_five([&] {
    CK(cudaMemsetAsync(ends, 0, 16));
    sb::dist::split_in_two<std::uint32_t><<<tiles, sb::dist::kTwoWayBlock>>>(keys, n, splitter, 0, ends, out);
  });
  CK(cudaGetLastError());
  std::uint64_t* selected;
  CK(cudaMalloc(&selected, 8));
  std::size_t key_temp = 0, zip_temp = 0;
  auto zipped = thrust::make_zip_iterator(thrust::make_tuple(keys, thrust::counting_iterator<std::uint64_t>(0)));
  auto keys_out = thrust::make_transform_output_iterator(out, DropIndex{});
  CK(cub::DevicePartition::If(nullptr, key_temp, keys, out, selected, std::int64_t(n), KeyBelow{splitter}));
  CK(cub::DevicePartition::If(nullptr, zip_temp, zipped, keys_out, selected, std::int64_t(n), KeptByIndex{splitter}));
  void* temp;
  CK(cudaMalloc(&temp, key_temp > zip_temp ? key_temp : zip_temp));
  const float cub_key_ms = best_of_five([&] {
    CK(cub::DevicePartition::If(temp, key_temp, keys, out, selected, std::int64_t(n), KeyBelow{splitter}));
  });
  const float cub_zip_ms = best_of_five([&] {
    CK(cub::DevicePartition::If(temp, zip_temp, zipped, keys_out, selected, std::int64_t(n), KeptByIndex{splitter}));
  });
  std::uint64_t host_selected = 0;
  CK(cudaMemcpy(&host_selected, selected, 8, cudaMemcpyDeviceToHost));
  std::printf("cub::DevicePartition::If by key %.3f ms (%.2fx the copy), by (key, index) %.3f ms (%.2fx), kept %llu\n",
              cub_key_ms, cub_key_ms / copy_ms, cub_zip_ms, cub_zip_ms / copy_ms,
              static_cast<unsigned long long>(host_selected));
  std::uint64_t host_ends[2];
  CK(cudaMemcpy(host_ends, ends, 16, cudaMemcpyDeviceToHost));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const double bytes = 8.0 * double(n);  // read and written once
  std::printf("%s, n = 2^%d u32 keys: copy %.3f ms (%.0f GB/s); split_in_two %.3f ms (%.0f GB/s, %.2fx the copy), "
              "own part %llu, peer's %llu\n",
              prop.name, log2_n, copy_ms, bytes / copy_ms / 1e6, split_ms, bytes / split_ms / 1e6, split_ms / copy_ms,
              static_cast<unsigned long long>(host_ends[0]), static_cast<unsigned long long>(host_ends[1]));
  return host_ends[0] + host_ends[1] == n ? 0 : 1;
}
