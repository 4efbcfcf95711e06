// radix-lsd host launcher: per digit pass (radix_index.hpp, PassPlan) histogram_kernel,
// scan_rows_kernel + scan_totals_kernel, scatter_kernel; buffers ping-pong between passes.
// Written once over (K, V): every key type (64-bit keys sort by 64-bit ordered words) and
// every value column (none, 32-bit, 64-bit).
// Workspace: counts[bins][blocks] and row_total[bins], 64-bit (n may pass 2^32).
#include <algorithm>

#include <fmt/format.h>

#include "radix.hpp"
#include "radix_lsd_kernels.cuh"
#include "sortbench/core/cuda_check.hpp"

namespace sb::radix {
namespace {

// Scatter blocks resident at once on `device` for element type (K, V) (its lsd::TileShape): the
// grid is one wave of them, each block with a long contiguous run of tiles (the histogram uses
// the same split). From the context's memo, asked once per device (a process may run on
// several GPUs, docs/architecture.md, "Devices and contexts"; the run reads it in its timed
// region); without a context, asked of the current device.
template <typename K, typename V>
unsigned resident_scatter_blocks(const DeviceContext* device) {
  const int per_sm = kernel_blocks_per_sm(device, reinterpret_cast<const void*>(lsd::scatter_kernel<K, V>),
                                          lsd::kThreads, 0);
  return static_cast<unsigned>(std::max(per_sm, 1)) * static_cast<unsigned>(multiprocessor_count(device));
}

struct Layout {
  PassPlan plan;
  TileSplit split;
  std::size_t counts_bytes = 0;  // bins * blocks counts, then bins row totals
};

std::size_t align256(std::size_t b) { return (b + 255) & ~std::size_t{255}; }

// The layout on `device` (the problem's when the caller passes none): workspace_bytes and the
// run read the same GPU, so they agree.
template <typename K, typename V>
Layout layout_of(const SortProblem& p, const DeviceContext* device) {
  Layout l;
  l.plan = pass_plan(p);
  l.split = make_tile_split(p.n(), lsd::TileShape<K, V>::keys, resident_scatter_blocks<K, V>(device));
  l.counts_bytes = align256(std::size_t{l.plan.bins()} * l.split.blocks * sizeof(std::uint64_t));
  return l;
}

Layout layout_of(const SortProblem& p) {
  return dispatch_element<LsdKeys, LsdValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    return layout_of<decltype(k), decltype(v)>(p, p.device);
  });
}

}  // namespace

template <typename K, typename V>
int lsd_sort(const Buffers<K, V>& b, const SortProblem& p, const PhaseHook& hook) {
  const Layout l = layout_of<K, V>(p, b.device ? b.device : p.device);
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  auto* counts = static_cast<std::uint64_t*>(b.workspace);
  auto* row_total = reinterpret_cast<std::uint64_t*>(static_cast<char*>(b.workspace) + l.counts_bytes);
  const unsigned blocks = l.split.blocks, bins = l.plan.bins();
  int src = 0;
  for (unsigned pass = 0; pass < l.plan.passes(); ++pass) {
    const DigitSelect sel = pass_select(l.plan, pass);
    const int dst = 1 - src;
    lsd::histogram_kernel<K><<<blocks, lsd::kThreads, 0, b.stream>>>(b.keys[src], n, sel, l.split, counts);
    SB_CUDA_CHECK_LAUNCH();
    if (hook) hook(pass, LsdPhase::histogram);
    lsd::scan_rows_kernel<<<bins, lsd::kThreads, 0, b.stream>>>(counts, blocks, row_total);
    SB_CUDA_CHECK_LAUNCH();
    lsd::scan_totals_kernel<<<1, lsd::kThreads, 0, b.stream>>>(row_total, bins);
    SB_CUDA_CHECK_LAUNCH();
    if (hook) hook(pass, LsdPhase::scan);
    lsd::scatter_kernel<K, V><<<blocks, lsd::kThreads, 0, b.stream>>>(
        b.keys[src], b.vals[src], b.keys[dst], b.vals[dst], n, sel, l.split, counts, row_total);
    SB_CUDA_CHECK_LAUNCH();
    if (hook) hook(pass, LsdPhase::scatter);
    src = dst;
  }
  return src;
}

std::size_t lsd_workspace_bytes(const SortProblem& p) {
  const Layout l = layout_of(p);
  return l.counts_bytes + lsd::kMaxBins * sizeof(std::uint64_t);
}

int lsd_sort(const SortProblem& p, const DeviceBuffers& b, const PhaseHook& hook) {
  return dispatch_element<LsdKeys, LsdValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
    return lsd_sort(typed_buffers<decltype(k), decltype(v)>(b), p, hook);
  });
}

std::string lsd_launch_summary(const SortProblem& p) {
  const Layout l = layout_of(p);
  return fmt::format("{} keys/tile, {} blocks x {} threads, {} tiles/block", l.split.tile, l.split.blocks,
                     lsd::kThreads, l.split.tiles_per_block);
}

// Every (K, V) of LsdKeys x LsdValues.
#define SB_RADIX_LSD_INSTANTIATE_KV(K, V) \
  template int lsd_sort<K, V>(const Buffers<K, V>&, const SortProblem&, const PhaseHook&);
#define SB_RADIX_LSD_INSTANTIATE(K)             \
  SB_RADIX_LSD_INSTANTIATE_KV(K, NoValue)       \
  SB_RADIX_LSD_INSTANTIATE_KV(K, std::uint32_t) \
  SB_RADIX_LSD_INSTANTIATE_KV(K, std::uint64_t)
SB_RADIX_LSD_INSTANTIATE(std::uint32_t)
SB_RADIX_LSD_INSTANTIATE(std::int32_t)
SB_RADIX_LSD_INSTANTIATE(float)
SB_RADIX_LSD_INSTANTIATE(std::uint64_t)
SB_RADIX_LSD_INSTANTIATE(std::int64_t)
SB_RADIX_LSD_INSTANTIATE(double)
SB_RADIX_LSD_INSTANTIATE(Row4)
#undef SB_RADIX_LSD_INSTANTIATE
#undef SB_RADIX_LSD_INSTANTIATE_KV
static_assert(std::is_same_v<LsdKeys, AllKeys> && std::is_same_v<LsdValues, AllValues> &&
                  std::is_same_v<AllKeys, TypeList<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t,
                                                   double, Row4>> &&
                  std::is_same_v<AllValues, TypeList<NoValue, std::uint32_t, std::uint64_t>>,
              "instantiate lsd_sort for every type of LsdKeys x LsdValues");

}  // namespace sb::radix
