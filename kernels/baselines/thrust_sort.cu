// thrust::sort / thrust::sort_by_key baseline (library: CCCL's Thrust), as a user calls it,
// except that its temporary memory comes from the harness's workspace through an arena
// allocator instead of cudaMalloc inside the timed region. u32x4 rows go through a
// lexicographic comparison (word 0 first), so thrust takes its merge-sort path for them.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cub/device/device_radix_sort.cuh>

#include <new>

#include "baselines.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::baselines {
namespace {

// Bump allocation over the workspace; everything is released when thrust frees the last block.
class ArenaAllocator {
 public:
  using value_type = char;
  ArenaAllocator(void* base, std::size_t bytes) : base_(static_cast<char*>(base)), bytes_(bytes) {}
  char* allocate(std::ptrdiff_t n) {
    const std::size_t size = (static_cast<std::size_t>(n) + 255) & ~std::size_t{255};
    if (used_ + size > bytes_) throw std::bad_alloc();
    char* p = base_ + used_;
    used_ += size;
    ++live_;
    return p;
  }
  void deallocate(char*, std::size_t) {
    if (--live_ == 0) used_ = 0;
  }

 private:
  char* base_;
  std::size_t bytes_;
  std::size_t used_ = 0;
  int live_ = 0;
};

template <typename K>
struct KeyLess {
  __host__ __device__ bool operator()(const K& a, const K& b) const { return KeyTraits<K>::less(a, b); }
};

// Primitive keys take thrust's default less (its radix path); rows take the lexicographic one.
template <typename Policy, typename K, typename V>
void thrust_sort(Policy policy, K* keys, V* vals, std::uint64_t n) {
  if constexpr (std::is_same_v<K, Row4>) {
    if constexpr (std::is_same_v<V, NoValue>) thrust::sort(policy, keys, keys + n, KeyLess<K>{});
    else thrust::sort_by_key(policy, keys, keys + n, vals, KeyLess<K>{});
  } else if constexpr (std::is_same_v<V, NoValue>) {
    thrust::sort(policy, keys, keys + n);
  } else {
    thrust::sort_by_key(policy, keys, keys + n, vals);
  }
}

}  // namespace

void add_thrust(Registry& r) {
  // Unstable: thrust::sort promises no stability (it happens to radix sort primitives).
  Algorithm a = baseline("thrust-sort", Backend::gpu, false, "what one call to thrust::sort gives a Thrust user",
                         "thrust::sort / thrust::sort_by_key with thrust::cuda::par_nosync (u32x4: lexicographic less)");
  a.workspace_bytes = [](const SortProblem& p) {
    // Thrust's radix path needs CUB's temporary storage plus one copy of keys and values.
    std::size_t cub_bytes = 0;
    cub::DoubleBuffer<std::uint64_t> k;
    cub::DoubleBuffer<std::uint64_t> v;
    cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, k, v, p.n());
    return cub_bytes + 2 * p.n() * p.shape.element_bytes() + (std::size_t{16} << 20);
  };
  set_device_run<AllKeys, AllValues>(a, [](auto b, const SortProblem& p) {
    ArenaAllocator arena(b.workspace, b.workspace_bytes);
    thrust_sort(thrust::cuda::par_nosync(arena).on(b.stream), b.keys[0], b.vals[0], p.n());
    return 0;
  });
  r.add(a);
}

}  // namespace sb::baselines
