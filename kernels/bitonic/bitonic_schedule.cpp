// The article's schedules as launch lists (seed 003; see bitonic_schedule.hpp).
#include "bitonic_schedule.hpp"

#include <algorithm>
#include <cstddef>

namespace sb::bitonic {

const std::vector<Schedule>& schedules() {
  static const std::vector<Schedule> all{
      {"bitonic-b2", 1, false, 1, false, false},
      {"bitonic-b2c2", 1, true, 1, false, false},
      {"bitonic-b2b4c2", 2, true, 1, false, false},
      {"bitonic-b2b4b8c2", 3, true, 1, false, false},
      {"bitonic-b2b4b8b16c2", 4, true, 1, false, false},
      {"bitonic-b2b4b8b16c2c4", 4, true, 2, false, false},
      {"bitonic-b2b4b8b16", 4, false, 1, false, false},
      {"bitonic-split", 1, false, 1, true, false},
      {"bitonic-b32c16", 5, true, 4, false, true},
      {"bitonic-b32c4", 5, true, 2, false, true},
  };
  return all;
}

namespace {

// Steps hi .. lo of stage s in global-memory kernels, the widest kernel first (B16 before
// B8 ...), as the article's combined columns do.
void add_global_steps(std::vector<Launch>& out, const Schedule& sc, unsigned s, unsigned hi, unsigned lo) {
  unsigned remaining = hi - lo + 1;
  unsigned j = hi;
  while (remaining > 0) {
    const unsigned k = std::min(sc.max_global_steps, remaining);
    out.push_back({Kernel::global_steps, s, j, k, s});
    j -= k;  // wraps below zero only when remaining reaches 0
    remaining -= k;
  }
}

}  // namespace

std::vector<Launch> plan_launches(const Schedule& sc, unsigned log_n, unsigned tile_log) {
  std::vector<Launch> out;
  if (sc.split) {
    for (unsigned s = 1; s <= log_n; ++s)
      for (unsigned j = s; j-- > 0;) out.push_back({Kernel::split, s, j, 1, s});
    return out;
  }
  unsigned first_global_stage = 1;
  if (sc.shared && tile_log > 0) {
    // Stages whose blocks fit one tile: one shared-memory launch for all of them.
    const unsigned local = std::min(tile_log, log_n);
    if (local > 0) out.push_back({Kernel::shared_steps, 1, 0, local * (local + 1) / 2, local});
    first_global_stage = local + 1;
  }
  for (unsigned s = first_global_stage; s <= log_n; ++s) {
    if (!sc.shared) {
      add_global_steps(out, sc, s, s - 1, 0);
      continue;
    }
    add_global_steps(out, sc, s, s - 1, tile_log);  // spacings of a tile and more
    out.push_back({Kernel::shared_steps, s, tile_log - 1, tile_log, s});
  }
  return out;
}

std::vector<StageStep> covered_pairs(const Launch& l) {
  std::vector<StageStep> out;
  unsigned s = l.stage, j = l.step;
  for (unsigned c = 0; c < l.count; ++c) {
    out.push_back({s, j});
    if (j == 0) {
      ++s;
      j = s - 1;
    } else {
      --j;
    }
  }
  return out;
}

std::uint64_t traffic_bytes(std::size_t launches, unsigned log_n, std::uint64_t n, std::size_t element_bytes) {
  if (n < 2) return 0;  // nothing runs
  const std::uint64_t padded = std::uint64_t{1} << log_n;
  std::uint64_t elements = 2 * padded * launches;
  if (padded != n) elements += (n + padded) + 2 * n;
  return elements * element_bytes;
}

std::string kernel_name(const Launch& l, unsigned shared_round) {
  switch (l.kernel) {
    case Kernel::global_steps: return "B" + std::to_string(1u << l.count);
    case Kernel::shared_steps: return shared_round == 4 ? "C16" : shared_round == 2 ? "C2C4" : "C2";
    case Kernel::split: break;
  }
  return "split";
}

unsigned threads_for_resident_blocks(unsigned regs_per_thread, unsigned regs_per_sm, unsigned blocks, unsigned warp,
                                     unsigned alloc_unit) {
  if (blocks == 0 || warp == 0) return 0;
  const unsigned per_warp = std::max(1u, (regs_per_thread * warp + alloc_unit - 1) / alloc_unit) * alloc_unit;
  return regs_per_sm / per_warp / blocks * warp;
}

unsigned resident_blocks(const SmLimits& l, unsigned threads) {
  if (threads == 0 || threads > l.max_block_threads) return 0;
  unsigned blocks = std::min({l.tiles_by_shared, l.blocks_per_sm, l.threads_per_sm / threads});
  while (blocks > 0 &&
         threads_for_resident_blocks(l.regs_per_thread, l.regs_per_sm, blocks, l.warp, l.alloc_unit) < threads)
    --blocks;
  return blocks;
}

SharedBlock shared_block(const SmLimits& l, unsigned groups) {
  SharedBlock best{std::min(l.warp, groups), resident_blocks(l, std::min(l.warp, groups))};
  for (unsigned t = best.threads * 2; t <= groups; t *= 2) {
    const unsigned b = resident_blocks(l, t);
    if (b * t > best.blocks * best.threads) best = {t, b};
  }
  return best;
}

}  // namespace sb::bitonic
