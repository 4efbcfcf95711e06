// Host launcher of the bitonic family (seed 003's host loop `for dir ... for inc ...`, one
// Dispatch per step, generalized to a schedule's launch list; seed 000's split per step).
// Any n: the input is copied into power-of-two buffers of the workspace, padded with
// sentinels that sort last (bitonic_padding.hpp), sorted there, and its first n elements
// copied back. Written once over the element type (K, V).
#include "bitonic_sort.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "bitonic_index.hpp"
#include "bitonic_kernels.cuh"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::bitonic {
namespace {

template <typename K, typename V>
const void* shared_kernel_of(unsigned round) {
  if (round == 4) return reinterpret_cast<const void*>(&shared_steps_kernel<4, K, V>);
  if (round == 2) return reinterpret_cast<const void*>(&shared_steps_kernel<2, K, V>);
  return reinterpret_cast<const void*>(&shared_steps_kernel<1, K, V>);
}

template <typename K, typename V>
void launch_all(const Schedule& sc, const LaunchShape& sh, K* keys, V* vals, cudaStream_t stream,
                const DeviceContext* device) {
  const std::uint64_t padded = std::uint64_t{1} << sh.log_n;
  auto* shared_kernel = sh.shared_round == 4   ? &shared_steps_kernel<4, K, V>
                        : sh.shared_round == 2 ? &shared_steps_kernel<2, K, V>
                                               : &shared_steps_kernel<1, K, V>;
  // (shared_kernel_of above names the same kernels for their thread limits.)
  if (sc.shared) allow_kernel_dynamic_smem(device, reinterpret_cast<const void*>(shared_kernel), sh.tile_bytes);
  const unsigned gt = sh.global_threads;
  for (const Launch& l : plan_launches(sc, sh.log_n, sh.tile_log)) {
    switch (l.kernel) {
      case Kernel::global_steps: {
        const std::uint64_t groups = padded >> l.count;
        const unsigned blocks = static_cast<unsigned>((groups + gt - 1) / gt);
        switch (l.count) {
          case 1: global_steps_kernel<1, K, V><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          case 2: global_steps_kernel<2, K, V><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          case 3: global_steps_kernel<3, K, V><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          case 4: global_steps_kernel<4, K, V><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step); break;
          default: global_steps_kernel<5, K, V><<<blocks, gt, 0, stream>>>(keys, vals, groups, l.stage, l.step);
        }
        break;
      }
      case Kernel::shared_steps:
        shared_kernel<<<static_cast<unsigned>(padded >> sh.tile_log), sh.shared_threads, sh.tile_bytes, stream>>>(
            keys, vals, sh.tile_log, l.stage, l.step, l.last_stage);
        break;
      case Kernel::split:
        split_kernel<K, V><<<static_cast<unsigned>((padded + gt - 1) / gt), gt, 0, stream>>>(keys, vals, padded,
                                                                                          l.stage, l.step);
        break;
    }
    SB_CUDA_CHECK_LAUNCH();
  }
}

template <typename K, typename V>
std::vector<const void*> global_kernels_of(unsigned max_steps) {
  const std::vector<const void*> all{reinterpret_cast<const void*>(&global_steps_kernel<1, K, V>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<2, K, V>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<3, K, V>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<4, K, V>),
                                     reinterpret_cast<const void*>(&global_steps_kernel<5, K, V>),
                                     reinterpret_cast<const void*>(&split_kernel<K, V>)};
  std::vector<const void*> out(all.begin(), all.begin() + max_steps);
  out.push_back(all.back());
  return out;
}

// The most threads per block every listed kernel can launch with (registers decide).
unsigned max_threads(const std::vector<const void*>& kernels, const DeviceContext* device) {
  int limit = 1 << 30;
  for (const void* f : kernels) limit = std::min(limit, kernel_attributes(device, f).maxThreadsPerBlock);
  return static_cast<unsigned>(limit);
}

template <typename K, typename V>
KernelLimits limits_of(const Schedule& sc, unsigned shared_round, const DeviceContext* device) {
  const void* shared = shared_kernel_of<K, V>(shared_round);
  return {max_threads(global_kernels_of<K, V>(sc.max_global_steps), device), max_threads({shared}, device),
          static_cast<unsigned>(kernel_attributes(device, shared).numRegs)};
}

}  // namespace

KernelLimits kernel_limits(const Schedule& sc, unsigned shared_round, KeyType key, Payload payload,
                           const DeviceContext* device) {
  return dispatch_element<AllTypesKeys, AllTypesValues>(
      key, payload, [&](auto k, auto v) { return limits_of<decltype(k), decltype(v)>(sc, shared_round, device); });
}

template <typename K, typename V>
int sort_device(const Schedule& sc, const SortProblem& p, const Buffers<K, V>& b) {
  constexpr std::size_t kElementBytes = sizeof(K) + (has_values_v<V> ? sizeof(V) : 0);
  if (element_bytes(p.shape.key, p.shape.payload) != kElementBytes)
    throw std::logic_error("bitonic: the element type does not match the problem's key type and payload");
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  const LaunchShape sh = launch_shape(sc, p, b.device);
  const std::uint64_t padded = std::uint64_t{1} << sh.log_n;
  K* keys = b.keys[0];
  V* vals = b.vals[0];  // null without a value column
  const unsigned copy_blocks = grid_for(padded, sh.global_threads);
  if (padded != n) {
    keys = static_cast<K*>(b.workspace);
    if constexpr (has_values_v<V>)
      vals = reinterpret_cast<V*>(static_cast<char*>(b.workspace) + padded_vals_offset(padded, sizeof(K)));
    pad_kernel<K, V><<<copy_blocks, sh.global_threads, 0, b.stream>>>(b.keys[0], b.vals[0], keys, vals, n, padded);
    SB_CUDA_CHECK_LAUNCH();
  }
  launch_all<K, V>(sc, sh, keys, vals, b.stream, b.device);
  if (padded != n) {
    copy_back_kernel<K, V><<<copy_blocks, sh.global_threads, 0, b.stream>>>(keys, vals, b.keys[0], b.vals[0], n);
    SB_CUDA_CHECK_LAUNCH();
  }
  return 0;
}

// Every element type a schedule may take (AllTypesKeys x AllTypesValues); the seeds'
// schedules reach the 32-bit ones only.
#define SB_BITONIC_SORT(K, V) \
  template int sort_device<K, V>(const Schedule&, const SortProblem&, const Buffers<K, V>&);
SB_FOR_EACH_SCALAR_ELEMENT(SB_BITONIC_SORT)
#undef SB_BITONIC_SORT
static_assert(std::is_same_v<AllTypesKeys, ScalarKeys> && std::is_same_v<AllTypesValues, AllValues>,
              "the instantiations above cover ScalarKeys x AllValues");

}  // namespace sb::bitonic
