// hp-split-stable's kernels (issue 40, beyond seed 004; design and byte model in docs/hp.md,
// "Stable key-value H-P"): a stable counting sort of (key, value) pairs in two passes over
// them, each one block-local ranking in input order:
//   1. bucket_count (the hybrid's) counts each part's keys by bucket; one scan of the counts
//      gives every (bucket, part) its place in the partitioned array;
//   2. stable_partition: each part's 8192-key tiles in order, ranked by bucket, leave as runs
//      of (bin, value) into their buckets' regions (a radix pass with the bucket as digit);
//   3. bucket_chunk_hist: each bucket's consecutive chunks (groups) counted by bin;
//   4. one scan of the bins' totals: every bin's output range (H-P's prefix sums);
//   5. place_bucket_chunks: each chunk, 8192 pairs at a time in input order, ranked by bin
//      (the ordinal among its bucket's present bins) and stored in slot order from the bins'
//      cursors.
// Both rankings use per-warp peer masks (rank_by_peers; the arithmetic in hp_index.hpp), not
// hp-tiled-stable's ballot per digit bit, and the chunks are contiguous, so no segment table
// is walked.
#pragma once

#include <cstdint>

#include "hp_hist_kernels.cuh"
#include "hp_pairs_kernels.cuh"
#include "hp_split_index.hpp"

