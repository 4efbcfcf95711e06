// GPU side of the generator: one thread per element calls the same functions as the CPU
// (generator.hpp), so both produce bit-identical inputs.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <cuda/std/tuple>

#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/generator.hpp"
#include "sortbench/keys.hpp"
#include "sortbench/launch.hpp"

namespace sb {
namespace {

constexpr int kBlock = 256;

unsigned grid_for(std::uint64_t n) { return sb::grid_for(n, kBlock); }

template <typename K>
__global__ void fill_base_kernel(GeneratorPlan g, K* keys) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < g.n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if constexpr (std::is_same_v<K, Row4>) {
      Row4 r;
      for (unsigned w = 0; w < 4; ++w) r.w[w] = static_cast<std::uint32_t>(base_value(g, i, w));
      keys[i] = r;
    } else {
      keys[i] = KeyTraits<K>::from_value(base_value(g, i));
    }
  }
}

template <typename K>
__global__ void arrange_kernel(GeneratorPlan g, const K* sorted, K* keys) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < g.n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = sorted[arranged_source(g, i)];
}

__global__ void iota_kernel(index_t* vals, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    vals[i] = static_cast<index_t>(i);
}

// CUB sorts a row by its words, most significant first.
struct Row4Decomposer {
  __host__ __device__ cuda::std::tuple<std::uint32_t&, std::uint32_t&, std::uint32_t&, std::uint32_t&>
  operator()(Row4& r) const {
    return {r.w[0], r.w[1], r.w[2], r.w[3]};
  }
};

template <typename K>
void radix_sort_keys(const K* in, K* out, std::uint64_t n, cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  if constexpr (std::is_same_v<K, Row4>) {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, n, Row4Decomposer{}, stream));
    DeviceBuffer temp(temp_bytes);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, in, out, n, Row4Decomposer{}, stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, n, 0, int(sizeof(K) * 8), stream));
    DeviceBuffer temp(temp_bytes);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, in, out, n, 0, int(sizeof(K) * 8), stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

template <typename K>
void generate_typed(const InputSpec& spec, K* keys, cudaStream_t stream) {
  const GeneratorPlan g = make_generator_plan(spec);
  if (spec.n == 0) return;
  if (!needs_sorting(spec.dist)) {
    fill_base_kernel<<<grid_for(spec.n), kBlock, 0, stream>>>(g, keys);
    SB_CUDA_CHECK_LAUNCH();
    return;
  }
  DeviceBuffer base(spec.n * sizeof(K));
  DeviceBuffer sorted(spec.n * sizeof(K));
  fill_base_kernel<<<grid_for(spec.n), kBlock, 0, stream>>>(g, base.as<K>());
  SB_CUDA_CHECK_LAUNCH();
  radix_sort_keys(base.as<K>(), sorted.as<K>(), spec.n, stream);
  arrange_kernel<<<grid_for(spec.n), kBlock, 0, stream>>>(g, sorted.as<K>(), keys);
  SB_CUDA_CHECK_LAUNCH();
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Values of the generated keys as 64-bit integers (generated f32 keys hold integers).
template <typename K>
__device__ std::int64_t value_of(const K& k) {
  return static_cast<std::int64_t>(k);
}

struct StatsAccumulator {
  unsigned long long distinct;
  long long min;
  long long max;
};

template <typename K>
__global__ void stats_kernel(const K* sorted, std::uint64_t n, StatsAccumulator* acc) {
  unsigned long long local = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    local += (i == 0 || sorted[i] != sorted[i - 1]) ? 1 : 0;
  if (local) atomicAdd(&acc->distinct, local);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    acc->min = value_of(sorted[0]);
    acc->max = value_of(sorted[n - 1]);
  }
}

template <typename K>
InputStats stats_typed(std::uint64_t count, const K* d_keys, cudaStream_t stream) {
  InputStats s;
  if (count == 0) return s;
  DeviceBuffer sorted(count * sizeof(K));
  radix_sort_keys(d_keys, sorted.as<K>(), count, stream);
  DeviceBuffer acc(sizeof(StatsAccumulator));
  SB_CUDA_CHECK(cudaMemsetAsync(acc.get(), 0, sizeof(StatsAccumulator), stream));
  stats_kernel<<<grid_for(count), kBlock, 0, stream>>>(sorted.as<K>(), count, acc.as<StatsAccumulator>());
  SB_CUDA_CHECK_LAUNCH();
  StatsAccumulator host{};
  SB_CUDA_CHECK(cudaMemcpyAsync(&host, acc.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  s.min = host.min;
  s.max = host.max;
  s.len = host.distinct;
  return s;
}

}  // namespace

void generate_device(const InputSpec& spec, void* d_keys, index_t* d_vals, cudaStream_t stream) {
  dispatch_key(spec.key, [&](auto k) { generate_typed(spec, static_cast<decltype(k)*>(d_keys), stream); });
  if (d_vals && spec.payload == Payload::index && spec.n > 0) {
    iota_kernel<<<grid_for(spec.n), kBlock, 0, stream>>>(d_vals, spec.n);
    SB_CUDA_CHECK_LAUNCH();
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

InputStats input_stats_device(const InputSpec& spec, const void* d_keys, cudaStream_t stream) {
  InputStats s;
  switch (spec.key) {
    case KeyType::u32:
    case KeyType::u32x4: {
      const std::uint64_t words = spec.key == KeyType::u32x4 ? spec.n * 4 : spec.n;
      s = stats_typed(words, static_cast<const std::uint32_t*>(d_keys), stream);
      break;
    }
    case KeyType::i32: s = stats_typed(spec.n, static_cast<const std::int32_t*>(d_keys), stream); break;
    case KeyType::f32: s = stats_typed(spec.n, static_cast<const float*>(d_keys), stream); break;
  }
  s.n = spec.n;
  return s;
}

}  // namespace sb
