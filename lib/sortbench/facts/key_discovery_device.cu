// Range discovery on the device: one grid-stride pass reducing each key's ordered form to
// a minimum and maximum (warp shuffles, then shared memory, then one 64-bit atomic pair per
// block). The grid is a few blocks per SM: one atomic pair per warp of a grid sized to n put
// millions of same-address atomics on one L2 slice, 10x slower than reading the keys.
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/launch.hpp"

namespace sb {
namespace {

constexpr int kBlock = 256;
// Enough resident warps to keep every SM of a large GPU streaming (8 blocks x 132 SMs on an H200).
constexpr unsigned kMaxBlocks = 2048;

template <typename K>
__global__ void key_facts_kernel(const K* keys, std::uint64_t n, unsigned long long* facts) {
  unsigned long long lo = ~0ull, hi = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    const unsigned long long o = KeyTraits<K>::ordered(keys[i]);
    lo = o < lo ? o : lo;
    hi = o > hi ? o : hi;
  }
  __shared__ unsigned long long warp_lo[kBlock / 32], warp_hi[kBlock / 32];
  auto reduce_warp = [&] {
    for (int offset = 16; offset > 0; offset /= 2) {
      const unsigned long long l = __shfl_down_sync(0xffffffffu, lo, offset);
      const unsigned long long h = __shfl_down_sync(0xffffffffu, hi, offset);
      lo = l < lo ? l : lo;
      hi = h > hi ? h : hi;
    }
  };
  reduce_warp();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_lo[warp] = lo, warp_hi[warp] = hi;
  __syncthreads();
  if (warp == 0) {
    lo = lane < kBlock / 32 ? warp_lo[lane] : ~0ull;
    hi = lane < kBlock / 32 ? warp_hi[lane] : 0ull;
    reduce_warp();
    if (lane == 0) {
      atomicMin(&facts[0], lo);
      atomicMax(&facts[1], hi);
    }
  }
}

}  // namespace

void reset_key_bounds_device(std::uint64_t* d_facts, cudaStream_t stream) {
  SB_CUDA_CHECK(cudaMemsetAsync(d_facts, 0xff, sizeof(std::uint64_t), stream));
  SB_CUDA_CHECK(cudaMemsetAsync(d_facts + 1, 0, sizeof(std::uint64_t), stream));
}

void add_key_bounds_device(KeyType key, const void* d_keys, std::uint64_t n, std::uint64_t* d_facts,
                           cudaStream_t stream) {
  if (!n) return;
  auto* facts = reinterpret_cast<unsigned long long*>(d_facts);
  if (key == KeyType::u32x4) {
    const std::uint64_t words = 4 * n;
    key_facts_kernel<std::uint32_t><<<grid_for(words, kBlock, kMaxBlocks), kBlock, 0, stream>>>(
        static_cast<const std::uint32_t*>(d_keys), words, facts);
  } else {
    dispatch_key<ScalarKeys>(key, [&](auto k) {
      using K = decltype(k);
      key_facts_kernel<K><<<grid_for(n, kBlock, kMaxBlocks), kBlock, 0, stream>>>(static_cast<const K*>(d_keys), n,
                                                                                  facts);
    });
  }
  SB_CUDA_CHECK_LAUNCH();
}

OrderedBounds read_key_bounds_device(const std::uint64_t* d_facts, std::uint64_t* h_facts, cudaStream_t stream) {
  SB_CUDA_CHECK(cudaMemcpyAsync(h_facts, d_facts, 2 * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  // No key added: the reset words (max < min) stand for an empty input, {0, 0} as on the host.
  if (h_facts[0] > h_facts[1]) h_facts[0] = h_facts[1] = 0;
  return OrderedBounds{h_facts[0], h_facts[1]};
}

void discover_key_facts_device(KeyType key, const void* d_keys, std::uint64_t n, std::uint64_t* d_facts,
                               std::uint64_t* h_facts, cudaStream_t stream) {
  reset_key_bounds_device(d_facts, stream);
  add_key_bounds_device(key, d_keys, n, d_facts, stream);
  read_key_bounds_device(d_facts, h_facts, stream);
}

}  // namespace sb