namespace sb::hp::fast {

// ---- the ranking: per-warp peer masks ----
// One warp's rows: a 32-bit mask and a 16-bit count a digit, digits + 1 of each: the last is
// the sink of the places a tile or batch does not fill, which rank there like any item, so that
// a step has no branch for them; no scan reads it.
struct PeerRows {
  u32* mask;
  std::uint16_t* count;
};
constexpr u32 peer_stride(u32 digits) { return digits + 1; }
constexpr std::size_t peer_mask_bytes(u32 digits) {
  return std::size_t{kRankWarps} * peer_stride(digits) * sizeof(u32);
}
constexpr std::size_t peer_count_bytes(u32 digits) {
  return (std::size_t{kRankWarps} * peer_stride(digits) * sizeof(std::uint16_t) + 3) / 4 * 4;
}

// The rank of this lane's item among the items of digit d its warp has ranked so far, this
// step's lower lanes included. Every lane of the warp calls it, each with a digit (the sink
// where it has no item), so each is a peer of its own digit and the leader is the peer with
// none below. Three warp barriers order the step: every OR before any read of the mask, every
// read before the leader clears it and stores the count, and the clear before the next step's
// ORs (a lane that is a peer again in the next step would otherwise see its new bit cleared).
// In converged code ptxas compiles them to NOPs (sm_90).
__device__ __forceinline__ u32 rank_by_peers(u32 d, PeerRows rows) {
  const u32 lane = lane_id();
  atomicOr(&rows.mask[d], 1u << lane);
  __syncwarp();
  const u32 peers = rows.mask[d], before = rows.count[d];
  __syncwarp();
  const u32 below = peer_rank(peers, lane);
  if (below == 0) {
    rows.count[d] = static_cast<std::uint16_t>(peer_count_after(before, peers));
    rows.mask[d] = 0;
  }
  __syncwarp();
  return before + below;
}

// Ranks a block's Items items a thread (warp_major_item order) by digit_of(step) (below
// `digits`, or `digits` itself, the sink, for a place without an item) in the rows
// mask[w * peer_stride + d], count[w * peer_stride + d]: ranked(step, r) hears each item's rank
// among its warp's items of that digit. The masks are zero before and after; the counts are
// zeroed before and hold the warps' totals after, for scan_peer_counts.
template <unsigned Items, typename DigitOf, typename Ranked>
__device__ __forceinline__ void rank_items_by_peers(DigitOf digit_of, u32 digits, u32* mask, std::uint16_t* count,
                                                    Ranked ranked) {
  const u32 row = threadIdx.x / 32 * peer_stride(digits);
  const PeerRows rows{mask + row, count + row};
#pragma unroll
  for (unsigned step = 0; step < Items; ++step) ranked(step, rank_by_peers(digit_of(step), rows));
}

// The exclusive scan of the warps' counts, digit by digit and warp by warp inside a digit
// (scan_warp_counts with the sink's column left out): each count becomes its warp's first slot
// of the digit, and first(d, slot) hears each digit's first slot.
template <typename Scan, typename First>
__device__ __forceinline__ void scan_peer_counts(std::uint16_t* count, u32 digits, typename Scan::TempStorage& temp,
                                                 First first) {
  const u32 stride = peer_stride(digits);
  const u32 per = (digits + blockDim.x - 1) / blockDim.x;
  const u32 d0 = threadIdx.x * per, d1 = d0 + per < digits ? d0 + per : digits;
  u32 sum = 0;
  for (u32 d = d0; d < d1; ++d)
    for (u32 w = 0; w < kRankWarps; ++w) sum += count[w * stride + d];
  Scan(temp).ExclusiveSum(sum, sum);
  for (u32 d = d0; d < d1; ++d) {
    first(d, sum);
    for (u32 w = 0; w < kRankWarps; ++w) {
      std::uint16_t& c = count[w * stride + d];
      const u32 k = c;
      c = static_cast<std::uint16_t>(sum);
      sum += k;
    }
  }
}
__device__ __forceinline__ void zero_peer_counts(std::uint16_t* count, u32 digits) {
  u32* words = reinterpret_cast<u32*>(count);
  for (u32 i = threadIdx.x; i < peer_count_bytes(digits) / 4; i += blockDim.x) words[i] = 0;
}
__device__ __forceinline__ void zero_peer_masks(u32* mask, u32 digits) {
  for (u32 i = threadIdx.x; i < kRankWarps * peer_stride(digits); i += blockDim.x) mask[i] = 0;
}
// An item's slot after scan_peer_counts: its warp's first slot of the digit plus its rank.
__device__ __forceinline__ u32 peer_slot(const std::uint16_t* count, u32 digits, u32 d, u32 rank) {
  return count[threadIdx.x / 32 * peer_stride(digits) + d] + rank;
}

// ---- step 2: the stable partition ----
// Shared memory: a tile's values and (bin, bucket) in bucket order, the mask and count rows,
// and each bucket's next position in the partitioned array and first slot in the tile.
template <typename V>
constexpr std::size_t stable_partition_bytes(u32 buckets) {
  return std::size_t{kTile} * sizeof(V) + peer_mask_bytes(buckets) + 2 * std::size_t{buckets} * sizeof(u32) +
         std::size_t{kTile} * sizeof(std::uint16_t) + peer_count_bytes(buckets) + kTile;
}

// Block p takes part p (bucket_count's part_bounds) in 8192-key tiles in order. A tile's keys
// and values come to registers (a warp's loads are whole lines), are ranked by bucket in input
// order, and are grouped by bucket in shared memory; then each bucket's run leaves as
// consecutive 2-byte bins and values at its next position (offsets: the scan of the counts,
// bucket-major). Four-byte values: two blocks an SM; eight-byte ones take one.
template <typename W, typename V>
__global__ void __launch_bounds__(kTileBlock, sizeof(V) > 4 ? 1 : 2)
    stable_partition(const W* x, const V* vals, u64 n, W min_word, unsigned low_bits, u32 buckets, const u32* offsets,
                     std::uint16_t* low, V* part_vals) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ TileScan::TempStorage s_scan;
  V* s_val = reinterpret_cast<V*>(s_raw);
  u32* s_mask = reinterpret_cast<u32*>(s_val + kTile);
  u32* s_dst = s_mask + kRankWarps * peer_stride(buckets);  // the bucket's next position in the partitioned array
  u32* s_first = s_dst + buckets;               // the bucket's first slot in the grouped tile
  std::uint16_t* s_low = reinterpret_cast<std::uint16_t*>(s_first + buckets);
  std::uint16_t* s_count = s_low + kTile;
  std::uint8_t* s_bucket = reinterpret_cast<std::uint8_t*>(s_count) + peer_count_bytes(buckets);
  zero_peer_masks(s_mask, buckets);
  zero_peer_counts(s_count, buckets);
  for (u32 b = threadIdx.x; b < buckets; b += blockDim.x) s_dst[b] = offsets[u64{b} * gridDim.x + blockIdx.x];
  __syncthreads();
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 4, lo, hi);
  const u32 warp = threadIdx.x / 32;
  // A tile's keys (offsets), then (offset, rank); the next tile's arrive while this one is stored.
  u32 item[kTileItems];
  auto load_keys = [&](u64 t0) {
    const u32 len = t0 < hi ? static_cast<u32>(min_u64(kTile, hi - t0)) : 0u;
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 i = warp_major_item(warp, it, lane_id(), kTileItems);
      item[it] = i < len ? word_offset<W>(x[t0 + i], min_word) : 0u;  // no stale value carried between tiles
    }
  };
  load_keys(lo);
  for (u64 t0 = lo; t0 < hi; t0 += kTile) {
    const u32 len = static_cast<u32>(min_u64(kTile, hi - t0));
    rank_items_by_peers<kTileItems>(
        [&](unsigned it) {
          return warp_major_item(warp, it, lane_id(), kTileItems) < len ? bucket_of(item[it], low_bits) : buckets;
        },
        buckets, s_mask, s_count, [&](unsigned it, u32 r) { item[it] = split_part_item(item[it], r); });
    // The values are loaded after the ranking, their latency behind the scan (with the keys, 32
    // registers of loads in flight through the ranking, they would not fit in two blocks an SM).
    V v[kTileItems];
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 i = warp_major_item(warp, it, lane_id(), kTileItems);
      v[it] = i < len ? vals[t0 + i] : V{};
    }
    __syncthreads();
    scan_peer_counts<TileScan>(s_count, buckets, s_scan, [&](u32 b, u32 first) { s_first[b] = first; });
    __syncthreads();
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      if (warp_major_item(warp, it, lane_id(), kTileItems) < len) {
        const u32 off = split_part_offset(item[it]), b = bucket_of(off, low_bits);
        const u32 slot = peer_slot(s_count, buckets, b, split_part_rank(item[it]));
        s_low[slot] = static_cast<std::uint16_t>(bin_in_bucket(off, low_bits));
        s_val[slot] = v[it];
        s_bucket[slot] = static_cast<std::uint8_t>(b);
      }
    }
    load_keys(t0 + kTile);
    __syncthreads();
    for (u32 s = threadIdx.x; s < len; s += blockDim.x) {
      const u32 b = s_bucket[s];
      const u32 at = s_dst[b] + (s - s_first[b]);
      low[at] = s_low[s];
      part_vals[at] = s_val[s];
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < buckets; b += blockDim.x)
      s_dst[b] += (b + 1 < buckets ? s_first[b + 1] : len) - s_first[b];
    zero_peer_counts(s_count, buckets);  // the prefixes were last read before the barrier above
    __syncthreads();
  }
}

