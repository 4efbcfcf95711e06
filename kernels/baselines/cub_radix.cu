// CUB DeviceRadixSort baselines (library: CCCL's cub/device/device_radix_sort.cuh).
//   cub-radix        all key bits, DoubleBuffer (no copy back), pairs when a payload is given;
//                    u32x4 rows through CUB's decomposer interface (word 0 most significant)
//   cub-radix-bits   keys mapped in place to offsets from the input's minimum, sorted on
//                    bit_width(max - min) bits only: the strongest CUB call for a known range
//                    (lib/sortbench/algo/range_radix_sort.cu, which hp-auto hands inputs to)
//   cub-radix-pairs  always SortPairs; without a payload it attaches the original index
//                    itself (an argsort), inside the timed region
#include <cub/device/device_radix_sort.cuh>

#include "baselines.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/launch.hpp"
#include "sortbench/algo/range_radix_sort.hpp"

namespace sb::baselines {
namespace {

constexpr unsigned kBlock = 256;

__global__ void iota_kernel(index_t* vals, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    vals[i] = static_cast<index_t>(i);
}

// A row as CUB's radix sort sees a custom key: a tuple of its words, most significant first
// (the same decomposition the generator sorts with).
struct Row4Decomposer {
  __host__ __device__ cuda::std::tuple<std::uint32_t&, std::uint32_t&, std::uint32_t&, std::uint32_t&>
  operator()(Row4& r) const {
    return {r.w[0], r.w[1], r.w[2], r.w[3]};
  }
};

// Sorts keys[0] (and vals[0] unless V is NoValue) on bits [0, end_bit) (rows: on all their
// bits); returns the DoubleBuffer selector. With temp == nullptr only sets temp_bytes.
template <typename K, typename V>
int radix_sort(void* temp, std::size_t& temp_bytes, K* const keys[2], V* const vals[2], std::uint64_t n, int end_bit,
               cudaStream_t stream) {
  cub::DoubleBuffer<K> d_keys(keys[0], keys[1]);
  if constexpr (std::is_same_v<K, Row4>) {
    if constexpr (std::is_same_v<V, NoValue>) {
      SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, n, Row4Decomposer{}, stream));
    } else {
      cub::DoubleBuffer<V> d_vals(vals[0], vals[1]);
      SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, d_vals, n, Row4Decomposer{}, stream));
    }
  } else if constexpr (std::is_same_v<V, NoValue>) {
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, n, 0, end_bit, stream));
  } else {
    cub::DoubleBuffer<V> d_vals(vals[0], vals[1]);
    SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, d_vals, n, 0, end_bit, stream));
  }
  return d_keys.selector;
}

template <typename K, typename V>
std::size_t radix_temp_bytes(std::uint64_t n) {
  std::size_t bytes = 0;
  K* keys[2] = {nullptr, nullptr};
  V* vals[2] = {nullptr, nullptr};
  radix_sort<K, V>(nullptr, bytes, keys, vals, n, int(sizeof(K) * 8), nullptr);
  return bytes;
}

std::size_t align_up(std::size_t b) { return (b + 255) & ~std::size_t{255}; }

Algorithm radix_base(std::string name, std::string source) {
  return baseline(std::move(name), Backend::gpu, true, "", std::move(source));
}

}  // namespace

void add_cub_radix(Registry& r) {
  Algorithm full = radix_base("cub-radix", "CUB DeviceRadixSort (all key bits, DoubleBuffer; u32x4 rows "
                                            "through a decomposer)");
  full.pick_when = "the library sort every GPU sort is measured against: every key type, all key bits";
  full.workspace_bytes = [](const SortProblem& p) {
    return dispatch_element<AllKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      return radix_temp_bytes<decltype(k), decltype(v)>(p.n());
    });
  };
  set_device_run<AllKeys, AllValues>(full, [](auto b, const SortProblem& p) {
    using K = typename decltype(b)::key_type;
    std::size_t bytes = b.workspace_bytes;
    return radix_sort(b.workspace, bytes, b.keys, b.vals, p.n(), int(sizeof(K) * 8), b.stream);
  });
  r.add(full);

  Algorithm bits = radix_base("cub-radix-bits",
                              "CUB DeviceRadixSort on bits [0, bit_width(max - min)) of key - min");
  declare_types<ScalarKeys, AllValues>(bits);
  bits.pick_when = "keys in a narrow range, any scalar type: CUB on only the range's bits, the fastest library sort";
  bits.reads_key_facts = true;  // sorts bits [0, bit_width(max - min)) of key - min
  bits.workspace_bytes = range_radix_sort_bytes;
  bits.run_device = range_radix_sort;
  bits.details = range_radix_sort_details;
  r.add(bits);

  // Without a payload the index column is attached here, inside the timed region: an argsort.
  Algorithm pairs = radix_base("cub-radix-pairs",
                               "CUB DeviceRadixSort::SortPairs with the original index as value "
                               "(attached in the timed region when --payload none)");
  pairs.pick_when = "an argsort with CUB: the input positions are attached and sorted along, inside the timing";
  pairs.workspace_bytes = [](const SortProblem& p) {
    return dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) -> std::size_t {
      using K = decltype(k);
      using V = decltype(v);
      if constexpr (std::is_same_v<V, NoValue>)
        return align_up(radix_temp_bytes<K, index_t>(p.n())) + 2 * align_up(p.n() * sizeof(index_t));
      else
        return radix_temp_bytes<K, V>(p.n());
    });
  };
  set_device_run<ScalarKeys, AllValues>(pairs, [](auto b, const SortProblem& p) {
    using K = typename decltype(b)::key_type;
    std::size_t bytes = b.workspace_bytes;
    if constexpr (decltype(b)::has_values) {
      return radix_sort(b.workspace, bytes, b.keys, b.vals, p.n(), int(sizeof(K) * 8), b.stream);
    } else {
      char* base = static_cast<char*>(b.workspace);
      const std::size_t vb = align_up(p.n() * sizeof(index_t));
      index_t* vals[2] = {reinterpret_cast<index_t*>(base), reinterpret_cast<index_t*>(base + vb)};
      iota_kernel<<<grid_for(p.n(), kBlock), kBlock, 0, b.stream>>>(vals[0], p.n());
      bytes -= 2 * vb;
      return radix_sort(base + 2 * vb, bytes, b.keys, vals, p.n(), int(sizeof(K) * 8), b.stream);
    }
  });
  r.add(pairs);
}

}  // namespace sb::baselines
