// cpu-hp, cpu-hp-1, cpu-hp-0c: seed 004's Algorithms 2, 3 and 5 written literally as
// sequential C++, with Algorithm 1's Histogram and Prefix-Sums subroutines. They are the
// readable reference for the CUDA versions and are tested against std::sort.
// Departures: indices are 0-based (A[i] counts value minVal + i); Algorithm 5 line 13 zeroes
// B over n, not len (the printed bound is a typo: B has n entries); arithmetic on keys is
// modular uint32 so that i32 keys with a negative minVal need no special case.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "hp.hpp"
#include "hp_index.hpp"

namespace sb::hp {
namespace {

using Array = std::vector<std::uint32_t>;

// Host arrays of range entries above this many bins are refused rather than allocated.
constexpr std::uint64_t kHostMaxBins = std::uint64_t{1} << 28;

// Algorithm 1, Histogram(data, hist, n, binmin, binmax): hist[v - binmin] counts value v.
void histogram(const std::uint32_t* data, Array& hist, std::uint64_t n, std::uint32_t binmin, std::uint64_t bins) {
  hist.assign(bins, 0);
  for (std::uint64_t i = 0; i < n; ++i) ++hist[data[i] - binmin];
}

// Algorithm 1, Prefix-Sums(data, datap, from, to, init): inclusive sums of data[from..to)
// started from init.
void prefix_sums(const std::uint32_t* data, std::uint32_t* datap, std::uint64_t from, std::uint64_t to,
                 std::uint32_t init) {
  std::uint32_t sum = init;
  for (std::uint64_t i = from; i < to; ++i) datap[i] = sum += data[i];
}

// Algorithm 2 (H-P sort).
void hp_sort(std::uint32_t* x, std::uint64_t n, std::uint32_t min_val, std::uint64_t range) {
  Array A, B;
  Array Ap(range);
  histogram(x, A, n, min_val, range);           // 1: Histogram(x, A, n, minVal, maxVal)
  prefix_sums(A.data(), Ap.data(), 0, range, 0);  // 2: Prefix-Sums(A, Ap, minVal, maxVal, 0)
  histogram(Ap.data(), B, range, 0, n + 1);     // 3: Histogram(Ap, B, range, 0, n); Ap[range-1] = n
  prefix_sums(B.data(), x, 0, n, min_val);      // 4: Prefix-Sums(B, y, 0, n, minVal)
}

// Algorithm 3 (1-H-P sort), distinct keys only.
void one_hp_sort(std::uint32_t* x, std::uint64_t n, std::uint32_t min_val, std::uint64_t range) {
  Array A;
  Array Ap(range);
  histogram(x, A, n, min_val, range);             // 1
  prefix_sums(A.data(), Ap.data(), 0, range, 0);  // 2
  std::uint32_t* y = x;                           // x is no longer read
  if (Ap[0] != 0) y[0] = min_val;                 // 3
  for (std::uint64_t i = 1; i < range; ++i)       // 4
    if (Ap[i] != Ap[i - 1]) y[Ap[i - 1]] = min_val + static_cast<std::uint32_t>(i);  // 5
}

// Algorithm 5 (0-compressed H-P sort).
void zero_compressed_hp_sort(std::uint32_t* x, std::uint64_t n, std::uint32_t min_val, std::uint64_t range) {
  Array A;
  histogram(x, A, n, min_val, range);                                           // 1
  Array A01(range), A01p(range);
  for (std::uint64_t i = 0; i < range; ++i) A01[i] = A[i] > 0 ? 1 : 0;          // 2-3
  prefix_sums(A01.data(), A01p.data(), 0, range, 0);                            // 4
  const std::uint32_t len = A01p[range - 1];                                    // 5
  Array C(len + 1), Cp(len + 1), iC(len + 1);                                   // 6
  for (std::uint64_t i = 0; i < range; ++i)                                     // 7
    if (A[i] > 0) {                                                             // 8
      C[A01p[i]] = A[i];                                                        // 9
      iC[A01p[i]] = min_val + static_cast<std::uint32_t>(i);                    // 10
    }
  prefix_sums(C.data(), Cp.data(), 1, len + 1, 0);                              // 12
  Array B(n, 0);                                                                // 13 (over n)
  Cp[0] = 0;                                                                    // 14
  iC[0] = 0;                                                                    // 15
  for (std::uint32_t i = 0; i < len; ++i) B[Cp[i]] = iC[i + 1] - iC[i];         // 16
  prefix_sums(B.data(), x, 0, n, 0);                                            // 17
}

using SortFn = void (*)(std::uint32_t*, std::uint64_t, std::uint32_t, std::uint64_t);

Algorithm cpu_member(std::string name, std::string source, SortFn sort) {
  Algorithm a = family_base(std::move(name), Backend::cpu, std::move(source));
  a.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (auto why = common_limits(p)) return why;
    if (problem_range(p) > kHostMaxBins)
      return fmt::format("range {} above 2^28 bins: host arrays of range entries", problem_range(p));
    return std::nullopt;
  };
  a.run_host = [sort](const SortProblem& p, const HostBuffers& b) {
    if (p.n() == 0) return;
    sort(static_cast<std::uint32_t*>(b.keys), p.n(), word_of(p.facts.min), problem_range(p));
  };
  return a;
}

}  // namespace

void add_cpu(Registry& r) {
  r.add(cpu_member("cpu-hp", "seed 004 Algorithm 2 (H-P sort), sequential", hp_sort));
  Algorithm one = cpu_member("cpu-hp-1", "seed 004 Algorithm 3 (1-H-P sort), sequential", one_hp_sort);
  one.constraints = "distinct keys only";
  one.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (!p.keys_distinct()) return std::string("needs distinct keys");
    if (auto why = common_limits(p)) return why;
    if (problem_range(p) > kHostMaxBins)
      return fmt::format("range {} above 2^28 bins: host arrays of range entries", problem_range(p));
    return std::nullopt;
  };
  r.add(one);
  r.add(cpu_member("cpu-hp-0c", "seed 004 Algorithm 5 (0-compressed H-P sort), sequential", zero_compressed_hp_sort));
}

}  // namespace sb::hp
