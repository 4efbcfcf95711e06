// CUB DeviceMergeSort baseline (library: CCCL's cub/device/device_merge_sort.cuh):
// comparison-based and stable, in place on keys[0]/vals[0].
#include <cub/device/device_merge_sort.cuh>

#include "baselines.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::baselines {
namespace {

template <typename K>
struct KeyLess {
  __host__ __device__ bool operator()(const K& a, const K& b) const { return KeyTraits<K>::less(a, b); }
};

template <typename K, typename V>
void merge_sort(void* temp, std::size_t& bytes, K* keys, V* vals, std::uint64_t n, cudaStream_t stream) {
  if constexpr (std::is_same_v<V, NoValue>)
    SB_CUDA_CHECK(
        cub::DeviceMergeSort::StableSortKeys(temp, bytes, keys, static_cast<std::int64_t>(n), KeyLess<K>{}, stream));
  else
    SB_CUDA_CHECK(cub::DeviceMergeSort::StableSortPairs(temp, bytes, keys, vals, static_cast<std::int64_t>(n),
                                                        KeyLess<K>{}, stream));
}

}  // namespace

void add_cub_merge(Registry& r) {
  Algorithm a = baseline("cub-merge", Backend::gpu, true,
                         "a stable comparison sort from the library (CUB's merge sort), any key type",
                         "CUB DeviceMergeSort::StableSortKeys / StableSortPairs");
  a.workspace_bytes = [](const SortProblem& p) {
    return dispatch_element<AllKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      using K = decltype(k);
      using V = decltype(v);
      std::size_t bytes = 0;
      merge_sort<K, V>(nullptr, bytes, nullptr, reinterpret_cast<V*>(8), p.n(), nullptr);
      return bytes;
    });
  };
  set_device_run<AllKeys, AllValues>(a, [](auto b, const SortProblem& p) {
    std::size_t bytes = b.workspace_bytes;
    merge_sort(b.workspace, bytes, b.keys[0], b.vals[0], p.n(), b.stream);
    return 0;
  });
  r.add(a);
}

}  // namespace sb::baselines
