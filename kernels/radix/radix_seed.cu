// radix-lsd-seed host loop: seed 001's LSDSortGPU.py, one stable counting-sort pass per
// digit, least significant first (a row's word 3 first). Per pass: clear the bins,
// accumulator, log2(bins) up_sweep launches, clear the root, log2(bins) down_sweep
// launches, rearrange by one thread, then swap buffers.
// Departures: the host loop only enqueues (no read-back): the chapter reads the bins back
// to clear the root and keep the total; here a cudaMemsetAsync clears the root and the
// total (n) is not needed. Buffers ping-pong instead of the chapter's copy back to data.
#include "radix.hpp"
#include "radix_seed_kernels.cuh"
#include "sortbench/cuda_check.hpp"
#include "sortbench/launch.hpp"

namespace sb::radix {
namespace {

constexpr unsigned kBlock = 256;

template <typename K>
int seed_sort_typed(const SortProblem& p, const DeviceBuffers& b) {
  const PassPlan plan = pass_plan(p);
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  const std::uint32_t bins = plan.bins();
  auto* count = static_cast<std::uint32_t*>(b.workspace);
  K* keys[2] = {static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1])};
  index_t* vals[2] = {p.has_payload() ? static_cast<index_t*>(b.vals[0]) : nullptr,
                      p.has_payload() ? static_cast<index_t*>(b.vals[1]) : nullptr};
  int src = 0;
  for (unsigned pass = 0; pass < plan.passes(); ++pass) {
    const DigitSelect sel = pass_select(plan, pass);
    SB_CUDA_CHECK(cudaMemsetAsync(count, 0, bins * sizeof(std::uint32_t), b.stream));
    seed::accumulator<K><<<grid_for(n, kBlock), kBlock, 0, b.stream>>>(keys[src], n, sel, count);
    SB_CUDA_CHECK_LAUNCH();
    const unsigned stages = blelloch_stages(bins);
    for (unsigned stage = 0; stage < stages; ++stage) {
      const std::uint32_t items = blelloch_work_items(bins, stage);
      seed::up_sweep<<<grid_for(items, kBlock), kBlock, 0, b.stream>>>(count, stage, items);
      SB_CUDA_CHECK_LAUNCH();
    }
    SB_CUDA_CHECK(cudaMemsetAsync(count + bins - 1, 0, sizeof(std::uint32_t), b.stream));  // the root
    for (unsigned stage = stages; stage-- > 0;) {
      const std::uint32_t items = blelloch_work_items(bins, stage);
      seed::down_sweep<<<grid_for(items, kBlock), kBlock, 0, b.stream>>>(count, stage, items);
      SB_CUDA_CHECK_LAUNCH();
    }
    seed::rearrange<K><<<1, 1, 0, b.stream>>>(keys[src], vals[src], count, sel, n, keys[1 - src],
                                               vals[1 - src]);
    SB_CUDA_CHECK_LAUNCH();
    src = 1 - src;
  }
  return src;
}

}  // namespace

std::size_t seed_workspace_bytes(const SortProblem& p) { return pass_plan(p).bins() * sizeof(std::uint32_t); }

int seed_sort(const SortProblem& p, const DeviceBuffers& b) {
  return dispatch_key<TypeList<std::uint32_t, std::int32_t, float, Row4>>(p.spec.key, [&](auto k) { return seed_sort_typed<decltype(k)>(p, b); });
}

}  // namespace sb::radix
