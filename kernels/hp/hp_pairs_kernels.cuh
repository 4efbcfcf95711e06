// Placement of (key, value) pairs by the faster H-P versions (beyond seed 004; method notes
// in docs/hp.md): hp-tiled's groups placing their batches in slot order (stable or not), and
// the other variants' scatter to each bin's cursor.
#pragma once

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "hp_tiled_kernels.cuh"

namespace sb::hp::fast {

// ---- hp-tiled with a payload: the groups place their pairs ----
// After segment_hist (with bin_total) and the scan of the totals, group g of bucket b's first
// slot of bin x is start[x] plus the counts of the groups before it (group_cursors). Up to
// kInlineCursorGroups groups a block adds those itself; with more, spread_cursors has made
// H[g * range + x] the slot (blocks adding g rows each would read groups^2 / 2 rows in all).
// A group takes its tiles' segments a batch at a time (consecutive tiles whose segments fit
// in kTile slots), counting-sorts the batch by bin in shared memory and stores it in slot
// order, so that a warp's stores cover runs of consecutive slots: a store a pair at its
// slot, a bin's pairs kTile / bins apart in time, would leave each 32-byte sector to be
// filled by up to 8 separate stores. Equal keys take their slots in shared-atomic order:
// not stable. Stable (hp-tiled-stable): groups, batches and stable-grouped segments keep
// input order, so a batch's elements are in input order, and it is ranked by bin in two
// count_warp_digits passes (low digit, then high) instead of by atomics. The sorted batch
// then finds its bins' first and last slots itself, so only the bins present move their
// cursors (the atomic path scans, moves and clears every bin of the bucket per batch).
constexpr unsigned kPlaceBlock = 512;
constexpr u32 kInlineCursorGroups = 8;
constexpr unsigned kPlaceItems = kTile / kPlaceBlock;
// A batch element's (bin, rank) and a slot's (bin, element) share a word: the bin above
// kSlotBits bits (buckets of at most 2^14 bins fit beside a batch, 27 bits in all).
constexpr unsigned kSlotBits = 13;
static_assert(kTile == 1u << kSlotBits, "a batch slot or element takes kSlotBits bits");
constexpr u32 kSlotMask = kTile - 1;
// Values and slot order of one batch, the bins' cursors, the batch's segment ends and
// starts, and the bins' counts (Stable: the two passes' warp counts and the batch's bins).
// Two blocks share an SM with 4-byte values and 2^12-bin buckets, one otherwise (its
// registers are then not capped).
static_assert(kPlaceBlock == kTileBlock, "count_warp_digits has kRankWarps warps");
constexpr std::size_t place_shared_bytes(unsigned low_bits, std::size_t value_bytes, bool stable = false) {
  return std::size_t{kTile} * (value_bytes + sizeof(u32)) + std::size_t{padded_bins(1u << low_bits)} * sizeof(u32) +
         2 * std::size_t{kPlaceBlock} * sizeof(u32) +
         (stable ? warp_counts_bytes(1u << ordinal_digit_bits(low_bits)) + std::size_t{kTile} * sizeof(std::uint16_t) +
                       (std::size_t{1} << low_bits)
                 : std::size_t{padded_bins(1u << low_bits)} * sizeof(u32));
}
using PlaceScan = cub::BlockScan<u32, kPlaceBlock>;
// Stable: sorts a batch's elements (element j0 + 32 * it of a thread: warp-major order; its
// bin in s_bin[j]) into s_perm as (bin, element) words, by bin and by element inside a bin.
// Where the bucket holds at most 2^ordinal_digit_bits present bins, one count_warp_digits
// pass over their ordinals (s_ord) does it; otherwise LSD passes over the bin's low digit and
// its high one. An item is its element with its rank above kSlotBits, one register: with the
// bins and ranks in registers too, two 512-thread blocks an SM spilled. Waits for the batch's
// values (cp.async) before its first barrier and ends with one.
__device__ __forceinline__ void sort_batch_by_bin(u32 j0, u32 total, const unsigned (&digit_bits)[2],
                                                  std::uint16_t* const (&count)[2], PlaceScan::TempStorage& scan,
                                                  const std::uint16_t* s_bin, const std::uint8_t* s_ord,
                                                  u32 present_bins, unsigned ordinal_bits, u32* s_perm) {
  const u32 warp = threadIdx.x / 32;
  const bool by_ordinal = present_bins <= 1u << ordinal_bits;
  const unsigned passes = by_ordinal ? 1 : 2;
  u32 item[kPlaceItems];
#pragma unroll
  for (unsigned it = 0; it < kPlaceItems; ++it) item[it] = j0 + 32 * it;
#pragma unroll 1
  for (unsigned pass = 0; pass < passes; ++pass) {
    const unsigned bits = by_ordinal ? bits_for_range(present_bins) : pass ? digit_bits[1] : digit_bits[0];
    const unsigned shift = pass ? digit_bits[0] : 0;
    const u32 digits = by_ordinal ? present_bins : 1u << bits;
    const bool last = pass + 1 == passes;
    std::uint16_t* const warp_count = pass ? count[1] : count[0];
    if (pass) {  // the first pass's order, read before this pass's barrier lets anyone write
#pragma unroll
      for (unsigned it = 0; it < kPlaceItems; ++it)
        if (j0 + 32 * it < total) item[it] = s_perm[j0 + 32 * it];
    }
    auto bin_of = [&](unsigned it) { return u32{s_bin[item[it] & kSlotMask]}; };
    auto digit_of_bin = [&](u32 bin) { return by_ordinal ? u32{s_ord[bin]} : bin >> shift & (digits - 1); };
    auto digit = [&](unsigned it) { return j0 + 32 * it < total ? digit_of_bin(bin_of(it)) : kNoDigit; };
    count_warp_digits<kPlaceItems>(digit, bits, digits, warp_count,
                                   [&](unsigned it, u32 r) { item[it] |= r << kSlotBits; });
    cp_async_wait<0>();
    __syncthreads();
    scan_warp_counts<PlaceScan>(warp_count, digits, scan, [](u32, u32) {});
    __syncthreads();
#pragma unroll
    for (unsigned it = 0; it < kPlaceItems; ++it)
      if (j0 + 32 * it < total) {
        const u32 j = item[it] & kSlotMask, bin = bin_of(it);
        s_perm[warp_count[warp_counter(digit_of_bin(bin), warp, digits)] + (item[it] >> kSlotBits)] =
            last ? bin << kSlotBits | j : j;
      }
    __syncthreads();
    zero_warp_counts(warp_count, digits);  // last read before the barrier above
  }
}

// Stable: edge(bin, slot) at each slot of a batch sorted into s_perm that is its bin's first
// (Last: its last), the only slots whose bins move their cursors.
template <bool Last, typename Edge>
__device__ __forceinline__ void for_each_bin_edge(const u32* s_perm, u32 total, Edge edge) {
#pragma unroll
  for (unsigned it = 0; it < kPlaceItems; ++it) {
    const u32 slot = it * kPlaceBlock + threadIdx.x;
    const u32 bin = slot < total ? s_perm[slot] >> kSlotBits : 0;
    if (slot < total && (Last ? slot + 1 == total || s_perm[slot + 1] >> kSlotBits != bin
                              : slot == 0 || s_perm[slot - 1] >> kSlotBits != bin))
      edge(bin, slot);
  }
}

template <typename W, typename V, bool Stable = false>
__global__ void __launch_bounds__(kPlaceBlock, sizeof(V) > 4 ? 1 : 2)
    place_pairs(const std::uint16_t* low, const V* grouped_vals, const u32* seg_start, u64 tiles, u32 buckets,
                unsigned low_bits, u64 range, u32 groups, const u32* H, const u32* start, W min_word, W* keys_out,
                V* vals_out) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ PlaceScan::TempStorage s_scan;
  const u32 bins = 1u << low_bits;
  V* s_val = reinterpret_cast<V*>(s_raw);
  u32* s_cur = reinterpret_cast<u32*>(s_val + kTile);  // cursor - batch start, per bin (padded)
  u32* s_end = s_cur + padded_bins(bins);                // the batch's segment ends (inclusive prefix)
  u32* s_lo = s_end + kPlaceBlock;                       // and their starts inside their tiles
  u32* s_perm = s_lo + kPlaceBlock;                      // slot -> (bin, batch element)
  u32* s_cnt = s_perm + kTile;                           // batch counts, then batch starts
  // Stable: the passes' digits and warp counts (one pass's rows or two passes' side by side),
  // the batch's bins by element, and the bins' ordinals among the bucket's present bins.
  const unsigned digit_bits[2] = {low_digit_bits(low_bits), low_bits - low_digit_bits(low_bits)};
  const unsigned ordinal_bits = ordinal_digit_bits(low_bits);
  std::uint16_t* s_warp_count[2] = {reinterpret_cast<std::uint16_t*>(s_perm + kTile), nullptr};
  s_warp_count[1] = s_warp_count[0] + warp_counts_bytes(1u << digit_bits[0]) / sizeof(std::uint16_t);
  std::uint16_t* s_bin = s_warp_count[0] + warp_counts_bytes(1u << ordinal_bits) / sizeof(std::uint16_t);
  std::uint8_t* s_ord = reinterpret_cast<std::uint8_t*>(s_bin + kTile);
  if constexpr (Stable) zero_warp_counts(s_warp_count[0], 1u << ordinal_bits);
  const u32 b = blockIdx.x % buckets, g = blockIdx.x / buckets;
  u64 t_lo, t_hi;
  part_bounds(tiles, groups, g, 1, t_lo, t_hi);
  const u64 first = u64{b} << low_bits;
  for (u32 x = threadIdx.x; x < bins; x += blockDim.x) {
    u32 cursor = 0;
    if (first + x < range) {
      if (groups <= kInlineCursorGroups) {
        cursor = start[first + x];
        for (u32 before = 0; before < g; ++before) cursor += H[before * range + first + x];
      } else {
        cursor = H[g * range + first + x];
      }
    }
    s_cur[padded_bin(x)] = cursor;
    if (!Stable) s_cnt[padded_bin(x)] = 0;
  }
  const u32 per = bins / kPlaceBlock;  // bins >= 2^12
  // Stable: thread i numbers the present bins of [i * per, (i + 1) * per) (at most 32). A
  // bin is present where the scanned totals step past it; the range's last bin always is.
  u32 present_bins = 0;
  if constexpr (Stable) {
    u32 present = 0;
    for (u32 q = 0; q < per; ++q) {
      const u64 x = first + threadIdx.x * per + q;
      if (x < range && (x + 1 == range || start[x + 1] != start[x])) present |= 1u << q;
    }
    u32 before;
    PlaceScan(s_scan).ExclusiveSum(static_cast<u32>(popcount32(present)), before, present_bins);
    for (u32 q = 0; q < per; ++q)
      s_ord[threadIdx.x * per + q] = static_cast<std::uint8_t>(present_ordinal(before, present, q));
    __syncthreads();  // s_scan is the first batch's next
  }
  // Thread i reads the segment of the batch's i-th tile; the next batch's read is issued as
  // soon as that batch's first tile is known, so its latency hides behind this batch.
  u32 lo = 0, len = 0;
  auto read_segment = [&](u64 tile) {
    lo = len = 0;
    if (tile < t_hi) {
      lo = seg_start[segment_row(b, tile, tiles)];
      len = seg_start[segment_row(b + 1, tile, tiles)] - lo;
    }
  };
  read_segment(t_lo + threadIdx.x);
  for (u64 t = t_lo; t < t_hi;) {
    const u64 tile = t + threadIdx.x;
    u32 end;
    PlaceScan(s_scan).InclusiveSum(len, end);
    s_end[threadIdx.x] = end;
    s_lo[threadIdx.x] = lo;
    // A segment holds at most kTile keys, so the batch takes at least tile t.
    const u32 k = static_cast<u32>(__syncthreads_count(tile < t_hi && end <= kTile));
    const u32 total = s_end[k - 1];
    read_segment(t + k + threadIdx.x);
    if (total) {
      // Every load of the batch in flight at once (values by cp.async, low bits in registers):
      // one load after another, each behind its search, left place_pairs latency bound.
      // Warp w copies elements [w * 512, (w + 1) * 512), lane l every 32nd from l: one
      // search for its first segment, then a walk (a search per element cost 9 shared reads
      // at ~330 segments a batch). An element's bin and rank stay in its thread's registers,
      // so that the slot order carries the bin and a store waits on one shared read, not three
      // (the chain slot -> element -> bin -> cursor left place_pairs waiting on shared memory).
      // Measured: docs/hp.md, place_pairs.
      const std::uint16_t* batch_low = low + t * kTile;
      const V* batch_vals = grouped_vals + t * kTile;
      const u32 j0 = threadIdx.x / 32 * (32 * kPlaceItems) + lane_id();
      u32 s = j0 < total ? run_at(s_end, 0u, k, j0) : 0;
      u32 item[kPlaceItems];  // the bin, then (bin, rank)
#pragma unroll
      for (unsigned it = 0; it < kPlaceItems; ++it) {
        const u32 j = j0 + 32 * it;
        if (j < total) {
          while (s_end[s] <= j) ++s;
          const u32 at = s * kTile + s_lo[s] + (j - (s ? s_end[s - 1] : 0u));
          // Stable, 4-byte values: stored as they arrive (held in registers until all had
          // arrived, they spilled at two blocks an SM); 8-byte values, one block an SM, are
          // stored after the loads (docs/hp.md, place_pairs).
          if constexpr (Stable && sizeof(V) == 4) s_bin[j] = batch_low[at];
          else item[it] = batch_low[at];
          cp_async<sizeof(V)>(s_val + j, batch_vals + at);
        }
      }
      cp_async_commit();
      if constexpr (Stable) {
        if constexpr (sizeof(V) > 4) {
#pragma unroll
          for (unsigned it = 0; it < kPlaceItems; ++it)
            if (j0 + 32 * it < total) s_bin[j0 + 32 * it] = static_cast<std::uint16_t>(item[it]);
        }
        sort_batch_by_bin(j0, total, digit_bits, s_warp_count, s_scan, s_bin, s_ord, present_bins, ordinal_bits,
                          s_perm);
        // A bin's first slot makes its cursor cursor - slot, so that s_cur + slot places it.
        for_each_bin_edge<false>(s_perm, total, [&](u32 bin, u32 slot) { s_cur[padded_bin(bin)] -= slot; });
      } else {
#pragma unroll
        for (unsigned it = 0; it < kPlaceItems; ++it)
          if (j0 + 32 * it < total) item[it] = item[it] << kSlotBits | atomicAdd(&s_cnt[padded_bin(item[it])], 1u);
        cp_async_wait<0>();
        __syncthreads();
        u32 sum = 0;
        for (u32 q = 0; q < per; ++q) sum += s_cnt[padded_bin(threadIdx.x * per + q)];
        PlaceScan(s_scan).ExclusiveSum(sum, sum);
        for (u32 q = 0; q < per; ++q) {
          const u32 x = padded_bin(threadIdx.x * per + q);
          const u32 count = s_cnt[x];
          s_cnt[x] = sum;
          s_cur[x] -= sum;  // so that cursor + (slot - start) is s_cur + slot
          sum += count;
        }
        __syncthreads();
#pragma unroll
        for (unsigned it = 0; it < kPlaceItems; ++it) {
          const u32 j = j0 + 32 * it;
          if (j < total) {
            const u32 bin = item[it] >> kSlotBits;
            s_perm[s_cnt[padded_bin(bin)] + (item[it] & kSlotMask)] = bin << kSlotBits | j;
          }
        }
      }
      __syncthreads();
#pragma unroll
      for (unsigned it = 0; it < kPlaceItems; ++it) {
        const u32 slot = it * kPlaceBlock + threadIdx.x;
        if (slot < total) {
          const u32 p = s_perm[slot];
          const u32 bin = p >> kSlotBits;
          const u32 at = s_cur[padded_bin(bin)] + slot;
          keys_out[at] = word_at<W>(static_cast<u32>(first + bin), min_word);
          vals_out[at] = s_val[p & kSlotMask];
        }
      }
      __syncthreads();
      // Past the batch: cursor - start + next start = cursor + count.
      if constexpr (Stable) {
        for_each_bin_edge<true>(s_perm, total, [&](u32 bin, u32 slot) { s_cur[padded_bin(bin)] += slot + 1; });
      } else {
        for (u32 x = threadIdx.x; x < bins; x += blockDim.x)
          s_cur[padded_bin(x)] += x + 1 < bins ? s_cnt[padded_bin(x + 1)] : total;
        __syncthreads();
        for (u32 x = threadIdx.x; x < bins; x += blockDim.x) s_cnt[padded_bin(x)] = 0;
      }
    }
    t += k;
    __syncthreads();  // s_end, s_lo and s_scan are written again by the next batch
  }
}

