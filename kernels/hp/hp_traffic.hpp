// The DRAM bytes a key each H-P path moves (issue 53; docs/hp.md, "Bytes a key"): the model behind
// every H-P row's details.traffic_bytes_per_key, so that a table shows each time's distance to the
// floor of a sort that reads every element once and writes it once. It counts what each pass reads
// and writes of the keys, the values and the intermediates, as docs/hp.md's per-kernel tables do,
// plus the range-sized arrays spread over the keys; caches, the tiles' segment tables and the
// partial sectors at run edges are left out (a few tenths of a byte a key where measured). Host
// code only; CPU-tested against docs/hp.md's totals (tests/hp/hp_traffic_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

namespace sb::hp {

// How an H-P sort got its histogram and placed the keys.
enum class TrafficPath {
  shared,         // hp-smem, hp-global: one read of the keys into the histogram
  hybrid,         // hp-hybrid: bucket counts, a scatter of 2-byte low bits, per-bucket histograms
  tiled,          // hp-tiled (and -stable) keys alone, one level: tiles grouped in place, segments
  tiled_split,    // hp-tiled keys alone, two levels: counts, a partition into super-buckets first
  tiled_pairs,    // hp-tiled (and -stable) with values: grouped tiles, segments, batches placed
  split_pairs,    // hp-split-stable with values: counts, a stable partition, chunk counts, placement
  scatter_pairs,  // hp-smem, hp-global, hp-hybrid with values: the histogram, then a scatter
  digit_passes,   // hp-stable: a counting pass and a scatter per 8-bit digit
  paper,          // hp and hp-0c (Algorithms 2, 5): counts, the n + 1 words of B zeroed, marked and
                  // prefix-summed, the keys written from them
};

struct TrafficInput {
  unsigned key_bytes = 4;
  unsigned value_bytes = 0;   // 0: keys alone
  unsigned count_bytes = 4;   // the histogram's counters (8 from 2^32 keys)
  double n = 0;
  double range = 0;           // bins
  double distinct = 0;        // non-empty bins (0: unknown, taken as min(n, range))
  bool dense = false;         // the expansion reads the scanned counts, not runs
  bool scattered_hybrid = false;  // scatter_pairs: the hybrid's histogram before the scatter
  unsigned digit_passes = 0;  // digit_passes: how many
};

// The range-sized arrays a key: the counters zeroed, filled and read by the scan, then either the
// runs (value and end) of the non-empty bins written and read by the expansion, or, dense, the
// scanned counts written and read.
inline double range_bytes_per_key(const TrafficInput& in) {
  if (in.n <= 0) return 0;
  const double c = in.count_bytes;
  const double distinct = in.distinct > 0 ? in.distinct : std::min(in.n, in.range);
  const double per_range = in.dense ? in.range * 5 * c : in.range * 3 * c + distinct * 2 * (4 + c);
  return per_range / in.n;
}

// With values there is no expansion: the counters are zeroed, filled, scanned in place into the
// bins' cursors, and read where the pairs are placed.
inline double cursor_bytes_per_key(const TrafficInput& in) {
  return in.n > 0 ? in.range * 5 * static_cast<double>(in.count_bytes) / in.n : 0.0;
}

inline double traffic_bytes_per_key(TrafficPath path, const TrafficInput& in) {
  const double k = in.key_bytes, v = in.value_bytes;
  // The low bits the splitting paths keep of a key (2 bytes), and a partition's offsets within
  // a super-bucket (4 bytes).
  constexpr double low = 2, offset = 4;
  switch (path) {
    case TrafficPath::shared:  // keys read; expanded keys written
      return 2 * k + range_bytes_per_key(in);
    case TrafficPath::hybrid:  // counts k; scatter k + low; histograms low; expansion k
      return 3 * k + 2 * low + range_bytes_per_key(in);
    case TrafficPath::tiled:  // grouping k + low; segments low; expansion k
      return 2 * k + 2 * low + range_bytes_per_key(in);
    case TrafficPath::tiled_split:  // counts k; partition k + offset; grouping offset + low; segments low; expansion k
      return 3 * k + 2 * offset + 2 * low + range_bytes_per_key(in);
    case TrafficPath::tiled_pairs:  // grouping k + v, low + v; segments low; placement low + v, k + v
      return 2 * k + 4 * v + 3 * low + cursor_bytes_per_key(in);
    case TrafficPath::split_pairs:  // counts k; partition k + v, low + v; chunk counts low; placement low + v, k + v
      return 3 * k + 4 * v + 3 * low + cursor_bytes_per_key(in);
    case TrafficPath::scatter_pairs:  // the histogram's reads; the scatter reads and writes every pair
      return (in.scattered_hybrid ? 2 * k + 2 * low : k) + 2 * (k + v) + cursor_bytes_per_key(in);
    case TrafficPath::digit_passes:  // per digit: the keys counted, every pair read and written
      return in.digit_passes * (3 * k + 2 * v);
    case TrafficPath::paper:  // counts k; B zeroed, marked, prefix-summed (n + 1 words); keys written
      return k + 4 * 4 + k + range_bytes_per_key(in);
  }
  return 0;
}

}  // namespace sb::hp
