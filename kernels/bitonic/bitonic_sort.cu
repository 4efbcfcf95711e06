// Host launcher of the bitonic family (seed 003's host loop `for dir ... for inc ...`, one
// Dispatch per step, generalized to a schedule's launch list; seed 000's split per step).
// Any n: the input is copied into power-of-two buffers of the workspace, padded with
// sentinels that sort last, sorted there, and its first n elements copied back.
#include "bitonic_sort.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "bitonic_index.hpp"
#include "bitonic_kernels.cuh"
#include "sortbench/cuda_check.hpp"
#include "sortbench/errors.hpp"
#include "sortbench/keys.hpp"
#include "sortbench/launch.hpp"

namespace sb::bitonic {
namespace {

template <typename K, bool kPayload>
void launch_all(const Schedule& sc, const LaunchShape& sh, K* keys, index_t* vals, cudaStream_t stream) {
  const std::uint64_t padded = std::uint64_t{1} << sh.log_n;
  const std::size_t tile_bytes = (std::size_t{1} << sh.tile_log) * (sizeof(K) + (kPayload ? sizeof(index_t) : 0));
  auto* shared_kernel = sh.shared_round == 4   ? &shared_steps_kernel<4, K, kPayload>
                        : sh.shared_round == 2 ? &shared_steps_kernel<2, K, kPayload>
                                               : &shared_steps_kernel<1, K, kPayload>;
  // (shared_kernel_of below names the same kernels for their thread limits.)
  if (sc.shared)
    SB_CUDA_CHECK(cudaFuncSetAttribute(shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(tile_bytes)));
  const unsigned gt = sh.global_threads;
  for (const Launch& l : plan_launches(sc, sh.log_n, sh.tile_log)) {
    switch (l.kernel) {
      case Kernel::global_steps: {
        const std::uint64_t groups = padded >> l.count;
        const unsigned blocks = static_cast<unsigned>((groups + gt - 1) / gt);
        switch (l.count) {
          case 1: global_steps_kernel<1, K, kPayload><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          case 2: global_steps_kernel<2, K, kPayload><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          case 3: global_steps_kernel<3, K, kPayload><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          case 4: global_steps_kernel<4, K, kPayload><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          default: global_steps_kernel<5, K, kPayload><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step);
        }
        break;
      }
      case Kernel::shared_steps:
        shared_kernel<<<static_cast<unsigned>(padded >> sh.tile_log), sh.shared_threads, tile_bytes, stream>>>(
            keys, vals, sh.tile_log, l.stage, l.step, l.last_stage);
        break;
      case Kernel::split:
        split_kernel<K, kPayload><<<static_cast<unsigned>((padded + gt - 1) / gt), gt, 0, stream>>>(keys, vals, padded,
                                                                                                 l.stage, l.step);
        break;
    }
    SB_CUDA_CHECK_LAUNCH();
  }
}

template <typename K>
int sort_typed(const Schedule& sc, const SortProblem& p, const DeviceBuffers& b) {
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  const LaunchShape sh = launch_shape(sc, p);
  const std::uint64_t padded = std::uint64_t{1} << sh.log_n;
  K* keys = static_cast<K*>(b.keys[0]);
  index_t* const input_vals = static_cast<index_t*>(b.vals[0]);
  index_t* vals = p.has_payload() ? input_vals : nullptr;
  const unsigned copy_blocks = grid_for(padded, sh.global_threads);
  if (padded != n) {
    keys = static_cast<K*>(b.workspace);
    vals = p.has_payload() ? reinterpret_cast<index_t*>(static_cast<char*>(b.workspace) + padded_vals_offset(padded, sizeof(K)))
                           : nullptr;
    pad_kernel<K><<<copy_blocks, sh.global_threads, 0, b.stream>>>(static_cast<const K*>(b.keys[0]), input_vals, keys,
                                                                   vals, n, padded);
    SB_CUDA_CHECK_LAUNCH();
  }
  if (vals)
    launch_all<K, true>(sc, sh, keys, vals, b.stream);
  else
    launch_all<K, false>(sc, sh, keys, vals, b.stream);
  if (padded != n) {
    copy_back_kernel<K><<<copy_blocks, sh.global_threads, 0, b.stream>>>(keys, vals, static_cast<K*>(b.keys[0]),
                                                                         input_vals, n);
    SB_CUDA_CHECK_LAUNCH();
  }
  return 0;
}

template <typename K, bool kPayload>
const void* shared_kernel_of(unsigned round) {
  if (round == 4) return reinterpret_cast<const void*>(&shared_steps_kernel<4, K, kPayload>);
  if (round == 2) return reinterpret_cast<const void*>(&shared_steps_kernel<2, K, kPayload>);
  return reinterpret_cast<const void*>(&shared_steps_kernel<1, K, kPayload>);
}

template <typename K, bool kPayload>
std::vector<const void*> global_kernels_of(unsigned max_steps) {
  const std::vector<const void*> all{reinterpret_cast<const void*>(&global_steps_kernel<1, K, kPayload>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<2, K, kPayload>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<3, K, kPayload>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<4, K, kPayload>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<5, K, kPayload>),
                                     reinterpret_cast<const void*>(&split_kernel<K, kPayload>)};
  std::vector<const void*> out(all.begin(), all.begin() + max_steps);
  out.push_back(all.back());
  return out;
}

// A kernel's attributes (thread limit, registers), asked once per kernel, since launch_shape
// runs inside the timed region.
const cudaFuncAttributes& attributes(const void* f) {
  static std::map<const void*, cudaFuncAttributes> cache;
  auto it = cache.find(f);
  if (it == cache.end()) {
    cudaFuncAttributes a{};
    SB_CUDA_CHECK(cudaFuncGetAttributes(&a, f));
    it = cache.emplace(f, a).first;
  }
  return it->second;
}

// The most threads per block every listed kernel can launch with (registers decide).
unsigned max_threads(const std::vector<const void*>& kernels) {
  int limit = 1 << 30;
  for (const void* f : kernels) limit = std::min(limit, attributes(f).maxThreadsPerBlock);
  return static_cast<unsigned>(limit);
}

template <typename K, bool kPayload>
KernelLimits limits_of(const Schedule& sc, unsigned shared_round) {
  const void* shared = shared_kernel_of<K, kPayload>(shared_round);
  return {max_threads(global_kernels_of<K, kPayload>(sc.max_global_steps)), max_threads({shared}),
          static_cast<unsigned>(attributes(shared).numRegs)};
}

}  // namespace

KernelLimits kernel_limits(const Schedule& sc, unsigned shared_round, KeyType key, bool payload) {
  return dispatch_key<Keys32>(key, [&](auto k) -> KernelLimits {
    using K = decltype(k);
    if constexpr (std::is_same_v<K, Row4>) {
      return {0, 0, 0};
    } else {
      return payload ? limits_of<K, true>(sc, shared_round) : limits_of<K, false>(sc, shared_round);
    }
  });
}

int sort_device(const Schedule& s, const SortProblem& p, const DeviceBuffers& b) {
  return dispatch_key<Keys32>(p.spec.key, [&](auto k) -> int {
    using K = decltype(k);
    if constexpr (std::is_same_v<K, Row4>)
      throw UsageError("bitonic sorts take u32, i32 and f32 keys");
    else
      return sort_typed<K>(s, p, b);
  });
}

}  // namespace sb::bitonic