// Each group's first slot of every bin (group_cursors) from the scanned totals, in one
// coalesced pass: one CUB scan over an iterator summing the groups read each thread's
// consecutive bins word by word (docs/hp.md, spread_cursors).
static __global__ void spread_cursors(u32* H, u64 range, u32 groups, const u32* start) {
  for (u64 x = global_thread(); x < range; x += global_threads()) group_cursors(H, range, groups, x, start[x]);
}

// The key-value path: after the histogram, A holds every bin's exclusive prefix sum (its
// first output position) and serves as the bins' cursors. Each (key, value) pair takes its
// bin's next slot with one atomic; a warp whose keys share one bin (sorted or clustered
// input, one repeated key) takes its 32 slots with one atomic, in lane order. The order of
// equal keys across warps follows the atomics: not stable.
template <typename W, typename V>
__global__ void scatter_pairs(const W* keys_in, const V* vals_in, u64 n, W min_word, u32* cursor, W* keys_out,
                              V* vals_out) {
  const u64 steps = ceil_div(n, global_threads());  // uniform trip count: whole warps take part
  for (u64 s = 0, i = global_thread(); s < steps; ++s, i += global_threads()) {
    const bool live = i < n;
    const W key = live ? keys_in[i] : W{};
    const u32 bin = live ? word_offset<W>(key, min_word) : ~0u;
    const u32 lane0_bin = __shfl_sync(0xffffffffu, bin, 0);
    const unsigned live_lanes = __ballot_sync(0xffffffffu, live);
    if (live_lanes == 0) break;  // the warp is past n, and stays so
    u32 at;
    if (__all_sync(0xffffffffu, !live || bin == lane0_bin)) {
      u32 base = 0;
      if (lane_id() == 0) base = atomicAdd(&cursor[lane0_bin], static_cast<u32>(__popc(live_lanes)));
      at = __shfl_sync(0xffffffffu, base, 0) + lane_id();
    } else {
      at = live ? atomicAdd(&cursor[bin], 1u) : 0;
    }
    if (live) {
      keys_out[at] = key;
      vals_out[at] = vals_in[i];
    }
  }
}

}  // namespace sb::hp::fast
