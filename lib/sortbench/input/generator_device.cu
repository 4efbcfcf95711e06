// GPU side of the generator: one thread per element calls the same functions as the CPU
// (generator.hpp), so both produce bit-identical inputs.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <cuda/std/tuple>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/core/launch.hpp"

namespace sb {
namespace {

constexpr int kBlock = 256;

unsigned grid_for(std::uint64_t n) { return sb::grid_for(n, kBlock); }

template <typename K>
__global__ void fill_base_kernel(GeneratorPlan g, K* keys) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < g.n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = base_key<K>(g, i);
}

template <typename K>
__global__ void fill_slice_kernel(GeneratorPlan g, std::uint64_t begin, std::uint64_t count, K* keys) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = base_key<K>(g, begin + i);
}

template <typename V>
__global__ void slice_values_kernel(V* vals, std::uint64_t begin, std::uint64_t count, Payload payload) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    vals[i] = encode_value<V>(payload, begin + i);
}

template <typename K>
__global__ void arrange_kernel(GeneratorPlan g, const K* sorted, K* keys) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < g.n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = sorted[arranged_source(g, i)];
}

template <typename V>
__global__ void values_kernel(V* vals, std::uint64_t n, Payload payload) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    vals[i] = encode_value<V>(payload, i);
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

struct StatsAccumulator {
  unsigned long long distinct;
  unsigned long long fractional;
};

template <typename K>
__global__ void distinct_kernel(const K* sorted, std::uint64_t n, StatsAccumulator* acc) {
  unsigned long long local = 0, fractional = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    local += (i == 0 || KeyTraits<K>::less(sorted[i - 1], sorted[i])) ? 1 : 0;
    fractional += integral_key(sorted[i]) ? 0 : 1;
  }
  if (local) atomicAdd(&acc->distinct, local);
  if (fractional) atomicAdd(&acc->fractional, fractional);
}

// The keys sorted into a buffer of their own: scratch[0] and scratch[1] (each count keys) when
// given, through CUB's double buffer (a temporary of a few KB), else two buffers allocated here
// (the sorted copy and CUB's own copy): at 2^32 u32 keys beside a run's three copies of the
// input, those two did not fit on an 80 GB GPU.
template <typename K>
const K* sorted_copy(std::uint64_t count, const K* d_keys, void* const scratch[2], DeviceBuffer& owned,
                     cudaStream_t stream) {
  if (!scratch[0] || !scratch[1]) {
    owned = DeviceBuffer(count * sizeof(K));
    radix_sort_keys(d_keys, owned.as<K>(), count, stream);
    return owned.as<K>();
  }
  K* a = static_cast<K*>(scratch[0]);
  SB_CUDA_CHECK(cudaMemcpyAsync(a, d_keys, count * sizeof(K), cudaMemcpyDeviceToDevice, stream));
  cub::DoubleBuffer<K> buffers(a, static_cast<K*>(scratch[1]));
  std::size_t temp_bytes = 0;
  if constexpr (std::is_same_v<K, Row4>) {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, buffers, count, Row4Decomposer{}, stream));
    owned = DeviceBuffer(temp_bytes);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(owned.get(), temp_bytes, buffers, count, Row4Decomposer{}, stream));
  } else {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, buffers, count, 0, int(sizeof(K) * 8), stream));
    owned = DeviceBuffer(temp_bytes);
    SB_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(owned.get(), temp_bytes, buffers, count, 0, int(sizeof(K) * 8), stream));
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return buffers.Current();
}

template <typename K>
KeyFacts stats_typed(std::uint64_t count, const K* d_keys, void* const scratch[2], cudaStream_t stream) {
  KeyFacts s;
  if (count == 0) return s;
  DeviceBuffer owned;
  const K* sorted = sorted_copy(count, d_keys, scratch, owned, stream);
  DeviceBuffer acc(sizeof(StatsAccumulator));
  SB_CUDA_CHECK(cudaMemsetAsync(acc.get(), 0, sizeof(StatsAccumulator), stream));
  distinct_kernel<<<grid_for(count), kBlock, 0, stream>>>(sorted, count, acc.as<StatsAccumulator>());
  SB_CUDA_CHECK_LAUNCH();
  StatsAccumulator host{};
  K ends[2];
  SB_CUDA_CHECK(cudaMemcpyAsync(&host, acc.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaMemcpyAsync(&ends[0], sorted, sizeof(K), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaMemcpyAsync(&ends[1], sorted + count - 1, sizeof(K), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  s.min = stat_value(ends[0]);
  s.max = stat_value(ends[1]);
  s.min_ordered = lowest_ordered(ends[0]);
  s.max_ordered = highest_ordered(ends[1]);
  s.len = host.distinct;
  s.integral = host.fractional == 0;
  return s;
}

}  // namespace

void generate_values_device(Payload payload, std::uint64_t n, void* d_vals, cudaStream_t stream) {
  if (!d_vals || payload == Payload::none || n == 0) return;
  dispatch_value(payload, [&](auto v) {
    using V = decltype(v);
    if constexpr (!std::is_same_v<V, NoValue>)
      values_kernel<<<grid_for(n), kBlock, 0, stream>>>(static_cast<V*>(d_vals), n, payload);
  });
  SB_CUDA_CHECK_LAUNCH();
}

void generate_device(const InputSpec& spec, void* d_keys, void* d_vals, cudaStream_t stream) {
  dispatch_key(spec.key, [&](auto k) { generate_typed(spec, static_cast<decltype(k)*>(d_keys), stream); });
  generate_values_device(spec.payload, spec.n, d_vals, stream);
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

KeyFacts input_stats_device(const InputSpec& spec, const void* d_keys, cudaStream_t stream, void* scratch0,
                            void* scratch1) {
  KeyFacts s;
  void* const scratch[2] = {scratch0, scratch1};
  if (spec.key == KeyType::u32x4)
    s = stats_typed(spec.n * 4, static_cast<const std::uint32_t*>(d_keys), scratch, stream);
  else
    s = dispatch_key<ScalarKeys>(spec.key, [&](auto k) {
      using K = decltype(k);
      return stats_typed(spec.n, static_cast<const K*>(d_keys), scratch, stream);
    });
  s.n = spec.n;
  return s;
}

void generate_device_slice(const InputSpec& spec, std::uint64_t begin, std::uint64_t count, void* d_keys,
                           void* d_vals, cudaStream_t stream) {
  require_generated_slice("generate_device_slice", spec, begin, count);
  if (count == 0) return;
  const GeneratorPlan g = make_generator_plan(spec);
  dispatch_key(spec.key, [&](auto k) {
    using K = decltype(k);
    fill_slice_kernel<<<grid_for(count), kBlock, 0, stream>>>(g, begin, count, static_cast<K*>(d_keys));
  });
  SB_CUDA_CHECK_LAUNCH();
  if (d_vals && spec.payload != Payload::none) {
    dispatch_value(spec.payload, [&](auto v) {
      using V = decltype(v);
      if constexpr (!std::is_same_v<V, NoValue>)
        slice_values_kernel<<<grid_for(count), kBlock, 0, stream>>>(static_cast<V*>(d_vals), begin, count,
                                                                    spec.payload);
    });
    SB_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace sb
