// CPU baselines: std::sort on one core, and libstdc++'s parallel mode (__gnu_parallel::sort,
// OpenMP) on all cores. With a payload, (key, index) records are sorted by key.
#include <omp.h>
#include <parallel/algorithm>

#include <algorithm>
#include <vector>

#include "baselines.hpp"
#include "sortbench/keys.hpp"

namespace sb::baselines {
namespace {

template <typename K>
struct Record {
  K key;
  index_t index;
};

template <typename K, typename SortFn>
void sort_host(const SortProblem& p, const HostBuffers& b, SortFn sort) {
  K* keys = static_cast<K*>(b.keys);
  const auto n = static_cast<std::ptrdiff_t>(p.n());
  auto less = [](const K& x, const K& y) { return KeyTraits<K>::less(x, y); };
  if (!b.vals) {
    sort(keys, keys + n, less);
    return;
  }
  std::vector<Record<K>> records(p.n());
  for (std::ptrdiff_t i = 0; i < n; ++i) records[i] = {keys[i], b.vals[i]};
  sort(records.begin(), records.end(), [&](const Record<K>& x, const Record<K>& y) { return less(x.key, y.key); });
  for (std::ptrdiff_t i = 0; i < n; ++i) keys[i] = records[i].key, b.vals[i] = records[i].index;
}

Algorithm cpu_base(std::string name, std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "baselines";
  a.backend = Backend::cpu;
  a.key_types = {KeyType::u32, KeyType::i32, KeyType::f32, KeyType::u32x4};
  a.payload = true;
  a.stable = false;
  a.source = std::move(source);
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  return a;
}

}  // namespace

void add_cpu_sorts(Registry& r) {
  Algorithm seq = cpu_base("cpu-std-sort", "std::sort (one core)");
  seq.run_host = [](const SortProblem& p, const HostBuffers& b) {
    dispatch_key(p.spec.key, [&](auto k) {
      sort_host<decltype(k)>(p, b, [](auto first, auto last, auto less) { std::sort(first, last, less); });
    });
  };
  r.add(seq);

  Algorithm par = cpu_base("cpu-parallel-sort", "__gnu_parallel::sort (libstdc++ parallel mode, OpenMP, all cores)");
  par.run_host = [](const SortProblem& p, const HostBuffers& b) {
    dispatch_key(p.spec.key, [&](auto k) {
      sort_host<decltype(k)>(p, b, [](auto first, auto last, auto less) { __gnu_parallel::sort(first, last, less); });
    });
  };
  par.details = [](const SortProblem&) { return Details{{"threads", std::to_string(omp_get_max_threads())}}; };
  r.add(par);
}

}  // namespace sb::baselines
