// CPU side of the generator: the same element functions as the GPU kernel (generator.hpp), for a
// whole input or one slice of it (issue 35 item 2: shards, streamed pieces).
#include <parallel/algorithm>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sortbench/core/element.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/values.hpp"

namespace sb {

GeneratorPlan make_generator_plan(const InputSpec& spec) {
  GeneratorPlan g;
  g.n = spec.n;
  g.len = std::max<std::uint64_t>(spec.len, 1);
  g.min_bits = static_cast<std::uint64_t>(spec.min_val);
  g.dist = spec.dist;
  g.seed = spec.seed;
  g.entropy_words = spec.entropy_words;
  const wide_t last = spec.range > 0 ? spec.range - 1 : 0;
  g.values = make_bijection_last(static_cast<std::uint64_t>(last), stream_key(spec.seed, kStreamValues));
  return g;
}

namespace {

template <typename K>
void fill_base_slice(const GeneratorPlan& g, std::uint64_t begin, std::uint64_t count, K* keys) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) keys[i] = base_key<K>(g, begin + static_cast<std::uint64_t>(i));
}

template <typename K>
void fill_base(const GeneratorPlan& g, K* keys) {
  fill_base_slice(g, 0, g.n, keys);
}

// The payload of positions [begin, begin + count): each names its global position.
void fill_values_slice(Payload payload, std::uint64_t begin, std::uint64_t count, void* vals) {
  if (!vals || payload == Payload::none) return;
  dispatch_value(payload, [&](auto v) {
    using V = decltype(v);
    if constexpr (!std::is_same_v<V, NoValue>) {
      V* out = static_cast<V*>(vals);
      const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) out[i] = encode_value<V>(payload, begin + static_cast<std::uint64_t>(i));
    }
  });
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

template <typename K>
KeyFacts stats_typed(std::uint64_t count, const K* keys) {
  KeyFacts s;
  if (count == 0) return s;
  std::vector<K> sorted(keys, keys + count);
  __gnu_parallel::sort(sorted.begin(), sorted.end(),
                       [](const K& a, const K& b) { return KeyTraits<K>::less(a, b); });
  s.len = 1;
  for (std::uint64_t i = 1; i < count; ++i) s.len += KeyTraits<K>::less(sorted[i - 1], sorted[i]) ? 1 : 0;
  s.min = stat_value(sorted.front());
  s.max = stat_value(sorted.back());
  s.min_ordered = lowest_ordered(sorted.front());
  s.max_ordered = highest_ordered(sorted.back());
  s.integral = std::all_of(sorted.begin(), sorted.end(), [](const K& k) { return integral_key(k); });
  return s;
}

}  // namespace

void generate_host(const InputSpec& spec, void* keys, void* vals) {
  dispatch_key(spec.key, [&](auto k) { generate_typed(spec, static_cast<decltype(k)*>(keys)); });
  fill_values_slice(spec.payload, 0, spec.n, vals);
}

void require_generated_slice(const char* who, const InputSpec& spec, std::uint64_t begin, std::uint64_t count) {
  if (needs_sorting(spec.dist))
    throw std::logic_error(std::string(who) + ": a sorted distribution needs the whole input");
  if (begin > spec.n || count > spec.n - begin)
    throw std::logic_error(std::string(who) + ": " + std::to_string(count) + " elements from " +
                           std::to_string(begin) + " reach past the input's " + std::to_string(spec.n));
}

void generate_host_slice(const InputSpec& spec, std::uint64_t begin, std::uint64_t count, void* keys, void* vals) {
  require_generated_slice("generate_host_slice", spec, begin, count);
  const GeneratorPlan g = make_generator_plan(spec);
  dispatch_key(spec.key, [&](auto k) { fill_base_slice(g, begin, count, static_cast<decltype(k)*>(keys)); });
  fill_values_slice(spec.payload, begin, count, vals);
}

KeyFacts input_stats_host(const InputSpec& spec, const void* keys) {
  KeyFacts s;
  if (spec.key == KeyType::u32x4)
    s = stats_typed(spec.n * 4, static_cast<const std::uint32_t*>(keys));
  else
    s = dispatch_key<ScalarKeys>(spec.key, [&](auto k) {
      using K = decltype(k);
      return stats_typed(spec.n, static_cast<const K*>(keys));
    });
  s.n = spec.n;
  return s;
}

}  // namespace sb
