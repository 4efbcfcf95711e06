// CPU side of the generator: the same element functions as the GPU kernel (generator.hpp).
#include <parallel/algorithm>

#include <algorithm>
#include <vector>

#include "sortbench/generator.hpp"
#include "sortbench/keys.hpp"

namespace sb {

GeneratorPlan make_generator_plan(const InputSpec& spec) {
  GeneratorPlan g;
  g.n = spec.n;
  g.len = std::max<std::uint64_t>(spec.len, 1);
  g.min_val = spec.min_val;
  g.dist = spec.dist;
  g.seed = spec.seed;
  g.values = make_bijection(spec.range, stream_key(spec.seed, kStreamValues));
  return g;
}

namespace {

template <typename K>
void fill_base(const GeneratorPlan& g, K* keys) {
  const auto n = static_cast<std::int64_t>(g.n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<K, Row4>) {
      for (unsigned w = 0; w < 4; ++w)
        keys[i].w[w] = static_cast<std::uint32_t>(base_value(g, static_cast<std::uint64_t>(i), w));
    } else {
      keys[i] = KeyTraits<K>::from_value(base_value(g, static_cast<std::uint64_t>(i)));
    }
  }
}

template <typename K>
void generate_typed(const InputSpec& spec, K* keys) {
  const GeneratorPlan g = make_generator_plan(spec);
  if (!needs_sorting(spec.dist)) {
    fill_base(g, keys);
    return;
  }
  std::vector<K> sorted(spec.n);
  fill_base(g, sorted.data());
  __gnu_parallel::sort(sorted.begin(), sorted.end(),
                       [](const K& a, const K& b) { return KeyTraits<K>::less(a, b); });
  const auto n = static_cast<std::int64_t>(spec.n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) keys[i] = sorted[arranged_source(g, static_cast<std::uint64_t>(i))];
}

}  // namespace

void generate_host(const InputSpec& spec, void* keys, index_t* vals) {
  dispatch_key(spec.key, [&](auto k) { generate_typed(spec, static_cast<decltype(k)*>(keys)); });
  if (vals && spec.payload == Payload::index)
    for (std::uint64_t i = 0; i < spec.n; ++i) vals[i] = static_cast<index_t>(i);
}

InputStats input_stats_host(const InputSpec& spec, const void* keys) {
  std::vector<std::int64_t> values;
  dispatch_key(spec.key, [&](auto k) {
    using K = decltype(k);
    const K* typed = static_cast<const K*>(keys);
    if constexpr (std::is_same_v<K, Row4>) {
      values.reserve(spec.n * 4);
      for (std::uint64_t i = 0; i < spec.n; ++i)
        for (unsigned w = 0; w < 4; ++w) values.push_back(typed[i].w[w]);
    } else {
      values.assign(typed, typed + spec.n);
    }
  });
  InputStats s;
  s.n = spec.n;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  s.len = static_cast<std::uint64_t>(std::unique(values.begin(), values.end()) - values.begin());
  return s;
}

}  // namespace sb