// ---- step 3: each bucket's chunks counted by bin ----
// Block (b, g) counts chunk g of bucket b (bucket_chunk) in shared memory, reading the
// partitioned bins as 16-byte words (for_each_low), stores its counts into H[g * range + x]
// and adds its non-empty bins into the bins' totals.
constexpr unsigned kChunkHistBlock = 512;
constexpr std::size_t chunk_hist_bytes(unsigned low_bits) { return (std::size_t{1} << low_bits) * sizeof(u32); }
template <typename Unused = void>
__global__ void __launch_bounds__(kChunkHistBlock)
    bucket_chunk_hist(const std::uint16_t* low, u64 n, const u32* offsets, u32 parts, u32 buckets, unsigned low_bits,
                      u64 range, u32 groups, u32* H, u32* bin_total) {
  extern __shared__ u32 s_hist[];
  const u32 b = blockIdx.x % buckets, g = blockIdx.x / buckets;
  const u32 bins = 1u << low_bits;
  u64 lo, hi;
  bucket_chunk(offsets[u64{b} * parts], b + 1 < buckets ? offsets[u64{b + 1} * parts] : n, groups, g, lo, hi);
  for (u32 i = threadIdx.x; i < bins; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();
  for_each_low(low, lo, hi, [&](u32 bin) { atomicAdd(&s_hist[bin], 1u); });
  __syncthreads();
  const u64 first = u64{b} << low_bits;
  for (u32 i = threadIdx.x; i < bins && first + i < range; i += blockDim.x) {
    const u32 c = s_hist[i];
    H[u64{g} * range + first + i] = c;
    if (c) atomicAdd(&bin_total[first + i], c);
  }
}

// ---- step 5: the chunks placed in input order ----
// Shared memory: a batch's values in input order (cp.async), the mask and count rows for
// kSplitRankDigits digits, the ordinals' cursors, the bins' ordinals (a byte a bin), and the
// batch's bin and element a slot. Where the bucket holds more than kSplitRankDigits present
// bins the cursors are by bin, in the workspace (C): a bin's word in shared memory would
// leave room for one block an SM.
constexpr std::size_t place_ordinal_bytes(unsigned low_bits) {
  return 2 * std::size_t{kSplitRankDigits} * sizeof(u32) + (std::size_t{1} << low_bits);
}
template <typename V>
constexpr std::size_t place_chunks_bytes(unsigned low_bits) {
  return std::size_t{kTile} * sizeof(V) + peer_mask_bytes(kSplitRankDigits) + place_ordinal_bytes(low_bits) +
         2 * std::size_t{kTile} * sizeof(std::uint16_t) + peer_count_bytes(kSplitRankDigits) +
         std::size_t{kSplitRankDigits} * sizeof(std::uint16_t);
}

// Block (b, g) places chunk g of bucket b. Its cursors: bin x's first slot (start, the scan of
// the totals) plus what groups 0..g-1 hold of x, added here up to kInlineCursorGroups groups,
// made by spread_cursors into H past that. Each batch of 8192 pairs is ranked by bin in input
// order (its bins in registers, warp-major; its values arrive in shared memory meanwhile), in
// one pass over the bins' ordinals or two over their digits; its slots get (bin, element), and
// the pairs leave in slot order, runs of consecutive slots a bin. The values stay in shared
// memory in input order, so no thread holds them (in registers they spilled at two blocks an SM).
template <typename W, typename V>
__global__ void __launch_bounds__(kTileBlock, sizeof(V) > 4 ? 1 : 2)
    place_bucket_chunks(const std::uint16_t* low, const V* part_vals, u64 n, const u32* offsets, u32 parts,
                        u32 buckets, unsigned low_bits, u64 range, u32 groups, const u32* H, const u32* start,
                        u32* C, W min_word, W* keys_out, V* vals_out) {
  extern __shared__ __align__(16) unsigned char s_raw[];
  __shared__ TileScan::TempStorage s_scan;
  const u32 bins = 1u << low_bits;
  V* s_val = reinterpret_cast<V*>(s_raw);
  u32* s_mask = reinterpret_cast<u32*>(s_val + kTile);
  u32* s_cur = s_mask + kRankWarps * peer_stride(kSplitRankDigits);  // by ordinal
  u32* s_adj = s_cur + kSplitRankDigits;                 // by ordinal: cursor - the ordinal's first slot
  std::uint8_t* s_ord = reinterpret_cast<std::uint8_t*>(s_adj + kSplitRankDigits);
  auto* s_slot = reinterpret_cast<std::uint16_t*>(s_ord + bins);  // a slot's bin
  std::uint16_t* s_perm = s_slot + kTile;                         // a slot's element
  std::uint16_t* s_count = s_perm + kTile;
  std::uint16_t* s_first = s_count + peer_count_bytes(kSplitRankDigits) / sizeof(std::uint16_t);
  const u32 b = blockIdx.x % buckets, g = blockIdx.x / buckets;
  u64 lo, hi;
  bucket_chunk(offsets[u64{b} * parts], b + 1 < buckets ? offsets[u64{b + 1} * parts] : n, groups, g, lo, hi);
  if (lo >= hi) return;
  const u64 first = u64{b} << low_bits;
  u32* c_cur = C + u64{g} * range + first;  // by bin
  auto cursor = [&](u64 x) {
    if (groups > kInlineCursorGroups) return H[u64{g} * range + x];
    u32 c = start[x];
    for (u32 before = 0; before < g; ++before) c += H[u64{before} * range + x];
    return c;
  };
  // Thread t numbers the present bins of [t * per, (t + 1) * per) (at most 32).
  const u32 per = bins / blockDim.x;
  u32 present = 0;
  for (u32 q = 0; q < per; ++q) {
    const u64 x = first + threadIdx.x * per + q;
    if (x < range && bin_present(start, x, range, n)) present |= 1u << q;
  }
  u32 before, present_bins;
  TileScan(s_scan).ExclusiveSum(static_cast<u32>(popcount32(present)), before, present_bins);
  const bool by_ordinal = split_rank_passes(present_bins) == 1;
  for (u32 q = 0; q < per; ++q)
    if (present >> q & 1u) {
      const u32 bin = threadIdx.x * per + q;
      if (by_ordinal) {
        const u32 o = present_ordinal(before, present, q);
        s_ord[bin] = static_cast<std::uint8_t>(o);
        s_cur[o] = cursor(first + bin);
      } else {
        c_cur[bin] = cursor(first + bin);
      }
    }
  zero_peer_masks(s_mask, kSplitRankDigits);
  zero_peer_counts(s_count, kSplitRankDigits);
  __syncthreads();  // s_scan is the first batch's next
  const u32 warp = threadIdx.x / 32;
  // A batch's (bin, element) items; the next batch's bins arrive while this one is stored.
  u32 item[kTileItems];
  auto load_bins = [&](u64 b0) {
    const u32 total = b0 < hi ? static_cast<u32>(min_u64(kTile, hi - b0)) : 0u;
#pragma unroll
    for (unsigned it = 0; it < kTileItems; ++it) {
      const u32 j = warp_major_item(warp, it, lane_id(), kTileItems);
      item[it] = j < total ? split_item(low[b0 + j], j) : 0u;
    }
  };
  load_bins(lo);
  for (u64 b0 = lo; b0 < hi; b0 += kTile) {
    const u32 total = static_cast<u32>(min_u64(kTile, hi - b0));
    for (u32 j = threadIdx.x; j < total; j += blockDim.x) cp_async<sizeof(V)>(s_val + j, part_vals + b0 + j);
    cp_async_commit();
    // A pass: the batch ranked by digit_of_bin (the ordinal, or the pass's digit), its slots
    // given (bin, element). Each mode is its own code, so that a step holds no branch on it.
    auto rank_pass = [&](u32 digits, auto digit_of_bin, auto keep_first) {
      WarpRanks<kTileItems> rank;
      rank_items_by_peers<kTileItems>(
          [&](unsigned it) {
            return warp_major_item(warp, it, lane_id(), kTileItems) < total ? digit_of_bin(split_item_bin(item[it]))
                                                                             : digits;
          },
          digits, s_mask, s_count, [&](unsigned it, u32 r) { rank.set(it, r); });
      __syncthreads();
      scan_peer_counts<TileScan>(s_count, digits, s_scan, keep_first);
      __syncthreads();
#pragma unroll
      for (unsigned it = 0; it < kTileItems; ++it)
        if (warp_major_item(warp, it, lane_id(), kTileItems) < total) {
          const u32 bin = split_item_bin(item[it]);
          const u32 slot = peer_slot(s_count, digits, digit_of_bin(bin), rank[it]);
          s_slot[slot] = static_cast<std::uint16_t>(bin);
          s_perm[slot] = static_cast<std::uint16_t>(split_item_elem(item[it]));
        }
      __syncthreads();
      zero_peer_counts(s_count, digits);  // the prefixes were last read before the barrier above
    };
    if (by_ordinal) {
      rank_pass(
          present_bins, [&](u32 bin) { return u32{s_ord[bin]}; },
          [&](u32 d, u32 first_slot) {
            s_adj[d] = s_cur[d] - first_slot;
            s_first[d] = static_cast<std::uint16_t>(first_slot);
          });
    } else {
#pragma unroll 1
      for (unsigned pass = 0; pass < 2; ++pass) {
        if (pass) {  // the second pass ranks the batch in the first one's order, each item with its element
#pragma unroll
          for (unsigned it = 0; it < kTileItems; ++it) {
            const u32 j = warp_major_item(warp, it, lane_id(), kTileItems);
            if (j < total) item[it] = split_item(s_slot[j], s_perm[j]);
          }
          __syncthreads();  // every thread's zeroing of the counts before any leader counts again
        }
        const unsigned shift = split_pass_shift(low_bits, pass);
        const u32 digits = 1u << split_pass_bits(low_bits, pass);
        rank_pass(
            digits, [&](u32 bin) { return bin >> shift & (digits - 1); }, [](u32, u32) {});
      }
    }
    load_bins(b0 + kTile);
    cp_async_wait<0>();
    __syncthreads();
    if (by_ordinal) {
      for (u32 s = threadIdx.x; s < total; s += blockDim.x) {
        const u32 bin = s_slot[s];
        const u32 at = s_adj[s_ord[bin]] + s;
        keys_out[at] = word_at<W>(static_cast<u32>(first + bin), min_word);
        vals_out[at] = s_val[s_perm[s]];
      }
      // Past the batch: cursor - first slot + the next ordinal's first slot = cursor + count.
      for (u32 d = threadIdx.x; d < present_bins; d += blockDim.x)
        s_cur[d] = s_adj[d] + (d + 1 < present_bins ? u32{s_first[d + 1]} : total);
    } else {
      // A bin's first slot makes its cursor cursor - slot, so that cursor + slot places it;
      // its last slot moves it past the batch. The cursors are global words of this block
      // alone, ordered by the barriers.
      for (u32 s = threadIdx.x; s < total; s += blockDim.x) {
        const u32 bin = s_slot[s];
        if (s == 0 || s_slot[s - 1] != bin) c_cur[bin] -= s;
      }
      __syncthreads();
      for (u32 s = threadIdx.x; s < total; s += blockDim.x) {
        const u32 bin = s_slot[s];
        const u32 at = c_cur[bin] + s;
        keys_out[at] = word_at<W>(static_cast<u32>(first + bin), min_word);
        vals_out[at] = s_val[s_perm[s]];
      }
      __syncthreads();
      for (u32 s = threadIdx.x; s < total; s += blockDim.x) {
        const u32 bin = s_slot[s];
        if (s + 1 == total || s_slot[s + 1] != bin) c_cur[bin] += s + 1;
      }
    }
    __syncthreads();  // s_val, s_slot, s_perm and the cursors are the next batch's
  }
}

}  // namespace sb::hp::fast
