// hp-stable: a stable H-P sort of keys with a payload (index, u32, u64), the future work of seed 004
// section 8 ("a stable version, usable for radix-sort digits and key + value pairs").
// One stable pass is H-P's histogram + prefix sums over one digit of the key's offset from
// minVal: per-part digit histograms, an exclusive scan across (digit, part), then a
// scatter that ranks equal digits in input order (warp match + per-warp counts). Passes
// run from the least significant digit over bit_width(range - 1) bits, so the passes and
// the work follow the input's range, not the key width. Keys u32, i32, u64, i64 as words W
// (hp_index word_offset); ranges up to 2^32 (four passes). add_stable also registers
// hp-split-stable (issue 40), whose launches are in hp_split_stable.cu.
#include <cub/device/device_scan.cuh>

#include "hp.hpp"
#include "hp_index.hpp"
#include "hp_split_stable.hpp"
#include "sortbench/core/cuda_check.hpp"

namespace sb::hp {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr unsigned kDigitBits = 8;
constexpr unsigned kDigits = 1u << kDigitBits;
constexpr unsigned kBlock = kDigits;  // one thread per digit in the per-tile exchange
constexpr unsigned kWarps = kBlock / 32;
constexpr u64 kKeysPerPart = 8192;
constexpr u64 kMaxParts = 2048;

// Digit counts of part blockIdx.x, stored digit-major: counts[d * parts + p].
template <typename W>
__global__ void __launch_bounds__(kBlock) digit_count(const W* keys, u64 n, W min_word, unsigned shift,
                                                      u32* counts) {
  __shared__ u32 s_count[kDigits];
  s_count[threadIdx.x] = 0;
  __syncthreads();
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 1, lo, hi);
  for (u64 i = lo + threadIdx.x; i < hi; i += kBlock)
    atomicAdd(&s_count[digit_of(word_offset<W>(keys[i], min_word), shift, kDigitBits)], 1u);
  __syncthreads();
  counts[u64{threadIdx.x} * gridDim.x + blockIdx.x] = s_count[threadIdx.x];
}

// Stable scatter of part blockIdx.x, one tile of kBlock keys at a time in input order:
// rank inside a warp from the lanes with the same digit, warps ordered by an exchange.
// V is NoValue for keys only (vals_in and vals_out unused).
template <typename W, typename V>
__global__ void __launch_bounds__(kBlock) digit_scatter(const W* keys_in, const V* vals_in, u64 n, W min_word,
                                                        unsigned shift, const u32* offsets, W* keys_out,
                                                        V* vals_out) {
  __shared__ u32 s_next[kDigits];             // next output position of each digit
  __shared__ u32 s_warp_count[kWarps][kDigits];
  __shared__ u32 s_warp_base[kWarps][kDigits];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  s_next[threadIdx.x] = offsets[u64{threadIdx.x} * gridDim.x + blockIdx.x];
  for (unsigned w = 0; w < kWarps; ++w) s_warp_count[w][threadIdx.x] = 0;
  __syncthreads();
  u64 lo, hi;
  part_bounds(n, gridDim.x, blockIdx.x, 1, lo, hi);
  for (u64 tile = lo; tile < hi; tile += kBlock) {
    const u64 i = tile + threadIdx.x;
    const bool live = i < hi;
    const W key = live ? keys_in[i] : W{};
    const u32 digit = live ? digit_of(word_offset<W>(key, min_word), shift, kDigitBits) : kDigits;
    const unsigned peers = __match_any_sync(0xffffffffu, digit);
    const unsigned rank = __popc(peers & ((1u << lane) - 1));
    if (live && rank == 0) s_warp_count[warp][digit] = __popc(peers);
    __syncthreads();
    u32 next = s_next[threadIdx.x];  // thread d orders digit d across the warps
    for (unsigned w = 0; w < kWarps; ++w) {
      s_warp_base[w][threadIdx.x] = next;
      next += s_warp_count[w][threadIdx.x];
      s_warp_count[w][threadIdx.x] = 0;
    }
    s_next[threadIdx.x] = next;
    __syncthreads();
    if (live) {
      const u32 at = s_warp_base[warp][digit] + rank;
      keys_out[at] = key;
      if constexpr (!std::is_same_v<V, NoValue>) vals_out[at] = vals_in[i];
    }
  }
}

u64 parts_for(u64 n) { return std::min(kMaxParts, ceil_div(n ? n : 1, kKeysPerPart)); }

std::size_t count_scan_bytes(u64 items) {
  std::size_t bytes = 0;
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<u32*>(nullptr), static_cast<u32*>(nullptr),
                                              static_cast<std::int64_t>(items)));
  return bytes;
}

struct StableArrays {
  u32* counts;
  void* temp;
  std::size_t temp_bytes, bytes;
  StableArrays(char* base, u64 parts) {
    Carve c;
    counts = reinterpret_cast<u32*>(base + c.take(parts * kDigits * sizeof(u32)));
    temp_bytes = count_scan_bytes(parts * kDigits);
    temp = base + c.take(temp_bytes);
    bytes = c.used;
  }
};

template <typename K, typename V>
int run_stable(const SortProblem& p, const Buffers<K, V>& b) {
  using W = typename KeyTraits<K>::Ordered;
  const u64 n = p.n();
  if (n < 2) return 0;
  const W min_word = min_word_of<K>(p.facts.min_ordered);
  const unsigned bits = bits_for_range(problem_range(p));
  const u64 parts = parts_for(n);
  StableArrays a(static_cast<char*>(b.workspace), parts);
  int src = 0;
  for (unsigned shift = 0; shift < bits; shift += kDigitBits, src ^= 1) {
    const W* keys_in = reinterpret_cast<const W*>(b.keys[src]);
    digit_count<W><<<unsigned(parts), kBlock, 0, b.stream>>>(keys_in, n, min_word, shift, a.counts);
    SB_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = a.temp_bytes;
    SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(a.temp, temp_bytes, a.counts, a.counts,
                                                static_cast<std::int64_t>(parts * kDigits), b.stream));
    digit_scatter<W, V><<<unsigned(parts), kBlock, 0, b.stream>>>(keys_in, b.vals[src], n, min_word, shift,
                                                                 a.counts, reinterpret_cast<W*>(b.keys[src ^ 1]),
                                                                 b.vals[src ^ 1]);
    SB_CUDA_CHECK_LAUNCH();
  }
  return src;
}

}  // namespace

void add_stable(Registry& r) {
  Algorithm a = family_base("hp-stable", Backend::gpu,
                            "seed 004 section 8 future work: stable H-P passes (histogram + prefix sums per "
                            "8-bit digit of key - minVal) carrying a payload");
  a.stable = true;
  a.unsupported = common_limits;
  a.workspace_bytes = [](const SortProblem& p) { return StableArrays(nullptr, parts_for(p.n())).bytes; };
  set_device_run<IntegerKeys, AllValues>(a, [](auto b, const SortProblem& p) { return run_stable(p, b); });
  a.details = [](const SortProblem& p) {
    TrafficInput in;
    in.digit_passes = (bits_for_range(problem_range(p)) + kDigitBits - 1) / kDigitBits;  // none for one value
    return Details{{"count_bits", "32"}, traffic_detail(TrafficPath::digit_passes, p, in)};
  };
  r.add(a);
  add_split_stable(r);  // issue 40's stable key-value H-P (hp_split_stable.cu)
}

}  // namespace sb::hp
