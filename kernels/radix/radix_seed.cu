// radix-lsd-seed host loop: seed 001's LSDSortGPU.py, one stable counting-sort pass per
// digit, least significant first (a row's word 3 first). Per pass: clear the bins,
// accumulator, log2(bins) up_sweep launches, clear the root, log2(bins) down_sweep
// launches, rearrange by one thread, then swap buffers.
// Departures: the host loop only enqueues (no read-back): the chapter reads the bins back
// to clear the root and keep the total; here a cudaMemsetAsync clears the root and the
// total (n) is not needed. Buffers ping-pong instead of the chapter's copy back to data.
// Types: the seed's 32-bit words (u32, i32, f32 and its u32x4 rows) and a 32-bit payload
// column (index or u32), SeedKeys x SeedValues; 64-bit keys and values are radix-lsd's.
#include "radix.hpp"
#include "radix_seed_kernels.cuh"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/launch.hpp"

namespace sb::radix {
namespace {

constexpr unsigned kBlock = 256;

}  // namespace

template <typename K, typename V>
int seed_sort(const Buffers<K, V>& b, const SortProblem& p) {
  static_assert(Contains<K, SeedKeys>::value && Contains<V, SeedValues>::value,
                "the seed sorts 32-bit words with a 32-bit payload column");
  const PassPlan plan = pass_plan(p);
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  const std::uint32_t bins = plan.bins();
  auto* count = static_cast<std::uint32_t*>(b.workspace);
  K* const* keys = b.keys;
  // The rearrange carries a 32-bit column or none (null).
  std::uint32_t* vals[2] = {nullptr, nullptr};
  if constexpr (Buffers<K, V>::has_values) vals[0] = b.vals[0], vals[1] = b.vals[1];
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

std::size_t seed_workspace_bytes(const SortProblem& p) { return pass_plan(p).bins() * sizeof(std::uint32_t); }

// Every (K, V) of SeedKeys x SeedValues.
#define SB_RADIX_SEED_INSTANTIATE(K)                                                 \
  template int seed_sort<K, NoValue>(const Buffers<K, NoValue>&, const SortProblem&); \
  template int seed_sort<K, std::uint32_t>(const Buffers<K, std::uint32_t>&, const SortProblem&);
SB_RADIX_SEED_INSTANTIATE(std::uint32_t)
SB_RADIX_SEED_INSTANTIATE(std::int32_t)
SB_RADIX_SEED_INSTANTIATE(float)
SB_RADIX_SEED_INSTANTIATE(Row4)
#undef SB_RADIX_SEED_INSTANTIATE
static_assert(std::is_same_v<SeedKeys, TypeList<std::uint32_t, std::int32_t, float, Row4>> &&
                  std::is_same_v<SeedValues, TypeList<NoValue, std::uint32_t>>,
              "instantiate seed_sort for every type of SeedKeys x SeedValues");

}  // namespace sb::radix
