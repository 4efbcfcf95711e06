// The cost of each radix-lsd phase (issue 5): histogram, scan and scatter of every pass
// timed with CUDA events between the phases, summed over the passes of one sort, median of
// several sorts, for 2^26 uniform u32 keys (range 2^26: 26 bits to sort) at 4 and 8 bits,
// and 2^26 u64 keys over the whole domain (64 bits) at 8 bits, keys only and with a u64
// payload. Prints tables (docs/radix.md quotes them) and checks that the timed sorts did sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "radix/radix.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/core/values.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

constexpr int kSamples = 7;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times the phases of radix-lsd on spec (generated on the device) at each digit width, prints
// one table row per width, and checks the last sort: keys in order, payload values in stable
// order (each value names its input position, values.hpp).
template <typename K, typename V>
void time_phases(const InputSpec& spec, const std::vector<unsigned>& widths) {
  constexpr bool kValues = !std::is_same_v<V, NoValue>;
  const std::size_t kb = spec.n * sizeof(K), vb = kValues ? spec.n * sizeof(V) : 0;
  DeviceBuffer input(kb), keys0(kb), keys1(kb), vals_input(vb), vals0(vb), vals1(vb);
  generate_device(spec, input.get(), kValues ? vals_input.get() : nullptr, nullptr);
  const KeyFacts stats = input_stats_device(spec, input.get(), nullptr);
  std::cout << fmt::format("radix-lsd phases, n = 2^{} {} {} keys, payload {}, ordered range [{:#x}, {:#x}], "
                           "ms per sort (median of {}):\n",
                           radix::bit_width64(spec.n) - 1, to_string(spec.dist), to_string(spec.key), to_string(spec.payload),
                           stats.min_ordered, stats.max_ordered, kSamples);
  std::cout << fmt::format("{:>4} {:>6} {:>10} {:>10} {:>10} {:>10}\n", "bits", "passes", "histogram", "scan",
                           "scatter", "total");
  const DeviceContext device = current_device_context(nullptr);
  for (unsigned bits : widths) {
    const SortProblem problem{spec.shape(), stats, {{"radix-bits", std::to_string(bits)}}, RangeMode::given, &device};
    const unsigned passes = radix::pass_plan(problem).passes();
    DeviceBuffer workspace(radix::lsd_workspace_bytes(problem));
    DeviceBuffers b;
    b.keys[0] = keys0.get();
    b.keys[1] = keys1.get();
    b.vals[0] = vals0.get();
    b.vals[1] = vals1.get();
    b.workspace = workspace.get();
    b.workspace_bytes = workspace.bytes();
    b.device = &device;
    std::vector<cudaEvent_t> events(3 * passes + 1);
    for (auto& e : events) SB_CUDA_CHECK(cudaEventCreate(&e));
    std::array<std::vector<double>, 3> phase_ms;
    std::vector<double> total_ms;
    int result = 0;
    for (int sample = -1; sample < kSamples; ++sample) {  // sample -1: warm-up
      SB_CUDA_CHECK(cudaMemcpy(keys0.get(), input.get(), kb, cudaMemcpyDeviceToDevice));
      if (vb) SB_CUDA_CHECK(cudaMemcpy(vals0.get(), vals_input.get(), vb, cudaMemcpyDeviceToDevice));
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      std::size_t next = 0;
      SB_CUDA_CHECK(cudaEventRecord(events[next++], nullptr));
      result = radix::lsd_sort(typed_buffers<K, V>(b), problem, [&](unsigned, radix::LsdPhase) {
        SB_CUDA_CHECK(cudaEventRecord(events[next++], nullptr));
      });
      ASSERT_EQ(next, events.size());
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      if (sample < 0) continue;
      std::array<double, 3> sum{};
      for (std::size_t i = 1; i < events.size(); ++i) {
        float ms = 0;
        SB_CUDA_CHECK(cudaEventElapsedTime(&ms, events[i - 1], events[i]));
        sum[(i - 1) % 3] += ms;
      }
      float total = 0;
      SB_CUDA_CHECK(cudaEventElapsedTime(&total, events.front(), events.back()));
      for (int p = 0; p < 3; ++p) phase_ms[p].push_back(sum[p]);
      total_ms.push_back(total);
    }
    for (auto& e : events) SB_CUDA_CHECK(cudaEventDestroy(e));
    std::cout << fmt::format("{:>4} {:>6} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f}\n", bits, passes,
                             median(phase_ms[0]), median(phase_ms[1]), median(phase_ms[2]), median(total_ms));

    std::vector<K> out(spec.n);
    SB_CUDA_CHECK(cudaMemcpy(out.data(), b.keys[result], kb, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::is_sorted(out.begin(), out.end())) << "bits=" << bits;
    if constexpr (kValues) {
      std::vector<K> in(spec.n);
      std::vector<V> vals(spec.n);
      SB_CUDA_CHECK(cudaMemcpy(in.data(), input.get(), kb, cudaMemcpyDeviceToHost));
      SB_CUDA_CHECK(cudaMemcpy(vals.data(), b.vals[result], vb, cudaMemcpyDeviceToHost));
      std::uint64_t bad = 0, prev = 0;
      for (std::uint64_t i = 0; i < spec.n; ++i) {
        std::uint64_t at = 0;
        if (!decode_value(spec.payload, vals[i], at) || at >= spec.n || !bits_equal(in[at], out[i]) ||
            (i > 0 && bits_equal(out[i - 1], out[i]) && prev > at))
          ++bad;
        prev = at;
      }
      EXPECT_EQ(bad, 0u) << "bits=" << bits;
    }
  }
}

TEST(RadixPhases, TimesHistogramScanScatterAt2Pow26) {
  // u32 over [0, 2^26): 26 bits to sort.
  time_phases<std::uint32_t, NoValue>(
      make_spec(std::uint64_t{1} << 26, Distribution::uniform, KeyType::u32, Payload::none), {4u, 8u});
}

TEST(RadixPhases, TimesSixtyFourBitKeysOverTheWholeDomainAt2Pow26) {
  // u64 over [0, 2^64): 64 bits to sort, 8 passes at 8 bits; then with a u64 payload.
  InputRequest r;
  r.n = std::uint64_t{1} << 26;
  r.key = KeyType::u64;
  r.min_val = 0;
  r.max_val = wide_t{1} << 64;
  time_phases<std::uint64_t, NoValue>(derive_input_spec(r), {8u});
  r.payload = Payload::u64;
  time_phases<std::uint64_t, std::uint64_t>(derive_input_spec(r), {8u});
}

}  // namespace
}  // namespace sb::test
