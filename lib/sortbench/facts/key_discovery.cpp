#include "sortbench/facts/key_discovery.hpp"

#include <algorithm>

#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"

namespace sb {

OrderedBounds discover_key_facts_host(KeyType key, const void* keys, std::uint64_t n) {
  OrderedBounds f;
  if (n == 0) return f;
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
  if (key == KeyType::u32x4) {
    const auto* w = static_cast<const std::uint32_t*>(keys);
    for (std::uint64_t i = 0; i < 4 * n; ++i) lo = std::min<std::uint64_t>(lo, w[i]), hi = std::max<std::uint64_t>(hi, w[i]);
  } else {
    dispatch_key<ScalarKeys>(key, [&](auto k) {
      using K = decltype(k);
      const K* p = static_cast<const K*>(keys);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t o = KeyTraits<K>::ordered(p[i]);
        lo = std::min(lo, o), hi = std::max(hi, o);
      }
    });
  }
  f.min_ordered = lo;
  f.max_ordered = hi;
  return f;
}

void apply_key_facts(KeyFacts& stats, KeyType key, const OrderedBounds& facts) {
  if (stats.n == 0) return;  // no keys: nothing was discovered, the empty stats stand
  stats.min_ordered = facts.min_ordered;
  stats.max_ordered = facts.max_ordered;
  if (key == KeyType::u32x4) {
    stats.min = facts.min_ordered;
    stats.max = facts.max_ordered;
    return;
  }
  dispatch_key<ScalarKeys>(key, [&](auto k) {
    using K = decltype(k);
    using O = typename KeyTraits<K>::Ordered;
    stats.min = stat_value(KeyTraits<K>::from_ordered(static_cast<O>(facts.min_ordered)));
    stats.max = stat_value(KeyTraits<K>::from_ordered(static_cast<O>(facts.max_ordered)));
  });
}

KeyFacts promised_key_facts(KeyType key, std::uint64_t n, wide_t min, wide_t max, std::uint64_t len) {
  KeyFacts facts;
  facts.n = n;
  facts.len = len;
  OrderedBounds bounds;
  if (key == KeyType::u32x4) {
    bounds.min_ordered = static_cast<std::uint64_t>(min);
    bounds.max_ordered = static_cast<std::uint64_t>(max);
  } else {
    dispatch_key<ScalarKeys>(key, [&](auto k) {
      using K = decltype(k);
      bounds.min_ordered = KeyTraits<K>::ordered(static_cast<K>(min));
      bounds.max_ordered = KeyTraits<K>::ordered(static_cast<K>(max));
    });
  }
  apply_key_facts(facts, key, bounds);
  return facts;
}

}  // namespace sb
