// The scan and expansion of the faster H-P versions (beyond seed 004; method notes in
// docs/hp.md): the fused scan's functors that emit the compressed runs (bin value, run end),
// and the expansion that writes y straight from them with coalesced 16-byte stores, replacing
// the paper's zeroed B array and its full prefix sum (Algorithm 5 lines 13-17).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hp_fast_device.cuh"

namespace sb::hp::fast {

// Fused binarize + prefix sums + compressA01p (Algorithm 5 lines 2-11 and the Ap of
// Algorithm 2 line 2): CUB scans pack_bin(A[i]); this output functor receives (i, scan) and
// writes the run of every non-empty bin: its value and its end in the output.
// Count: the width of the counts (u32; u64 where n >= 2^32, whose scan adds WideBinSum pairs).
template <typename Count>
struct BinScanOf {
  using type = u64;
};
template <>
struct BinScanOf<u64> {
  using type = WideBinSum;
};
template <typename Count = u32>
struct PackBin {
  const Count* A;
  __host__ __device__ typename BinScanOf<Count>::type operator()(u64 i) const {
    if constexpr (sizeof(Count) == 4) return pack_bin(A[i]);
    else return pack_wide_bin(A[i]);
  }
};
template <typename W, typename Count = u32>
struct EmitRun {
  const Count* A;
  Count* run_end;
  W* run_val;
  Count* len;
  u64 range;
  W min_word;
  __device__ void operator()(std::ptrdiff_t i, typename BinScanOf<Count>::type scan) const {
    if (A[i]) {
      const auto j = packed_nonzero(scan) - 1;
      run_end[j] = packed_count(scan);
      run_val[j] = word_at<W>(static_cast<u32>(i), min_word);
    }
    if (static_cast<u64>(i) == range - 1) *len = packed_nonzero(scan);
  }
};
// The same over 64-bit counts packed in one word (wide_pack_shift != 0): a scan of 8-byte words.
struct PackWideBin {
  const u64* A;
  unsigned shift;
  __host__ __device__ u64 operator()(u64 i) const { return pack_bin(A[i], shift); }
};
template <typename W>
struct EmitPackedRun {
  const u64* A;
  u64* run_end;
  W* run_val;
  u64* len;
  u64 range;
  W min_word;
  unsigned shift;
  __device__ void operator()(std::ptrdiff_t i, u64 scan) const {
    if (A[i]) {
      const u64 j = packed_nonzero(scan, shift) - 1;
      run_end[j] = packed_count(scan, shift);
      run_val[j] = word_at<W>(static_cast<u32>(i), min_word);
    }
    if (static_cast<u64>(i) == range - 1) *len = packed_nonzero(scan, shift);
  }
};

// The expansion: tile t of y holds the runs from the first one ending after t0 to the one
// covering the tile's last position, at most one per position. locate_tiles finds every
// tile's window of runs at once, a warp per tile, each half-warp searching for one end of
// the window 16 ways at a time (wide_probe, wide_narrow): a thread per tile with two binary
// searches waited on 44 dependent loads (docs/hp.md, locate_tiles), and done by each tile's
// own block, the searches left the block idle. expand_runs stages
// the window in shared memory and every thread writes 16 consecutive bytes of keys per store.
constexpr unsigned kExpandBlock = 256;
constexpr unsigned kExpandTile = kExpandBlock * 16;
constexpr unsigned kLocateThreadsPerTile = 32;  // two searches of kLocateWays lanes
// len_at: the runs' count, written by the scan that emitted them; null: `runs` (the dense
// expansion's, one a bin).
template <typename Count>
__global__ void locate_tiles(const Count* run_end, const Count* len_at, u64 runs, u64 n, uint2* window) {
  const u64 tiles = ceil_div(n, kExpandTile);
  const u64 len = len_at ? u64{*len_at} : runs;
  const u32 half = lane_id() / kLocateWays, k = lane_id() % kLocateWays;
  const u64 warps = global_threads() / 32;
  for (u64 t = global_thread() / 32; t < tiles; t += warps) {
    const u64 t0 = t * kExpandTile;
    const u64 pos = half == 0 ? t0 : min_u64(t0 + kExpandTile, n) - 1;
    RunSpan s{0, len - 1};
    while (__any_sync(0xffffffffu, s.lo < s.hi)) {
      const bool searching = s.lo < s.hi;
      const bool at_or_below = searching && run_end[wide_probe(s, k, kLocateWays)] <= pos;
      const u32 votes = __ballot_sync(0xffffffffu, at_or_below) >> (half * kLocateWays) & 0xffffu;
      if (searching) s = wide_narrow(s, static_cast<u32>(__popc(votes)), kLocateWays);
    }
    const u64 last = __shfl_sync(0xffffffffu, s.lo, kLocateWays);
    if (lane_id() == 0) window[t] = make_uint2(static_cast<u32>(s.lo), static_cast<u32>(last + 1 - s.lo));
  }
}

// Positions and run ends inside a tile are 32-bit offsets from the tile's start. A thread's
// positions only grow, so with few runs in the window it walks on from its last run instead
// of searching again.
constexpr u32 kExpandWalkMax = 32;
// With 8-byte words the staged window takes the whole 48 KB of static shared memory.
// Dense (dense_expansion): run j is bin first + j of the window, its value min_word + bin (no
// run_val); a window of more bins than the tile has positions (empty bins between its keys)
// is expanded by a search per position instead of being staged.
template <typename W, typename Count = u32, bool Dense = false>
__global__ void __launch_bounds__(kExpandBlock) expand_runs(const Count* run_end, const W* run_val, W min_word,
                                                            const uint2* window, u64 n, W* y) {
  __shared__ u32 s_end[kExpandTile];
  __shared__ W s_val[Dense ? 1 : kExpandTile];
  const u64 t0 = blockIdx.x * u64{kExpandTile};
  const u32 tile_len = static_cast<u32>(min_u64(kExpandTile, n - t0));
  const uint2 w = window[blockIdx.x];
  const u32 first = w.x, count = w.y;
  W* tile = y + t0;
  auto value_of = [&](u32 j) {
    if constexpr (Dense) return word_at<W>(first + j, min_word);
    else return s_val[j];
  };
  if constexpr (Dense) {
    if (count > kExpandTile) {  // uniform over the block: it leaves before the barrier together
      for (u32 pos = threadIdx.x; pos < tile_len; pos += blockDim.x)
        tile[pos] = value_of(run_at<u64, Count>(run_end + first, 0, count, t0 + pos));
      return;
    }
  }
  for (u32 k = threadIdx.x; k < count; k += blockDim.x) {
    s_end[k] = static_cast<u32>(run_end[first + k] - t0);  // > 0: the window's runs end after t0
    if constexpr (!Dense) s_val[k] = run_val[first + k];
  }
  __syncthreads();
  // Each thread writes 16 bytes a step, the warp 512 consecutive bytes: four 4-byte keys or
  // two 8-byte ones (four 8-byte keys a thread in two 16-byte stores, each store instruction
  // covering every other 16 bytes of 1 KB, were slower). The stores stream (evict first):
  // nothing reads the output back here (docs/hp.md, expand_runs' stores).
  constexpr u32 per = 16 / sizeof(W);
  u32 j = 0;
  for (u32 pos = per * threadIdx.x; pos < tile_len; pos += per * kExpandBlock) {
    if (count > kExpandWalkMax) j = run_at(s_end, 0u, count, pos);
    W v[per];
#pragma unroll
    for (u32 q = 0; q < per; ++q) {
      while (j + 1 < count && s_end[j] <= pos + q) ++j;
      v[q] = value_of(j);
    }
    if (pos + per <= tile_len) {
      if constexpr (sizeof(W) == 4) __stcs(reinterpret_cast<uint4*>(tile + pos), make_uint4(v[0], v[1], v[2], v[3]));
      else __stcs(reinterpret_cast<ulonglong2*>(tile + pos), make_ulonglong2(v[0], v[1]));
    } else {
#pragma unroll
      for (u32 q = 0; q < per; ++q)
        if (pos + q < tile_len) tile[pos + q] = v[q];
    }
  }
}

}  // namespace sb::hp::fast
