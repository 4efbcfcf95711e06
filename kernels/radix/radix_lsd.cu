// radix-lsd host launcher: per digit pass (radix_index.hpp, PassPlan) histogram_kernel,
// scan_rows_kernel + scan_totals_kernel, scatter_kernel; buffers ping-pong between passes.
// Workspace: counts[bins][blocks] and row_total[bins], 64-bit (n may pass 2^32).
#include <algorithm>

#include <fmt/format.h>

#include "radix.hpp"
#include "radix_lsd_kernels.cuh"
#include "sortbench/cuda_check.hpp"

namespace sb::radix {
namespace {

unsigned sm_count() {
  static const unsigned count = [] {
    int device = 0;
    SB_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    SB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return static_cast<unsigned>(prop.multiProcessorCount);
  }();
  return count;
}

// Scatter blocks resident at once per SM: the grid is one wave of them, each block with a
// long contiguous run of tiles (the histogram uses the same split).
template <typename K, bool kPayload>
unsigned resident_scatter_blocks() {
  static const unsigned blocks = [] {
    int b = 0;
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, lsd::scatter_kernel<K, kPayload>, lsd::kThreads, 0));
    return static_cast<unsigned>(b > 0 ? b : 1);
  }();
  return blocks;
}

struct Layout {
  PassPlan plan;
  TileSplit split;
  std::size_t counts_bytes = 0;  // bins * blocks counts, then bins row totals
};

std::size_t align256(std::size_t b) { return (b + 255) & ~std::size_t{255}; }

Layout layout_of(const SortProblem& p) {
  Layout l;
  l.plan = pass_plan(p);
  dispatch_key<TypeList<std::uint32_t, std::int32_t, float, Row4>>(p.spec.key, [&](auto k) {
    using K = decltype(k);
    const unsigned per_sm = p.has_payload() ? resident_scatter_blocks<K, true>() : resident_scatter_blocks<K, false>();
    l.split = make_tile_split(p.n(), lsd::TileShape<K>::keys, sm_count() * per_sm);
  });
  l.counts_bytes = align256(std::size_t{l.plan.bins()} * l.split.blocks * sizeof(std::uint64_t));
  return l;
}

template <typename K>
int lsd_sort_typed(const SortProblem& p, const DeviceBuffers& b, const PhaseHook& hook) {
  const Layout l = layout_of(p);
  const std::uint64_t n = p.n();
  if (n < 2) return 0;
  auto* counts = static_cast<std::uint64_t*>(b.workspace);
  auto* row_total = reinterpret_cast<std::uint64_t*>(static_cast<char*>(b.workspace) + l.counts_bytes);
  const K* keys_in[2] = {static_cast<const K*>(b.keys[0]), static_cast<const K*>(b.keys[1])};
  K* keys_out[2] = {static_cast<K*>(b.keys[0]), static_cast<K*>(b.keys[1])};
  const unsigned blocks = l.split.blocks, bins = l.plan.bins();
  int src = 0;
  for (unsigned pass = 0; pass < l.plan.passes(); ++pass) {
    const DigitSelect sel = pass_select(l.plan, pass);
    const int dst = 1 - src;
    lsd::histogram_kernel<K><<<blocks, lsd::kThreads, 0, b.stream>>>(keys_in[src], n, sel, l.split, counts);
    SB_CUDA_CHECK_LAUNCH();
    if (hook) hook(pass, LsdPhase::histogram);
    lsd::scan_rows_kernel<<<bins, lsd::kThreads, 0, b.stream>>>(counts, blocks, row_total);
    SB_CUDA_CHECK_LAUNCH();
    lsd::scan_totals_kernel<<<1, lsd::kThreads, 0, b.stream>>>(row_total, bins);
    SB_CUDA_CHECK_LAUNCH();
    if (hook) hook(pass, LsdPhase::scan);
    if (p.has_payload())
      lsd::scatter_kernel<K, true><<<blocks, lsd::kThreads, 0, b.stream>>>(
          keys_in[src], static_cast<const index_t*>(b.vals[src]), keys_out[dst], static_cast<index_t*>(b.vals[dst]), n,
          sel, l.split, counts, row_total);
    else
      lsd::scatter_kernel<K, false><<<blocks, lsd::kThreads, 0, b.stream>>>(keys_in[src], nullptr, keys_out[dst],
                                                                            nullptr, n, sel, l.split, counts,
                                                                            row_total);
    SB_CUDA_CHECK_LAUNCH();
    if (hook) hook(pass, LsdPhase::scatter);
    src = dst;
  }
  return src;
}

}  // namespace

std::size_t lsd_workspace_bytes(const SortProblem& p) {
  const Layout l = layout_of(p);
  return l.counts_bytes + lsd::kMaxBins * sizeof(std::uint64_t);
}

int lsd_sort(const SortProblem& p, const DeviceBuffers& b, const PhaseHook& hook) {
  return dispatch_key<TypeList<std::uint32_t, std::int32_t, float, Row4>>(p.spec.key, [&](auto k) { return lsd_sort_typed<decltype(k)>(p, b, hook); });
}

std::string lsd_launch_summary(const SortProblem& p) {
  const Layout l = layout_of(p);
  return fmt::format("{} keys/tile, {} blocks x {} threads, {} tiles/block", l.split.tile, l.split.blocks,
                     lsd::kThreads, l.split.tiles_per_block);
}

}  // namespace sb::radix
