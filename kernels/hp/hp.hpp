// The H-P family (seed 004, Kozakai 2022: integer sorting by histogram and prefix sums).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hp_traffic.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::hp {

void add_paper(Registry& r);   // hp, hp-1, hp-0c: the paper's CUDA kernels (section 5)
void add_cpu(Registry& r);     // cpu-hp, cpu-hp-1, cpu-hp-0c: Algorithms 2, 3, 5 as sequential C++
void add_fast(Registry& r);    // hp-smem, hp-global, hp-hybrid, hp-auto: beyond the paper
void add_stable(Registry& r);  // hp-stable (the paper's section 8 future work), hp-split-stable (issue 40)

// Common description of a family member.
Algorithm family_base(std::string name, Backend backend, std::string source);
// realized maxVal - minVal (ordered form, saturated at 2^64 - 1).
std::uint64_t problem_range(const SortProblem& p);
// A reason when a 32-bit bin offset cannot hold the range, with the histogram's byte count.
std::optional<std::string> range_limit(const SortProblem& p);
// "unsupported" reasons every member shares: n and range limits of 32-bit counters.
// Members of 64-bit integer keys take any such key whose range fits 32-bit offsets; float
// keys are declined by their key types (hp-auto hands them to CUB).
std::optional<std::string> common_limits(const SortProblem& p);
// details.traffic_bytes_per_key for the path a member took on this problem (hp_traffic.hpp): `in`
// says how (counters, expansion, passes); the problem gives the widths, n, range and distinct count.
Details::value_type traffic_detail(TrafficPath path, const SortProblem& p, TrafficInput in = {});

// The fast versions' histogram, for other families (dist-hp): counts keys[0, n) of the
// problem's key type by offset from its realized minimum into 32-bit bins, with the variant
// hp-auto's rule picks for n keys (shared, hybrid, or global where it would use CUB). low
// holds 2 bytes a key (the hybrid's bucketed low bits); workspace holds histogram_bytes(p, n)
// and, on return, the histogram, whose address is returned. prepare_histogram sets the
// kernels' shared-memory limits on a device (untimed).
const char* histogram_name(const SortProblem& p, std::uint64_t n);
// Why that histogram cannot take the problem (range past shared memory or the hybrid's
// buckets, 32-bit limits), or nullopt.
std::optional<std::string> histogram_unsupported(const SortProblem& p, std::uint64_t n);
std::size_t histogram_bytes(const SortProblem& p, std::uint64_t n);
// 2 where that histogram is hp-tiled's in two levels (the keys partitioned first), else 1.
unsigned histogram_levels(const SortProblem& p, std::uint64_t n);
void prepare_histogram(const SortProblem& p, std::uint64_t n, const DeviceContext& device);
// Bin ranges in the order a histogram should complete them, and what follows each: done(k,
// counts) is called once range k's counts are whole on the stream (dist-hp sends a share of the
// bins to its rank while the next share is counted). The hybrid counts the buckets each range
// reaches in turn; the other variants count every bin, then call done for each range.
struct BinOrder {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> bins;
  std::function<void(std::size_t, const std::uint32_t*)> done;
};
std::uint32_t* histogram(const SortProblem& p, const void* keys, std::uint64_t n, void* low, void* workspace,
                         const DeviceContext& device, const BinOrder* order = nullptr);

}  // namespace sb::hp
