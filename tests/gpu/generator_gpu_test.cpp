// The GPU generator computes the same input as the CPU generator, bit for bit, and the
// device statistics equal the host ones.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/input/generator.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

TEST(GeneratorGpu, MatchesTheCpuBitForBit) {
  for (std::uint64_t n : {1u, 33u, 1025u, 65537u, 1u << 20})
    for (Distribution d : all_distributions())
      for (KeyType k : all_key_types()) {
        if (d == Distribution::real && !is_float_key(k)) continue;
        if (d == Distribution::entropy && is_float_key(k)) continue;
        const bool is_signed = k == KeyType::i32 || k == KeyType::f32 || k == KeyType::i64 || k == KeyType::f64;
        const Payload payload = is_64bit_key(k) ? Payload::u64 : (k == KeyType::u32 ? Payload::u32 : Payload::index);
        const InputSpec spec =
            d == Distribution::entropy
                ? make_spec(n, d, k, payload)
                : make_spec(n, d, k, payload, 0.5, std::nullopt,
                            is_signed ? std::optional<wide_t>(-1000) : std::nullopt);
        const std::size_t kb = n * key_bytes(k), vb = n * payload_bytes(payload);
        std::vector<unsigned char> host(kb), device(kb), host_vals(vb), device_vals(vb);
        generate_host(spec, host.data(), host_vals.data());
        DeviceBuffer keys(kb), vals(vb);
        generate_device(spec, keys.get(), vals.get(), nullptr);
        SB_CUDA_CHECK(cudaMemcpy(device.data(), keys.get(), kb, cudaMemcpyDeviceToHost));
        SB_CUDA_CHECK(cudaMemcpy(device_vals.data(), vals.get(), vb, cudaMemcpyDeviceToHost));
        EXPECT_EQ(host, device) << describe(spec);
        EXPECT_EQ(host_vals, device_vals) << describe(spec);
        const KeyFacts hs = input_stats_host(spec, host.data());
        const KeyFacts ds = input_stats_device(spec, keys.get(), nullptr);
        EXPECT_EQ(hs.min, ds.min) << describe(spec);
        EXPECT_EQ(hs.max, ds.max) << describe(spec);
        EXPECT_EQ(hs.len, ds.len) << describe(spec);
        EXPECT_EQ(hs.min_ordered, ds.min_ordered) << describe(spec);
        EXPECT_EQ(hs.max_ordered, ds.max_ordered) << describe(spec);
        EXPECT_EQ(hs.integral, ds.integral) << describe(spec);
        if (k != KeyType::u32x4 && d != Distribution::entropy) EXPECT_EQ(ds.len, spec.len) << describe(spec);
      }
}

TEST(GeneratorGpu, TwoToThe28KeysInWellUnderASecond) {
  const InputSpec spec = make_spec(std::uint64_t{1} << 28, Distribution::uniform, KeyType::u32, Payload::none, 50.0);
  DeviceBuffer keys(spec.n * 4);
  generate_device(spec, keys.get(), nullptr, nullptr);  // warm-up: module load
  cudaEvent_t start, stop;
  SB_CUDA_CHECK(cudaEventCreate(&start));
  SB_CUDA_CHECK(cudaEventCreate(&stop));
  SB_CUDA_CHECK(cudaEventRecord(start));
  generate_device(spec, keys.get(), nullptr, nullptr);
  SB_CUDA_CHECK(cudaEventRecord(stop));
  SB_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::cout << "generated 2^28 u32 keys in " << ms << " ms\n";
  EXPECT_LT(ms, 500.0f);
  const KeyFacts stats = input_stats_device(spec, keys.get(), nullptr);
  EXPECT_EQ(stats.len, spec.len);
}

}  // namespace
}  // namespace sb::test
