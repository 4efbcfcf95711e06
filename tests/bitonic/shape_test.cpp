// The host arithmetic of a launch shape (bitonic_shape.cpp) on a made-up H200, for 32-bit and
// 64-bit elements: tile sizes from the bytes of a key and its value, the blocks that fit, the
// workspace of the padded buffers; and the element types each schedule declares.
#include <gtest/gtest.h>

#include <string>

#include "bitonic_sort.hpp"
#include "sortbench/core/errors.hpp"

namespace sb::bitonic {
namespace {

// H200 (cudaDeviceProp): 227 KiB opt-in shared memory per block, 228 KiB per SM, 1 KiB
// reserved per block; 2048 threads, 32 blocks and 65536 registers per SM.
constexpr DeviceLimits kH200{32, 1024, 232448, 233472, 1024, 2048, 32, 65536};

const Schedule& schedule(const std::string& name) {
  for (const Schedule& s : schedules())
    if (s.name == name) return s;
  throw std::logic_error("no schedule " + name);
}

SortProblem problem(std::uint64_t n, KeyType key, Payload payload, const Params& params = {}) {
  SortProblem p;
  p.shape.n = n;
  p.shape.key = key;
  p.shape.payload = payload;
  p.params = params;
  return p;
}

TEST(BitonicShape, ElementBytesCountEightByteKeysAndValues) {
  EXPECT_EQ(element_bytes(KeyType::u32, Payload::none), 4u);
  EXPECT_EQ(element_bytes(KeyType::f32, Payload::index), 8u);
  EXPECT_EQ(element_bytes(KeyType::i32, Payload::u32), 8u);
  EXPECT_EQ(element_bytes(KeyType::u32, Payload::u64), 12u);
  EXPECT_EQ(element_bytes(KeyType::u64, Payload::none), 8u);
  EXPECT_EQ(element_bytes(KeyType::i64, Payload::index), 12u);
  EXPECT_EQ(element_bytes(KeyType::u64, Payload::u64), 16u);
  EXPECT_EQ(element_bytes(KeyType::f64, Payload::u64), 16u);
}

TEST(BitonicShape, DefaultTileHalvesForSixteenByteElements) {
  // Two tiles and their reserved KiB within 228 KiB per SM.
  EXPECT_EQ(default_tile(4, kH200), 16384u);  // u32 keys alone: 64 KiB
  EXPECT_EQ(default_tile(8, kH200), 8192u);   // f32 + index, or u64 alone: 64 KiB
  EXPECT_EQ(default_tile(12, kH200), 8192u);  // u64 + u32: 96 KiB
  EXPECT_EQ(default_tile(16, kH200), 4096u);  // u64 + u64, f64 + u64: 64 KiB
}

TEST(BitonicShape, SharedLaunchOfThirtyTwoBitElements) {
  // bitonic-b32c16, f32 keys with an index payload: C16 at 128 registers, 2 x 256 threads
  // (docs/bitonic.md).
  const LaunchShape sh = launch_shape(schedule("bitonic-b32c16"), problem(std::uint64_t{1} << 27, KeyType::f32,
                                                                         Payload::index),
                                      kH200, KernelLimits{512, 512, 128});
  EXPECT_EQ(sh.log_n, 27u);
  EXPECT_EQ(sh.tile_log, 13u);
  EXPECT_EQ(sh.tile_bytes, 65536u);
  EXPECT_EQ(sh.shared_round, 4u);
  EXPECT_EQ(sh.shared_threads, 256u);
  EXPECT_EQ(sh.tiles_per_sm, 2u);
  EXPECT_EQ(sh.global_threads, 256u);
  // bitonic-b2b4b8b16c2c4 (a seed schedule), C2C4 at 40 registers: 3 x 512.
  const LaunchShape c4 = launch_shape(schedule("bitonic-b2b4b8b16c2c4"),
                                      problem(std::uint64_t{1} << 27, KeyType::f32, Payload::index), kH200,
                                      KernelLimits{1024, 1024, 40});
  EXPECT_EQ(c4.tile_log, 13u);
  EXPECT_EQ(c4.shared_threads, 512u);
  EXPECT_EQ(c4.tiles_per_sm, 3u);
}

TEST(BitonicShape, SharedLaunchOfSixtyFourBitElements) {
  // u64 keys with a u64 payload: 4096-element tiles of 64 KiB, three per SM by shared
  // memory; C16 at 158 registers (12 warps per SM) keeps 3 x 128 threads resident.
  const Schedule& b32c16 = schedule("bitonic-b32c16");
  const LaunchShape sh = launch_shape(b32c16, problem(std::uint64_t{1} << 27, KeyType::u64, Payload::u64), kH200,
                                      KernelLimits{384, 384, 158});
  EXPECT_EQ(sh.tile_log, 12u);
  EXPECT_EQ(sh.tile_bytes, 65536u);
  EXPECT_EQ(sh.shared_threads, 128u);
  EXPECT_EQ(sh.tiles_per_sm, 3u);
  EXPECT_EQ(sh.global_threads, 256u);
  // A register limit below the default block shrinks the global kernels' block.
  EXPECT_EQ(launch_shape(b32c16, problem(1000, KeyType::u64, Payload::u64), kH200, KernelLimits{200, 384, 158})
                .global_threads,
            192u);
  // f64 keys alone: 8 bytes an element, 8192-element tiles.
  const LaunchShape f64 = launch_shape(schedule("bitonic-b32c4"), problem(std::uint64_t{1} << 20, KeyType::f64,
                                                                          Payload::none),
                                       kH200, KernelLimits{1024, 1024, 34});
  EXPECT_EQ(f64.tile_log, 13u);
  EXPECT_EQ(f64.tile_bytes, 65536u);
  EXPECT_EQ(f64.shared_round, 2u);
  // u64 keys with a 32-bit payload: 12 bytes, 8192-element tiles of 96 KiB, two per SM.
  const LaunchShape u64_u32 = launch_shape(b32c16, problem(std::uint64_t{1} << 20, KeyType::u64, Payload::u32),
                                           kH200, KernelLimits{384, 384, 158});
  EXPECT_EQ(u64_u32.tile_log, 13u);
  EXPECT_EQ(u64_u32.tile_bytes, 98304u);
  EXPECT_EQ(u64_u32.shared_threads, 128u);  // 2 x 128 (1 x 256 keeps as many threads)
  EXPECT_EQ(u64_u32.tiles_per_sm, 2u);
  // A tile never exceeds the padded size.
  const LaunchShape small = launch_shape(b32c16, problem(1000, KeyType::u64, Payload::u64), kH200,
                                         KernelLimits{384, 384, 158});
  EXPECT_EQ(small.tile_log, 10u);
  EXPECT_EQ(small.tile_bytes, 16384u);
}

TEST(BitonicShape, TileParameterCountsSixteenByteElements) {
  const Schedule& b32c16 = schedule("bitonic-b32c16");
  const KernelLimits limits{384, 384, 158};
  // 8192 elements of 16 bytes, 128 KiB, fit one block's 227 KiB (one tile per SM).
  const LaunchShape sh = launch_shape(b32c16, problem(std::uint64_t{1} << 20, KeyType::u64, Payload::u64,
                                                      {{"tile", "8192"}}),
                                      kH200, limits);
  EXPECT_EQ(sh.tile_bytes, 131072u);
  EXPECT_EQ(sh.tiles_per_sm, 1u);
  // 16384 of them, 256 KiB, do not; as 12-byte elements (f64 + index, 192 KiB) they do.
  EXPECT_THROW(launch_shape(b32c16, problem(std::uint64_t{1} << 20, KeyType::u64, Payload::u64, {{"tile", "16384"}}),
                            kH200, limits),
               UsageError);
  EXPECT_THROW(launch_shape(b32c16, problem(std::uint64_t{1} << 20, KeyType::f64, Payload::u64, {{"tile", "16384"}}),
                            kH200, limits),
               UsageError);
  EXPECT_EQ(launch_shape(b32c16, problem(std::uint64_t{1} << 20, KeyType::f64, Payload::index, {{"tile", "16384"}}),
                         kH200, limits)
                .tile_bytes,
            196608u);
  EXPECT_THROW(launch_shape(b32c16, problem(std::uint64_t{1} << 20, KeyType::f64, Payload::index, {{"tile", "32768"}}),
                            kH200, limits),
               UsageError);
  EXPECT_THROW(launch_shape(b32c16, problem(100, KeyType::u64, Payload::u64, {{"round", "3"}}), kH200, limits),
               UsageError);
}

TEST(BitonicShape, WorkspaceHoldsPaddedSixtyFourBitKeysAndValues) {
  // Keys, then values at a 256-byte boundary.
  EXPECT_EQ(padded_vals_offset(1024, 8), 8192u);
  EXPECT_EQ(padded_vals_offset(4, 8), 256u);
  EXPECT_EQ(padded_vals_offset(4, 4), 256u);
  EXPECT_EQ(workspace_bytes(problem(1000, KeyType::u64, Payload::u64)), 1024u * 8 + 1024u * 8);
  EXPECT_EQ(workspace_bytes(problem(1000, KeyType::f64, Payload::none)), 1024u * 8);
  EXPECT_EQ(workspace_bytes(problem(1000, KeyType::u32, Payload::u64)), 1024u * 4 + 1024u * 8);
  EXPECT_EQ(workspace_bytes(problem(1000, KeyType::i64, Payload::index)), 1024u * 8 + 1024u * 4);
  EXPECT_EQ(workspace_bytes(problem(3, KeyType::u64, Payload::u64)), 256u + 4u * 8);
  EXPECT_EQ(workspace_bytes(problem(1024, KeyType::u64, Payload::u64)), 0u);  // no padding
  EXPECT_EQ(workspace_bytes(problem(1, KeyType::u64, Payload::u64)), 0u);
}

// The seeds' schedules keep the seeds' 32-bit keys and index payload; ours take every
// scalar key type and value column (register.cpp declares these lists).
TEST(BitonicTypes, SchedulesDeclareTheirElementTypes) {
  EXPECT_EQ(key_types_of(SeedKeys{}), (std::vector<KeyType>{KeyType::u32, KeyType::i32, KeyType::f32}));
  EXPECT_EQ(payloads_of(SeedValues{}), (std::vector<Payload>{Payload::none, Payload::index, Payload::u32}));
  EXPECT_EQ(key_types_of(AllTypesKeys{}), (std::vector<KeyType>{KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u64,
                                                                KeyType::i64, KeyType::f64}));
  EXPECT_EQ(payloads_of(AllTypesValues{}),
            (std::vector<Payload>{Payload::none, Payload::index, Payload::u32, Payload::u64}));
  for (const Schedule& s : schedules())
    EXPECT_EQ(s.all_types, s.name == "bitonic-b32c16" || s.name == "bitonic-b32c4") << s.name;
}

}  // namespace
}  // namespace sb::bitonic
