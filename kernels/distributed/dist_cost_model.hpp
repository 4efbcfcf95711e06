// The distributed family's cost model (docs/distributed.md, "The cost model") and dist-auto's
// rule built on it (issue 38): predictions of each way to sort a distributed input from the
// rates measured on the ranks, shared by dist_auto.cu, scripts/dist_model.py's formulas and
// the CPU tests. No CUDA includes: g++ compiles this file.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dist_index.hpp"

namespace sb::dist {

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

// ---- dist-auto (issue 38) ----
//
// dist-auto predicts each way of sorting the distributed input from the rates measured on the
// ranks when the run starts (algo/fabric_rates.hpp) and the bytes each way moves, and takes
// the fastest:
//   one GPU:     every rank sends its slice to rank 0, which sorts the whole input with CUB on
//                the range's bits (for inputs no larger than the L2: a sort that small is made
//                of latencies, and the others pay several collectives for it);
//   dist-hp:     where hp-auto's rule picks an H-P histogram for n/G keys of the range; with a
//                payload it sorts the pairs on the range's bits and exchanges them once on
//                exact splitters (dist_hp_pairs.cu): the sample sort's exchange and merges
//                after a shorter local sort (6.17 against 6.48 ms at 2^28 pairs, delta =
//                sigma = 50, over peer copies on 2 H200s); on two ranks it splits first, and
//                the exchange travels beside the kept piece's sort;
//   sample sort: always possible.
// Times are bytes of memory traffic over the copy rate (a copy reads and writes each byte, so
// it moves 2 bytes a byte copied), scaled by how much of it each kind of kernel reaches, plus
// the collectives' latencies and the kernel launches each way waits on.

enum class DistChoice { one_gpu, hp, sample_sort };

inline const char* dist_choice_name(DistChoice c) {
  switch (c) {
    case DistChoice::one_gpu: return "one-gpu";
    case DistChoice::hp: return "dist-hp";
    case DistChoice::sample_sort: break;
  }
  return "dist-sample-sort";
}

struct DistRates {
  double copy_gbs = 0;      // device memory: GB copied per second (cudaMemcpy)
  double exchange_gbs = 0;  // GB a GPU sends per second in an all-to-all
  double latency_s = 0;     // one small collective
  double launch_s = 0;      // one kernel launch
};

struct DistShape {
  std::uint64_t n = 0;
  int world = 1;
  unsigned key_bytes = 4, value_bytes = 0;
  unsigned range_bits = 32;   // bits a radix sort of the range sorts (the key's width for floats)
  unsigned key_bits = 32;     // the sample sort's local sort: every bit of the key
  bool hp = false;            // dist-hp takes it with an H-P histogram (with a payload too)
  std::uint64_t range = 0;    // dist-hp's bins
  std::uint64_t distinct = 0; // distinct keys where the input's facts know them; 0: unknown
  unsigned hp_levels = 1;     // 2: hp-tiled partitions first (12 more bytes a key)
  unsigned count_bytes = 4;   // dist-hp's global counts
  bool one_gpu = false;       // small enough to gather on rank 0
  double l2_bytes = 0;        // the smallest L2 cache of the ranks' GPUs
};

// Share of the copy rate's traffic (2 bytes a byte copied) each kind of kernel reaches: CUB's
// onesweep passes, hp's histogram and expansion, CUB's merge. Ratios, measured on an H200 pair
// (cub-radix-bits on 2^31 keys of 26 bits moved 1.88 TB/s beside a 2.04 TB/s copy, i.e. 4.08
// TB/s of traffic; dist-hp's local part at 2^30 keys a rank, dist-sample-sort's merge of 2^30;
// docs/distributed.md, dist-auto): ratios to the GPU's own copy rate carry to another GPU whose
// kernels are bound by the same memory, where a time would not.
constexpr double kRadixShare = 0.46, kHpShare = 0.65, kMergeShare = 0.85;

inline unsigned radix_passes(unsigned bits) { return bits ? (bits + 7) / 8 : 1; }

// A pair's lookup of its key's rank in split first's table of a count a bin (4 bytes a bin), as
// bytes of copy traffic at the hp kernels' share: where the table fits the L2 cache about 10
// (2^25 lookups into 5.4 MB took 0.13 ms beside a 2.0 TB/s copy on an H200), else a 32-byte
// sector from memory (2^29 lookups into 86 MB cost about what the radix pass they saved did:
// 26.8 ms against 26.5 on the range's bits, two H200s).
inline double rank_lookup_bytes(const DistShape& s) { return 4.0 * double(s.range) <= s.l2_bytes ? 10.0 : 32.0; }

// CUB's radix sort of m elements on `bits` bits: one read to count every digit, then a read and
// a write of keys and values per 8-bit pass; a few launches per pass.
inline double radix_sort_s(double m, unsigned bits, unsigned k, unsigned v, const DistRates& r) {
  const unsigned passes = radix_passes(bits);
  const double traffic = m * k + passes * m * 2.0 * (k + v);
  return traffic / (2.0 * r.copy_gbs * 1e9) / kRadixShare + (2.0 + 2.0 * passes) * r.launch_s;
}

inline double dist_one_gpu_s(const DistShape& s, const DistRates& r) {
  const double g = s.world;
  const double gather = g > 1 ? s.n * double(s.key_bytes + s.value_bytes) * (g - 1) / g / (r.exchange_gbs * 1e9) +
                                    r.latency_s
                              : 0.0;
  return gather + radix_sort_s(double(s.n), s.range_bits, s.key_bytes, s.value_bytes, r);
}

// The sample sort's and dist-hp pairs' second half: the all-to-all of a rank's m elements
// (the share that stays home costs nothing), the log2 G rounds of merges, and their
// collectives and host round trips. In `chunks` chunks (sort-first on two ranks) the merges of
// all but the last run beside the exchange, and each chunk adds an exchange of its own.
inline double exchange_and_merge_s(const DistShape& s, const DistRates& r, int chunks = 1) {
  const double g = s.world, m = double(s.n) / g, e = s.key_bytes + s.value_bytes;
  if (g <= 1) return 0.0;
  unsigned rounds = 0;
  for (int w = 1; w < s.world; w *= 2) ++rounds;
  const double exchange = m * e * (g - 1) / g / (r.exchange_gbs * 1e9);
  const double merges = rounds * m * 2.0 * e / (2.0 * r.copy_gbs * 1e9) / kMergeShare;
  const double fixed = 3.0 * r.latency_s + 3.0 * 2.0 * r.latency_s + 6.0 * r.launch_s;  // 3 collectives, 3 round trips
  if (chunks <= 1) return exchange + merges + fixed;
  const double c = chunks;
  return std::max(exchange, merges * (c - 1) / c) + merges / c + fixed + (c - 1) * (r.latency_s + 2.0 * r.launch_s);
}

inline double dist_hp_s(const DistShape& s, const DistRates& r) {
  const double g = s.world, m = double(s.n) / g, k = s.key_bytes;
  const double reduce = g > 1 ? 2.0 * (g - 1) / g * s.count_bytes * double(s.range) / (r.exchange_gbs * 1e9) : 0.0;
  if (s.value_bytes) {
    // dist_hp_pairs.cu: the histogram (a read of the keys and the hybrid's 2-byte low bits,
    // the bins' counts), the pairs' radix sort on the range's bits, the all-reduce of the
    // bins, then the sample sort's exchange and merges.
    const double histogram =
        (m * (k + (s.hp_levels == 2 ? 8.0 : 0.0) + 4.0) + double(s.range) * s.count_bytes) /
        (2.0 * r.copy_gbs * 1e9) / kHpShare;
    if (s.world == 2) {
      // Split first: the rank's counts below the boundary bin (a read of its bins), the split
      // (one pass: a read and a write of the pairs), the peer's piece crossing beside the kept
      // piece's sort, the received piece's sort and one merge; three collectives and a host
      // round trip (the cuts, read beside the split).
      // Where the distinct count is known and its ranks take fewer passes, the sorts take them
      // (dist_hp_pairs.cu), after a scan of the bins' presence and a write of each rank's bin;
      // the split looks each pair's rank up in a count a bin (rank_lookup_bytes). Ranks of up
      // to 16 bits are 2-byte keys from the split's write to the merge's read.
      const double e = k + s.value_bytes, sent = m * (g - 1) / g;
      const std::uint64_t slice = s.n / std::uint64_t(s.world);
      const int rank_bits = s.distinct && present_ranks_worth_counting(s.range, slice, int(s.range_bits))
                                ? present_rank_bits(s.distinct, int(s.range_bits))
                                : 0;
      const unsigned sort_bits = rank_bits ? unsigned(rank_bits) : s.range_bits;
      const unsigned moved_key_bytes = ranks_in_two_bytes(rank_bits) ? 2u : s.key_bytes;
      const double moved = moved_key_bytes + s.value_bytes;
      const double ranks =
          rank_bits ? 3.0 * double(s.range) * 4 + double(s.distinct) * 4 + m * rank_lookup_bytes(s) : 0.0;
      const double split = (double(s.range) * s.count_bytes + m * (e + moved) + ranks) /
                           (2.0 * r.copy_gbs * 1e9) / kHpShare;
      const double kept_sort = radix_sort_s(m - sent, sort_bits, moved_key_bytes, s.value_bytes, r);
      const double received_sort = radix_sort_s(sent, sort_bits, moved_key_bytes, s.value_bytes, r);
      const double merge = m * (moved + e) / (2.0 * r.copy_gbs * 1e9) / kMergeShare;
      return histogram + reduce + split + std::max(sent * moved / (r.exchange_gbs * 1e9), kept_sort) +
             received_sort + merge + 3.0 * r.latency_s + 2.0 * r.latency_s + 6.0 * r.launch_s;
    }
    return histogram + radix_sort_s(m, s.range_bits, s.key_bytes, s.value_bytes, r) + reduce + r.latency_s +
           exchange_and_merge_s(s, r);
  }
  // Read the keys (two levels: write and read them again partitioned), write and read 2 bytes
  // of low bits, write the output; per bin: count it; per bin of the rank's share (dist_hp.cu
  // reduce-scatters on two ranks; more ranks all-reduce and scan every bin): reduce, scan,
  // runs, clip, search. The reduce-scatter sends half an all-reduce's bytes; the key counts'
  // all-gather and the host's read of them add a round trip. Where the received shares fit the
  // input buffer they travel while the next share is counted (share_in_turn): what is left in
  // sight is the last turn's send past the counting of the rank's own share (its low bits), and
  // the sum of the received shares.
  const double per_key = k + (s.hp_levels == 2 ? 8.0 : 0.0) + 4.0 + k;
  const bool scatter = s.world == 2;  // dist_hp.cu scatter_reduce: more ranks all-reduce
  const double bins = double(s.range), share = scatter ? bins / g : bins;
  const std::uint64_t capacity = largest_slice(s.n, std::uint64_t(s.world));  // dist-hp's buffers
  const bool sent_in_turn = scatter && received_shares_fit(s.range, std::uint64_t(s.world),
                                                           capacity * std::uint64_t(k), std::uint64_t(s.count_bytes));
  const double rate = 2.0 * r.copy_gbs * 1e9 * kHpShare;
  const double local =
      (m * per_key + bins * s.count_bytes + share * (3.0 * s.count_bytes + k + 8.0) +
       (sent_in_turn ? share * s.count_bytes * (g + 1.0) : 0.0)) / rate;
  const double in_sight = !scatter ? reduce
                          : sent_in_turn ? std::max(0.0, reduce / 2.0 / (g - 1.0) - m * 2.0 / g / rate)
                                         : reduce / 2.0;
  return local + in_sight + (scatter ? 4.0 : 2.0) * r.latency_s + 14.0 * r.launch_s;
}

inline double dist_sample_sort_s(const DistShape& s, const DistRates& r) {
  const double m = double(s.n) / s.world;
  return radix_sort_s(m, s.key_bits, s.key_bytes, s.value_bytes, r) +
         exchange_and_merge_s(s, r, sort_first_chunks(s.n, std::uint64_t(s.world)));
}

// What a GPU's profile measured of each way against its prediction (`sortbench tune --gpus N`:
// the median of measured / predicted time over the sizes it sorted, for this world and with or
// without values): the model's rates are the GPU's own, but how much of them each way's kernels
// and collectives reach differs from card to card and link to link.
struct DistScales {
  double one_gpu = 1, hp = 1, sample_sort = 1;
  double of(DistChoice c) const {
    return c == DistChoice::one_gpu ? one_gpu : c == DistChoice::hp ? hp : sample_sort;
  }
};

// The fastest way by the predictions, each scaled by the profile's measure of it (ties to the
// one that moves fewer keys).
inline DistChoice dist_choice(const DistShape& s, const DistRates& r, const DistScales& scales = {}) {
  DistChoice best = DistChoice::sample_sort;
  double t = scales.sample_sort * dist_sample_sort_s(s, r);
  if (s.hp && scales.hp * dist_hp_s(s, r) <= t) best = DistChoice::hp, t = scales.hp * dist_hp_s(s, r);
  if (s.one_gpu && scales.one_gpu * dist_one_gpu_s(s, r) < t) best = DistChoice::one_gpu;
  return best;
}

}  // namespace sb::dist
