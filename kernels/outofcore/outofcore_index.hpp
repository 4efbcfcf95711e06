// The out-of-core family's arithmetic (issue 37; docs/outofcore.md): how the GPU memory a run
// may use splits into a histogram and chunk slots (streamed H-P), or into run slots (the
// run-merge sort); where a bin's run of equal keys starts inside an output chunk; and the
// multi-sequence selection that cuts k sorted runs into output buckets of exact sizes, equal keys
// taken in run order so that the sort stays stable. No CUDA includes: tested on the CPU
// (tests/outofcore/outofcore_index_test.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sortbench/core/hd.hpp"

namespace sb::ooc {

using u64 = std::uint64_t;

inline constexpr std::size_t kAlign = 256;
SB_HD_INLINE u64 align_up(u64 b) { return (b + kAlign - 1) / kAlign * kAlign; }
SB_HD_INLINE u64 chunks_of(u64 n, u64 chunk) { return chunk ? (n + chunk - 1) / chunk : 0; }

// A chunk is large enough that its copy is far longer than a launch or an event (tens of µs),
// small enough that the pipeline's fill and drain (one chunk each way) stay a few ms.
inline constexpr u64 kMaxChunkBytes = u64{256} << 20;
inline constexpr u64 kMinChunkElements = u64{1} << 16;
// Three slots: one being copied in (or out), one being worked on, one spare for the copy that
// was queued behind the work: the copy engines then never wait for a kernel.
inline constexpr unsigned kSlots = 3;

// --- Streamed H-P: a histogram of `bins` counts stays on the GPU through both passes.
struct HpStreamPlan {
  u64 bins = 0;
  unsigned count_bytes = 4;  // 8 from 2^32 keys, which a 32-bit count may not hold
  u64 chunk = 0;             // elements per chunk, both passes; 0: the memory does not suffice
  u64 chunks = 0;
  u64 hist_bytes = 0;   // bins + 1 counts (the scan's total in the last)
  u64 slot_bytes = 0;   // one slot of chunk keys
  u64 marks_bytes = 0;  // the output pass's bin marks, 4 bytes a position
  u64 table_bytes = 0;  // each output chunk's first bin
  u64 device_bytes = 0; // all of it, with the scan's temporary storage
};

SB_HD_INLINE unsigned hp_count_bytes(u64 n) { return n >> 32 ? 8u : 4u; }

// The largest chunk (max_chunk_bytes of keys, halved) whose slots, marks and chunk table fit
// beside the histogram in device_bytes. scan_temp_bytes: the scan's storage for bins + 1
// counts.
inline HpStreamPlan plan_hp_stream(u64 n, unsigned key_bytes, u64 bins, u64 scan_temp_bytes, u64 device_bytes,
                                   u64 max_chunk_bytes = kMaxChunkBytes) {
  HpStreamPlan p;
  p.bins = bins;
  p.count_bytes = hp_count_bytes(n);
  p.hist_bytes = align_up((bins + 1) * p.count_bytes);
  const u64 fixed = p.hist_bytes + align_up(scan_temp_bytes);
  u64 chunk = std::max<u64>(max_chunk_bytes / key_bytes, 1);
  while (chunk > 1 && chunk / 2 >= n) chunk /= 2;  // no larger than the input needs
  for (; chunk >= kMinChunkElements || chunk >= n; chunk /= 2) {
    const u64 chunks = chunks_of(n, chunk);
    const u64 slot = align_up(chunk * key_bytes), marks = align_up(chunk * 4), table = align_up((chunks + 1) * 8);
    const u64 total = fixed + kSlots * slot + marks + table;
    if (total <= device_bytes) {
      p.chunk = chunk, p.chunks = chunks, p.slot_bytes = slot, p.marks_bytes = marks, p.table_bytes = table;
      p.device_bytes = total;
      return p;
    }
    if (chunk <= 1) break;
  }
  // Does not fit: device_bytes says what the smallest chunk would need.
  const u64 chunk_min = std::min<u64>(std::max<u64>(n, 1), kMinChunkElements);
  p.device_bytes = fixed + kSlots * align_up(chunk_min * key_bytes) + align_up(chunk_min * 4) +
                   align_up((chunks_of(n, chunk_min) + 1) * 8);
  return p;
}

// The output pass: a bin whose run of equal keys is [start, start + count) in the sorted
// output marks the position of the chunk [first, first + size) where that run begins inside it,
// the chunk's first position included for a run that began in an earlier chunk. An inclusive
// max-scan of the marks then names every position's bin. Returns false when the run does not
// touch the chunk (or is empty).
SB_HD_INLINE bool run_mark_in_chunk(u64 start, u64 count, u64 first, u64 size, u64& local) {
  if (count == 0 || start >= first + size || start + count <= first) return false;
  local = start > first ? start - first : 0;
  return true;
}

// The bin whose run holds output position pos < n: the last bin whose run starts at or before
// it (offsets: the exclusive scan of the counts, bins + 1 entries). A chunk's bins run from the
// one holding its first position to the one holding the next chunk's.
template <typename Count>
SB_HD_INLINE u64 bin_holding(const Count* offsets, u64 bins, u64 pos) {
  u64 a = 0, b = bins;
  while (b - a > 1) {
    const u64 mid = a + (b - a) / 2;
    if (static_cast<u64>(offsets[mid]) <= pos) a = mid;
    else b = mid;
  }
  return a;
}

// --- The run-merge sort: runs of `chunk` elements sorted on the GPU, then cut into buckets of
// exactly `chunk` elements by multi-sequence selection, each bucket's pieces sorted again.
struct RunSortPlan {
  u64 chunk = 0;  // elements per run and per bucket; 0: does not fit
  u64 runs = 0;
  u64 slot_bytes = 0;  // one slot: chunk keys and values
  u64 temp_bytes = 0;  // the GPU sort's temporary storage for a chunk
  u64 device_bytes = 0;
};

// kSlots slots plus the sort's second buffer (a slot's result is copied back when it lands
// there) and its temporary storage, chunks of at most max_chunk_bytes. temp_for(elements) is the
// sort's storage for that many.
template <typename TempFor>
RunSortPlan plan_run_sort(u64 n, unsigned element_bytes, u64 device_bytes, u64 max_chunk_bytes, TempFor temp_for) {
  RunSortPlan p;
  u64 chunk = max_chunk_bytes / element_bytes;
  while (chunk > 1 && chunk / 2 >= n) chunk /= 2;
  for (; chunk >= kMinChunkElements || chunk >= n; chunk /= 2) {
    const u64 slot = align_up(chunk * element_bytes), temp = align_up(temp_for(chunk));
    const u64 total = (kSlots + 1) * slot + temp;
    p.device_bytes = total;
    if (total <= device_bytes) {
      p.chunk = chunk, p.runs = chunks_of(n, chunk), p.slot_bytes = slot, p.temp_bytes = temp;
      return p;
    }
    if (chunk <= 1) break;
  }
  return p;
}

// Multi-sequence selection: cuts[i] elements of run i (each sorted by ordered key, ascending)
// are the first `rank` elements of their merge, equal keys taken from earlier runs first (the
// runs are in input order, so this keeps a stable sort stable). key_at(i, j) is the ordered key
// of element j of run i; [lo, hi] bounds every key. O(log(hi - lo) * runs * log(run size)).
template <typename KeyAt>
std::vector<u64> split_runs(u64 rank, const std::vector<u64>& run_sizes, u64 lo, u64 hi, KeyAt key_at) {
  const std::size_t k = run_sizes.size();
  auto bound = [&](std::size_t i, u64 v, bool upper) {  // elements of run i below v (upper: at or below)
    u64 a = 0, b = run_sizes[i];
    while (a < b) {
      const u64 mid = a + (b - a) / 2;
      const u64 key = key_at(i, mid);
      if (upper ? key <= v : key < v) a = mid + 1;
      else b = mid;
    }
    return a;
  };
  auto at_or_below = [&](u64 v) {
    u64 total = 0;
    for (std::size_t i = 0; i < k; ++i) total += bound(i, v, true);
    return total;
  };
  std::vector<u64> cuts(k, 0);
  if (rank == 0) return cuts;
  // The smallest key v with at least `rank` elements at or below it: the last key taken.
  u64 a = lo, b = hi;
  while (a < b) {
    const u64 mid = a + (b - a) / 2;
    if (at_or_below(mid) >= rank) b = mid;
    else a = mid + 1;
  }
  u64 left = rank;
  for (std::size_t i = 0; i < k; ++i) {
    cuts[i] = bound(i, a, false);
    left -= cuts[i];
  }
  for (std::size_t i = 0; i < k && left; ++i) {  // equal keys, earlier runs first
    const u64 take = std::min(left, bound(i, a, true) - cuts[i]);
    cuts[i] += take;
    left -= take;
  }
  return cuts;
}

}  // namespace sb::ooc
