// Index arithmetic of the distributed family (issue 15), shared by the kernels, the rank
// harness and the CPU tests. No CUDA includes: g++ compiles this file.
//
// Slices (core/slices.hpp): rank r of G owns global positions [slice_begin(r), slice_begin(r + 1)):
// the input rank r holds and the output slice the H-P sort writes. Sample sort: regular sampling (PSRS, Shi and Schaeffer 1992; the sample
// sort of the SIGMOD 2022 multi-GPU sorting study, Maltenberger et al.) with splitters that
// break ties by (rank, local index), so that all-equal keys still split evenly.
#pragma once

#include <cstdint>

#include "sortbench/core/hd.hpp"
#include "sortbench/core/slices.hpp"

namespace sb::dist {

// ---- sample sort ----

// Sample j (0 <= j < samples) of a sorted local run of m elements: regular positions
// (j + 1) * m / (samples + 1), so the samples cut the run into samples + 1 near-equal parts.
SB_HD_INLINE std::uint64_t sample_position(std::uint64_t j, std::uint64_t samples, std::uint64_t m) {
  return slice_begin(j + 1, m, samples + 1);
}

// A sample names its key by position: (key, rank, local index) orders every element of the
// global input uniquely, equal keys by rank and then by position in the rank's sorted run.
struct SampleTag {
  std::uint32_t rank;
  std::uint64_t index;
};

// How many elements of rank r's sorted run fall below the splitter (key, tag), given the run's
// lower and upper bounds of that key: [lower, upper) holds the elements equal to it.
SB_HD_INLINE std::uint64_t split_point(std::uint64_t lower, std::uint64_t upper, std::uint32_t r,
                                       const SampleTag& tag) {
  if (r < tag.rank) return upper;
  if (r > tag.rank) return lower;
  return tag.index < lower ? lower : (tag.index > upper ? upper : tag.index);
}

// Splitter d (1 <= d < G) among the G * s samples sorted by (key, rank, index): the sample at
// d * s, which leaves s samples (about m / G elements of each rank) per destination.
SB_HD_INLINE std::uint64_t splitter_sample(std::uint64_t d, std::uint64_t per_rank_samples) {
  return d * per_rank_samples;
}

// Receive capacity a rank sizes its buffers for: regular sampling bounds every destination's
// share of rank q's run by (s + 1) consecutive gaps of ceil(m_q / (s + 1)) elements, i.e.
// n / G + G * ceil(m_max / (s + 1)) over all ranks; the exchange checks the real counts.
SB_HD_INLINE std::uint64_t receive_capacity(std::uint64_t n, std::uint64_t world, std::uint64_t samples) {
  const std::uint64_t m_max = (n + world - 1) / world;
  return m_max + world * ((m_max + samples) / (samples + 1)) + world;
}

// ---- H-P with a payload: the boundary bins ----

// Rank r's elements in a bin b with global start S (exclusive prefix of the global histogram),
// global count C, rank-prefix P (the bin's count on ranks < r) and local count c take global
// positions S + P + [0, c) in stable order. Of those, how many lie below position B (a slice
// boundary): clamp(B - S - P, 0, c).
SB_HD_INLINE std::uint64_t below_in_bin(std::uint64_t boundary, std::uint64_t bin_start, std::uint64_t rank_prefix,
                                        std::uint64_t local_count) {
  const std::uint64_t first = bin_start + rank_prefix;
  if (boundary <= first) return 0;
  const std::uint64_t d = boundary - first;
  return d < local_count ? d : local_count;
}

// The boundaries that fall in a bin: destination boundary d (1 <= d < G) lies at global position
// slice_begin(d, n, G), and the bin covering [bin_start, bin_end) holds boundaries
// first_boundary_from(bin_start) .. while slice_begin(d) < bin_end. The smallest d >= 1 whose
// boundary is not below `position`; G when none is.
SB_HD_INLINE std::uint64_t first_boundary_from(std::uint64_t position, std::uint64_t n, std::uint64_t world) {
  std::uint64_t lo = 1, hi = world;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (slice_begin(mid, n, world) >= position) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The bin `bin` covers global positions [begin, end) of the sorted input (a non-empty bin of the
// global histogram): records it and its start for every boundary d it holds, at d - 1 of bins
// and starts (several boundaries when one key spans slices).
SB_HD_INLINE void record_boundary_bin(std::uint64_t bin, std::uint64_t begin, std::uint64_t end, std::uint64_t n,
                                      std::uint64_t world, std::uint64_t* bins, std::uint64_t* starts) {
  for (std::uint64_t d = first_boundary_from(begin, n, world); d < world && slice_begin(d, n, world) < end; ++d) {
    bins[d - 1] = bin;
    starts[d - 1] = begin;
  }
}

// Every rank's piece sizes for the exchange, counts[q * G + d] from rank q to rank d, from the
// G - 1 boundary bins: bin_start[d - 1] is the global start of the bin holding boundary d,
// below[q * (G - 1) + d - 1] the number of rank q's elements in lower bins and
// in_bin[q * (G - 1) + d - 1] its elements in that bin. Rank q cuts its sorted run for boundary
// d at below + below_in_bin(boundary, bin start, the bin's count on ranks < q, in_bin); every
// destination receives exactly its slice (a bin's elements take global positions in rank order,
// so the pieces concatenate to the global order and the result is stable). 64-bit throughout.
inline void hp_pair_send_counts(std::uint64_t n, std::uint64_t world, const std::uint64_t* bin_start,
                                const std::uint64_t* below, const std::uint64_t* in_bin, std::uint64_t* counts) {
  const std::uint64_t bounds = world - 1;
  for (std::uint64_t q = 0; q < world; ++q) {
    std::uint64_t previous = 0;
    for (std::uint64_t d = 1; d <= world; ++d) {
      std::uint64_t cut = slice_size(q, n, world);
      if (d < world) {
        std::uint64_t rank_prefix = 0;
        for (std::uint64_t r = 0; r < q; ++r) rank_prefix += in_bin[r * bounds + d - 1];
        cut = below[q * bounds + d - 1] +
              below_in_bin(slice_begin(d, n, world), bin_start[d - 1], rank_prefix, in_bin[q * bounds + d - 1]);
      }
      counts[q * world + d - 1] = cut - previous;
      previous = cut;
    }
  }
}

// ---- cost model (docs/distributed.md) ----

// The machine: `hosts` hosts of `gpus_per_host` GPUs; every GPU sends over the in-host link
// (NVLink) at nvlink_gbs and to other hosts at ib_gbs (one NIC per GPU), in GB/s one way.
struct Fabric {
  double hosts = 1, gpus_per_host = 1;
  double nvlink_gbs = 0, ib_gbs = 0;
  double latency_s = 0;  // per collective
  double world() const { return hosts * gpus_per_host; }
};

// Rates measured on one GPU (G = 1 runs): keys per second of each local part.
struct LocalRates {
  double hp_keys_per_s = 0;     // dist-hp's histogram + expansion
  double sort_keys_per_s = 0;   // the sample sort's local radix sort
  double merge_keys_per_s = 0;  // the merge of the received runs
};

// Seconds to move `bytes` per GPU to the other GPUs, spread evenly: the in-host share over
// NVLink and the rest over InfiniBand proceed at once; the slower one decides.
inline double all_to_all_s(double bytes, const Fabric& f) {
  const double g = f.world();
  if (g <= 1) return 0;
  const double in_host = bytes * (f.gpus_per_host - 1) / g;
  const double off_host = bytes * (g - f.gpus_per_host) / g;
  const double t_nv = f.gpus_per_host > 1 ? in_host / (f.nvlink_gbs * 1e9) : 0;
  const double t_ib = f.hosts > 1 ? off_host / (f.ib_gbs * 1e9) : 0;
  return (t_nv > t_ib ? t_nv : t_ib) + f.latency_s;
}

// A ring all-reduce of `bytes` sends 2 (G - 1) / G of them from every GPU; across hosts the
// ring's slowest hop is InfiniBand.
inline double all_reduce_s(double bytes, const Fabric& f) {
  const double g = f.world();
  if (g <= 1) return 0;
  const double gbs = f.hosts > 1 ? f.ib_gbs : f.nvlink_gbs;
  return 2.0 * (g - 1) / g * bytes / (gbs * 1e9) + f.latency_s;
}

// dist-hp keys only: n/G keys read and written at the local rate, the all-reduce of the
// range-bin histogram of 4-byte counts. The exchange is O(range), whatever n.
inline double predict_dist_hp_s(double n, double range, const LocalRates& r, const Fabric& f) {
  return n / f.world() / r.hp_keys_per_s + all_reduce_s(4.0 * range, f);
}

// dist-sample-sort: local sort of n/G keys, an all-to-all of the rank's key_bytes * n/G (the
// share that stays home costs nothing), the merge of the received n/G keys. O(n) crosses.
inline double predict_sample_sort_s(double n, double key_bytes, const LocalRates& r, const Fabric& f) {
  const double local = n / f.world();
  return local / r.sort_keys_per_s + all_to_all_s(local * key_bytes, f) +
         (f.world() > 1 ? local / r.merge_keys_per_s : 0.0);
}

}  // namespace sb::dist
