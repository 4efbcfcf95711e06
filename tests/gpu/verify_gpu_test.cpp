// The GPU verifier catches the same wrong results as the host verifier.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {
namespace {

struct DeviceCase {
  std::vector<std::uint32_t> in, out;
  std::vector<index_t> vals;
  explicit DeviceCase(std::size_t n) {
    in.resize(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>((i * 2654435761u) % (n / 4 + 1));
    vals.resize(n);
    std::iota(vals.begin(), vals.end(), 0);
    std::stable_sort(vals.begin(), vals.end(), [&](index_t a, index_t b) { return in[a] < in[b]; });
    for (index_t v : vals) out.push_back(in[v]);
  }
  VerifyReport check(bool payload, bool stable) const {
    DeviceBuffer din(in.size() * 4), dout(out.size() * 4), dvals(vals.size() * 4);
    SB_CUDA_CHECK(cudaMemcpy(din.get(), in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    SB_CUDA_CHECK(cudaMemcpy(dout.get(), out.data(), out.size() * 4, cudaMemcpyHostToDevice));
    SB_CUDA_CHECK(cudaMemcpy(dvals.get(), vals.data(), vals.size() * 4, cudaMemcpyHostToDevice));
    VerifyInput v;
    v.key = KeyType::u32;
    v.n = in.size();
    v.keys_in = din.get();
    v.keys_out = dout.get();
    v.vals_out = payload ? dvals.as<index_t>() : nullptr;
    v.check_stable = stable;
    return verify_device(v, nullptr);
  }
};

TEST(VerifyGpu, AcceptsCorrectAndCatchesEachFault) {
  const std::size_t n = 100003;
  EXPECT_TRUE(DeviceCase(n).check(true, true).ok);

  DeviceCase unsorted(n);
  std::swap(unsorted.out[10], unsorted.out[n - 10]);
  EXPECT_NE(unsorted.check(false, false).message.find("not sorted"), std::string::npos);

  DeviceCase lost(n);
  std::size_t step = 1;
  while (lost.out[step] == lost.out[step - 1]) ++step;
  lost.out[step] = lost.out[step - 1];  // still sorted: one element lost, its neighbour doubled
  EXPECT_NE(lost.check(false, false).message.find("permutation"), std::string::npos);

  DeviceCase constant(n);
  std::fill(constant.out.begin(), constant.out.end(), constant.out[0]);
  EXPECT_FALSE(constant.check(false, false).ok);

  DeviceCase wrong(n);
  std::swap(wrong.vals[0], wrong.vals[n - 1]);
  EXPECT_NE(wrong.check(true, false).message.find("another key"), std::string::npos);

  DeviceCase repeated(n);
  std::size_t j = 1;
  while (repeated.out[j] != repeated.out[j - 1]) ++j;
  repeated.vals[j] = repeated.vals[j - 1];
  EXPECT_NE(repeated.check(true, false).message.find("more than once"), std::string::npos);

  DeviceCase unstable(n);
  std::swap(unstable.vals[j], unstable.vals[j - 1]);
  EXPECT_TRUE(unstable.check(true, false).ok);
  EXPECT_NE(unstable.check(true, true).message.find("not stable"), std::string::npos);
}

}  // namespace
}  // namespace sb
