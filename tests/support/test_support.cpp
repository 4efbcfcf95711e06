#include <gtest/gtest.h>

#include <parallel/algorithm>

#include <algorithm>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "sortbench/generator.hpp"
#include "sortbench/keys.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {

InputSpec make_spec(std::uint64_t n, Distribution dist, KeyType key, Payload payload, std::optional<double> delta,
                    std::optional<std::uint64_t> len, std::optional<std::int64_t> min_val, std::uint64_t seed) {
  InputRequest r;
  r.n = n;
  r.dist = dist;
  r.key = key;
  r.payload = payload;
  r.delta = delta;
  r.len = len;
  r.min_val = min_val;
  r.seed = seed;
  return derive_input_spec(r);
}

std::vector<InputSpec> input_matrix(const std::vector<std::uint64_t>& sizes) {
  std::vector<InputSpec> specs;
  for (std::uint64_t n : sizes)
    for (Distribution d : all_distributions())
      for (KeyType k : all_key_types())
        for (Payload p : {Payload::none, Payload::index}) {
          const bool is_signed = k == KeyType::i32 || k == KeyType::f32;
          const auto min_val = is_signed ? std::optional<std::int64_t>(-static_cast<std::int64_t>(n / 2)) : std::nullopt;
          specs.push_back(make_spec(n, d, k, p, std::nullopt, std::nullopt, min_val));
        }
  return specs;
}

std::string describe(const InputSpec& s) {
  return fmt::format("n={} key={} payload={} dist={} min={} max={} len={}", s.n, to_string(s.key),
                     to_string(s.payload), to_string(s.dist), s.min_val, s.max_val, s.len);
}

Reference make_reference(const InputSpec& spec) {
  Reference ref;
  const std::size_t kb = key_bytes(spec.key);
  ref.input_keys.resize(spec.n * kb);
  ref.input_vals.resize(spec.n);
  generate_host(spec, ref.input_keys.data(), ref.input_vals.data());
  std::iota(ref.input_vals.begin(), ref.input_vals.end(), index_t{0});
  ref.sorted_keys.resize(ref.input_keys.size());
  ref.stable_vals = ref.input_vals;
  dispatch_key(spec.key, [&](auto k) {
    using K = decltype(k);
    const K* in = reinterpret_cast<const K*>(ref.input_keys.data());
    __gnu_parallel::stable_sort(ref.stable_vals.begin(), ref.stable_vals.end(),
                     [&](index_t a, index_t b) { return KeyTraits<K>::less(in[a], in[b]); });
    K* out = reinterpret_cast<K*>(ref.sorted_keys.data());
    for (std::uint64_t i = 0; i < spec.n; ++i) out[i] = in[ref.stable_vals[i]];
  });
  return ref;
}

Outcome run_host_once(const Algorithm& algo, const InputSpec& spec, const Params& params) {
  Outcome out;
  Reference ref = make_reference(spec);
  const InputStats stats = input_stats_host(spec, ref.input_keys.data());
  SortProblem problem{spec, stats, params};
  if (auto why = algo.why_unsupported(problem)) {
    out.unsupported = *why;
    return out;
  }
  out.keys = ref.input_keys;
  if (problem.has_payload()) out.vals = ref.input_vals;
  algo.run_host(problem, {out.keys.data(), problem.has_payload() ? out.vals.data() : nullptr});
  VerifyInput v;
  v.key = spec.key;
  v.n = spec.n;
  v.keys_in = ref.input_keys.data();
  v.keys_out = out.keys.data();
  v.vals_out = problem.has_payload() ? out.vals.data() : nullptr;
  v.check_stable = algo.stable;
  out.verify = verify_host(v);
  return out;
}

bool expect_matches_reference(const Algorithm& algo, const InputSpec& spec, const Reference& ref,
                              const Outcome& outcome) {
  const std::string where = algo.name + " on " + describe(spec);
  bool ok = true;
  EXPECT_TRUE(outcome.verify.ok) << where << ": " << outcome.verify.message;
  ok = ok && outcome.verify.ok;
  if (outcome.keys != ref.sorted_keys) {
    ADD_FAILURE() << where << ": keys differ from std::sort";
    ok = false;
  }
  if (spec.payload == Payload::index && algo.stable && outcome.vals != ref.stable_vals) {
    ADD_FAILURE() << where << ": payload differs from std::stable_sort's order";
    ok = false;
  }
  return ok;
}

}  // namespace sb::test
