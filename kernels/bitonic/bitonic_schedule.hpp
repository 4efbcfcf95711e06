// Which kernel runs each (stage, step) of the bitonic network: the article's schedules
// (seed 003, its table columns B2 ... B2B4B8B16C2C4 and B2B4B8B16) and seed 000's split
// kernel. Host code only, unit-tested on the CPU (tests/bitonic/schedule_test.cpp).
//
// Departure from the article: its C2 runs once per stage, also for the first stages whose
// whole network fits one tile. Here one shared-memory launch runs all stages 1..log2(tile)
// (the same comparisons in the same order per element), which saves log2(tile) - 1 passes.
// bitonic-b32c16 is ours, not the article's: 5 steps per register pass (B32) and up to 4
// steps per shared-memory round (C16), for fewer global passes and barriers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sb::bitonic {

enum class Kernel {
  global_steps,  // B2 / B4 / B8 / B16 (/ B32): `steps` (1..5) consecutive steps in registers, one pass
  shared_steps,  // C2 / C4 (/ C16): the listed steps on tiles in shared memory, one pass
  split,         // seed 000: one step, n work items, half of them idle
};

struct Schedule {
  std::string name;           // registry name, e.g. "bitonic-b2b4b8b16c2c4"
  unsigned max_global_steps;  // 1 (B2) .. 4 (B16), 5 (B32: ours)
  bool shared;                // has C2: steps below the tile run in shared memory
  unsigned shared_round;      // steps per shared-memory round: 1 (C2), 2 (C2C4), 4 (C16: ours)
  bool split;                 // seed 000's kernel for every step (the rest is ignored)
  // Takes every scalar key type (u32, i32, f32, u64, i64, f64) and value column (none, index,
  // u32, u64): ours. The seeds' schedules keep the seeds' 32-bit keys and index payload.
  bool all_types;
};

const std::vector<Schedule>& schedules();

// One kernel launch: `count` consecutive (stage, step) pairs of the network, in network
// order (stage s = 1..L, step j = s-1..0), starting at (stage, step).
struct Launch {
  Kernel kernel;
  unsigned stage;
  unsigned step;
  unsigned count;
  // global_steps: the number of steps done in registers (== count).
  // shared_steps: the last stage it covers (the steps of every stage go down to 0).
  unsigned last_stage;
};

// The launches that sort 2^log_n elements; tile_log = log2(shared-memory tile elements).
std::vector<Launch> plan_launches(const Schedule& s, unsigned log_n, unsigned tile_log);

// The (stage, step) pairs of a launch, in order: what the CPU test checks coverage with.
struct StageStep {
  unsigned stage;
  unsigned step;
  bool operator==(const StageStep& o) const { return stage == o.stage && step == o.step; }
};
std::vector<StageStep> covered_pairs(const Launch& l);

// Bytes one run reads and writes in global memory: every launch reads and writes all 2^log_n
// elements once; padding (n below 2^log_n) adds reading n and writing 2^log_n, then copying n back.
std::uint64_t traffic_bytes(std::size_t launches, unsigned log_n, std::uint64_t n, std::size_t element_bytes);

// The article's kernel name of a launch (B2, B16, C2, C2C4, split), for the launch list in
// details; shared_round: steps per shared-memory round actually used (1, 2, 4).
std::string kernel_name(const Launch& l, unsigned shared_round);

// Most threads per block (a multiple of warp) with which `blocks` blocks of a kernel using
// regs_per_thread registers fit one SM's register file of regs_per_sm, registers being
// allocated per warp in units of alloc_unit. 0 when not even one warp per block fits.
unsigned threads_for_resident_blocks(unsigned regs_per_thread, unsigned regs_per_sm, unsigned blocks, unsigned warp,
                                     unsigned alloc_unit);

// What limits the blocks of a shared-memory kernel on one SM.
struct SmLimits {
  unsigned regs_per_thread;   // the kernel's
  unsigned max_block_threads; // the kernel's (registers) and the device's
  unsigned tiles_by_shared;   // tiles whose shared memory fits one SM
  unsigned threads_per_sm;
  unsigned blocks_per_sm;
  unsigned regs_per_sm;
  unsigned warp;
  unsigned alloc_unit;        // registers are allocated per warp in units of this many
};
struct SharedBlock {
  unsigned threads;  // per block
  unsigned blocks;   // resident per SM
};
// Blocks per SM of `threads` threads each.
unsigned resident_blocks(const SmLimits& l, unsigned threads);
// The block size of a shared-memory launch: a power of two from one warp up to `groups`
// (one group per thread in a round; more threads would idle), the one that keeps the most
// threads resident per SM; on a tie the smaller, so more tiles overlap their global loads
// and stores with other tiles' rounds. Powers of two divide the groups of every round evenly.
SharedBlock shared_block(const SmLimits& l, unsigned groups);

}  // namespace sb::bitonic
