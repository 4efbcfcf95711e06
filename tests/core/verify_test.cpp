// The host verifier catches each kind of wrong result (the GPU verifier shares its
// per-element checks and is exercised in tests/gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "sortbench/verify/verify.hpp"

namespace sb {
namespace {

struct Case {
  std::vector<std::uint32_t> in{5, 3, 9, 3, 1, 7, 3, 8};
  std::vector<std::uint32_t> out;
  std::vector<index_t> vals;
  Case() {
    vals.resize(in.size());
    std::iota(vals.begin(), vals.end(), 0);
    std::stable_sort(vals.begin(), vals.end(), [&](index_t a, index_t b) { return in[a] < in[b]; });
    for (index_t v : vals) out.push_back(in[v]);
  }
  VerifyReport check(bool payload, bool stable) const {
    VerifyInput v;
    v.key = KeyType::u32;
    v.n = in.size();
    v.keys_in = in.data();
    v.keys_out = out.data();
    v.vals_out = payload ? vals.data() : nullptr;
    v.check_stable = stable;
    return verify_host(v);
  }
};

TEST(VerifyHost, AcceptsACorrectStableResult) {
  Case c;
  EXPECT_TRUE(c.check(true, true).ok);
  EXPECT_EQ(c.check(true, true).message, "passed");
}

TEST(VerifyHost, CatchesUnsortedOutput) {
  Case c;
  std::swap(c.out[0], c.out[7]);
  const auto r = c.check(false, false);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("not sorted"), std::string::npos) << r.message;
}

TEST(VerifyHost, CatchesALostElement) {
  Case c;
  c.out[c.out.size() - 1] = c.out[c.out.size() - 2];  // 9 replaced by 8: still sorted
  const auto r = c.check(false, false);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("permutation"), std::string::npos) << r.message;
}

TEST(VerifyHost, CatchesADuplicatedElementEvenWhenSorted) {
  Case c;
  c.out[1] = c.out[0];  // 1,1,3,... instead of 1,3,3: sorted, one element duplicated
  EXPECT_FALSE(c.check(false, false).ok);
}

TEST(VerifyHost, CatchesAConstantOutput) {
  Case c;
  std::fill(c.out.begin(), c.out.end(), 3u);
  EXPECT_FALSE(c.check(false, false).ok);
}

TEST(VerifyHost, CatchesAWrongPayload) {
  Case c;
  c.vals[2] = c.vals[5];  // an index naming an element with another key
  auto r = c.check(true, false);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("payload"), std::string::npos) << r.message;
  Case d;
  d.vals[0] = 100;  // out of range
  EXPECT_NE(d.check(true, false).message.find("name no input element"), std::string::npos);
}

TEST(VerifyHost, CatchesARepeatedIndex) {
  Case c;
  // out = 1 3 3 3 5 7 8 9; vals 4 1 3 6 ...: give two equal keys the same index
  c.vals[2] = c.vals[1];
  const auto r = c.check(true, false);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("more than once"), std::string::npos) << r.message;
}

TEST(VerifyHost, CatchesAnUnstableOrderOnlyForStableAlgorithms) {
  Case c;
  std::swap(c.vals[1], c.vals[2]);  // equal keys 3, 3 with indices out of input order
  EXPECT_TRUE(c.check(true, false).ok);
  const auto r = c.check(true, true);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("not stable"), std::string::npos) << r.message;
}

TEST(VerifyHost, OrdersFloatsAndRowsByValue) {
  std::vector<float> in{2.5f, -1.0f, -0.0f, 0.0f, -7.25f};
  std::vector<float> out{-7.25f, -1.0f, 0.0f, -0.0f, 2.5f};  // +0 and -0 compare equal
  VerifyInput v;
  v.key = KeyType::f32;
  v.n = in.size();
  v.keys_in = in.data();
  v.keys_out = out.data();
  EXPECT_TRUE(verify_host(v).ok);
  std::vector<Row4> rin{{{1, 2, 3, 4}}, {{1, 2, 3, 3}}, {{0, 9, 9, 9}}};
  std::vector<Row4> rout{{{0, 9, 9, 9}}, {{1, 2, 3, 3}}, {{1, 2, 3, 4}}};
  v.key = KeyType::u32x4;
  v.n = rin.size();
  v.keys_in = rin.data();
  v.keys_out = rout.data();
  EXPECT_TRUE(verify_host(v).ok);
  std::swap(rout[1], rout[2]);
  EXPECT_FALSE(verify_host(v).ok);
}

}  // namespace
}  // namespace sb
