// CUB DeviceMergeSort baseline (library: CCCL's cub/device/device_merge_sort.cuh):
// comparison-based and stable, in place on keys[0]/vals[0].
#include <cub/device/device_merge_sort.cuh>

#include "baselines.hpp"
#include "sortbench/cuda_check.hpp"
#include "sortbench/keys.hpp"

namespace sb::baselines {
namespace {

template <typename K>
struct KeyLess {
  __host__ __device__ bool operator()(const K& a, const K& b) const { return KeyTraits<K>::less(a, b); }
};

template <typename K>
void merge_sort(void* temp, std::size_t& bytes, K* keys, index_t* vals, std::uint64_t n, cudaStream_t stream) {
  if (vals)
    SB_CUDA_CHECK(cub::DeviceMergeSort::StableSortPairs(temp, bytes, keys, vals, static_cast<std::int64_t>(n),
                                                        KeyLess<K>{}, stream));
  else
    SB_CUDA_CHECK(
        cub::DeviceMergeSort::StableSortKeys(temp, bytes, keys, static_cast<std::int64_t>(n), KeyLess<K>{}, stream));
}

}  // namespace

void add_cub_merge(Registry& r) {
  Algorithm a;
  a.name = "cub-merge";
  a.family = "baselines";
  a.backend = Backend::gpu;
  a.key_types = {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4};
  a.payload = true;
  a.stable = true;
  a.source = "CUB DeviceMergeSort::StableSortKeys / StableSortPairs";
  a.workspace_bytes = [](const SortProblem& p) {
    return dispatch_key(p.spec.key, [&](auto k) {
      using K = decltype(k);
      std::size_t bytes = 0;
      merge_sort<K>(nullptr, bytes, nullptr, p.has_payload() ? reinterpret_cast<index_t*>(8) : nullptr, p.n(),
                    nullptr);
      return bytes;
    });
  };
  a.run_device = [](const SortProblem& p, const DeviceBuffers& b) {
    dispatch_key(p.spec.key, [&](auto k) {
      using K = decltype(k);
      std::size_t bytes = b.workspace_bytes;
      merge_sort<K>(b.workspace, bytes, static_cast<K*>(b.keys[0]), p.has_payload() ? b.vals[0] : nullptr, p.n(),
                    b.stream);
    });
    return 0;
  };
  r.add(a);
}

}  // namespace sb::baselines
