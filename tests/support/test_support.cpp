#include <gtest/gtest.h>

#include <parallel/algorithm>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <numeric>

#include <fmt/format.h>

#include "sortbench/input/generator.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/timing/harness.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {

bool tracing() {
  static const bool on = [] {
    const char* t = std::getenv("SORTBENCH_TEST_TRACE");
    return t && *t && std::string_view(t) != "0";
  }();
  return on;
}

void TraceTimer::say(std::string_view what) const {
  if (!tracing()) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  fmt::print("[trace] {:>9.2f} ms  {}\n", ms, what);
}

InputSpec make_spec(std::uint64_t n, Distribution dist, KeyType key, Payload payload, std::optional<double> delta,
                    std::optional<std::uint64_t> len, std::optional<wide_t> min_val, std::uint64_t seed) {
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

InputSpec full_domain_spec(std::uint64_t n, KeyType key, Payload payload) {
  InputRequest r;
  r.n = n;
  r.key = key;
  r.payload = payload;
  const auto [lo, hi] = value_bounds(key);
  r.min_val = lo;
  r.max_val = hi + 1;
  return derive_input_spec(r);
}

std::vector<InputSpec> input_matrix(const std::vector<std::uint64_t>& sizes) {
  std::vector<InputSpec> specs;
  for (std::uint64_t n : sizes)
    for (Distribution d : all_distributions())
      for (KeyType k : all_key_types()) {
        if (d == Distribution::real && !is_float_key(k)) continue;
        if (d == Distribution::entropy && is_float_key(k)) continue;
        const bool wide_values = d == Distribution::uniform || d == Distribution::equal || d == Distribution::real;
        for (Payload p : all_payloads()) {
          if (!wide_values && (p == Payload::u32 || p == Payload::u64)) continue;
          const bool is_signed = k == KeyType::i32 || k == KeyType::f32 || k == KeyType::i64 || k == KeyType::f64;
          const auto min_val = is_signed && d != Distribution::entropy
                                   ? std::optional<wide_t>(-static_cast<wide_t>(n / 2))
                                   : std::nullopt;
          specs.push_back(make_spec(n, d, k, p, std::nullopt, std::nullopt, min_val));
        }
      }
  return specs;
}

std::string describe(const InputSpec& s) {
  return fmt::format("n={} key={} payload={} dist={} min={} max={} len={}", s.n, to_string(s.key),
                     to_string(s.payload), to_string(s.dist), wide_text(s.min_val), wide_text(s.max_val), s.len);
}

Reference make_reference(const InputSpec& spec) {
  Reference ref;
  const std::size_t kb = key_bytes(spec.key);
  const std::size_t vb = payload_bytes(spec.payload);
  ref.input_keys.resize(spec.n * kb);
  ref.input_values.resize(spec.n * vb);
  generate_host(spec, ref.input_keys.data(), vb ? ref.input_values.data() : nullptr);
  ref.input_vals.resize(spec.n);
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
  ref.stable_values.resize(ref.input_values.size());
  for (std::uint64_t i = 0; i < spec.n && vb; ++i)
    std::memcpy(ref.stable_values.data() + i * vb, ref.input_values.data() + ref.stable_vals[i] * vb, vb);
  return ref;
}

namespace {

// The sorted columns as the session hands them out.
class KeepColumns final : public OutputSink {
 public:
  KeepColumns(std::vector<unsigned char>& keys, std::vector<unsigned char>& vals) : keys_(keys), vals_(vals) {}
  bool wants(Column) const override { return true; }
  void write(Column column, std::uint64_t first_byte, const unsigned char* data, std::uint64_t bytes) override {
    std::vector<unsigned char>& out = column == Column::keys ? keys_ : vals_;
    if (out.size() < first_byte + bytes) out.resize(first_byte + bytes);
    std::copy(data, data + bytes, out.begin() + first_byte);
  }

 private:
  std::vector<unsigned char>& keys_;
  std::vector<unsigned char>& vals_;
};

}  // namespace

ResultRow run_once(Session& session, const Algorithm& algo, const Params& params, std::vector<unsigned char>& keys,
                   std::vector<unsigned char>& vals) {
  ResultRow row = session.run(algo, single_sample_settings(), params);
  if (row.status == RowStatus::error) throw std::runtime_error(algo.name + ": " + row.reason);
  if (row.status == RowStatus::ok || row.status == RowStatus::verify_failed) {
    KeepColumns sink(keys, vals);
    session.drain(sink);
  }
  return row;
}

Outcome run_in(Session& session, const Algorithm& algo, const Params& params) {
  Outcome out;
  const TraceTimer timer;
  const ResultRow row = run_once(session, algo, params, out.keys, out.vals);
  timer.say(algo.name);
  if (row.status == RowStatus::unsupported) out.unsupported = row.reason;
  else out.verify = VerifyReport{row.status == RowStatus::ok, row.verification};
  return out;
}

SessionOptions generated_options(PlacementKind placement) {
  SessionOptions options;
  options.placement = placement;
  options.range = RangeMode::given;
  return options;
}

Outcome run_generated_once(const SessionOptions& options, const Algorithm& algo, const InputSpec& spec,
                           const Params& params) {
  Session session(make_generated_source(spec), options);
  return run_in(session, algo, params);
}

Outcome run_generated_once(PlacementKind placement, const Algorithm& algo, const InputSpec& spec,
                           const Params& params) {
  return run_generated_once(generated_options(placement), algo, spec, params);
}

Outcome run_host_once(const Algorithm& algo, const InputSpec& spec, const Params& params) {
  return run_generated_once(PlacementKind::host, algo, spec, params);
}

namespace {
// Keys equal bit for bit, or equal under '<' (float zeros of either sign).
bool same_keys(KeyType key, const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  if (a.size() != b.size()) return false;
  if (a == b) return true;
  if (!is_float_key(key)) return false;
  return dispatch_key(key, [&](auto k) {
    using K = decltype(k);
    const std::size_t n = a.size() / sizeof(K);
    for (std::size_t i = 0; i < n; ++i) {
      K x, y;
      std::memcpy(&x, a.data() + i * sizeof(K), sizeof(K));
      std::memcpy(&y, b.data() + i * sizeof(K), sizeof(K));
      if (KeyTraits<K>::less(x, y) || KeyTraits<K>::less(y, x)) return false;
    }
    return true;
  });
}
}  // namespace

bool expect_matches_reference(const Algorithm& algo, const InputSpec& spec, const Reference& ref,
                              const Outcome& outcome) {
  const std::string where = algo.name + " on " + describe(spec);
  bool ok = true;
  EXPECT_TRUE(outcome.verify.ok) << where << ": " << outcome.verify.message;
  ok = ok && outcome.verify.ok;
  if (!same_keys(spec.key, outcome.keys, ref.sorted_keys)) {
    ADD_FAILURE() << where << ": keys differ from std::sort";
    ok = false;
  }
  if (spec.payload != Payload::none && algo.stable && outcome.vals != ref.stable_values) {
    ADD_FAILURE() << where << ": payload differs from std::stable_sort's order";
    ok = false;
  }
  return ok;
}

}  // namespace sb::test
