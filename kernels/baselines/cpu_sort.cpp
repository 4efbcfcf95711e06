// CPU baselines: std::sort on one core, and libstdc++'s parallel mode (__gnu_parallel::sort,
// OpenMP) on all cores. With a payload, (key, value) records are sorted by key.
#include <omp.h>
#include <parallel/algorithm>

#include <algorithm>
#include <vector>

#include "baselines.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"

namespace sb::baselines {
namespace {

template <typename K, typename V>
struct Record {
  K key;
  V value;
};

template <typename K, typename V, typename SortFn>
void sort_host(K* keys, V* vals, std::uint64_t count, SortFn sort) {
  const auto n = static_cast<std::ptrdiff_t>(count);
  auto less = [](const K& x, const K& y) { return KeyTraits<K>::less(x, y); };
  if constexpr (std::is_same_v<V, NoValue>) {
    sort(keys, keys + n, less);
  } else {
    std::vector<Record<K, V>> records(count);
    for (std::ptrdiff_t i = 0; i < n; ++i) records[i] = {keys[i], vals[i]};
    sort(records.begin(), records.end(), [&](const Record<K, V>& x, const Record<K, V>& y) { return less(x.key, y.key); });
    for (std::ptrdiff_t i = 0; i < n; ++i) keys[i] = records[i].key, vals[i] = records[i].value;
  }
}

template <typename SortFn>
Algorithm cpu_sort(std::string name, std::string pick_when, std::string source, SortFn sort) {
  Algorithm a = baseline(std::move(name), Backend::cpu, false, std::move(pick_when), std::move(source));
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  set_host_run<AllKeys, AllValues>(a, [sort](auto* keys, auto* vals, const SortProblem& p) {
    sort_host(keys, vals, p.n(), sort);
  });
  return a;
}

}  // namespace

void add_cpu_sorts(Registry& r) {
  r.add(cpu_sort("cpu-std-sort", "one CPU core: the sort a program without a GPU calls", "std::sort (one core)",
                 [](auto first, auto last, auto less) { std::sort(first, last, less); }));
  Algorithm par = cpu_sort("cpu-parallel-sort", "every CPU core: the bar a GPU sort must clear with its copies",
                           "__gnu_parallel::sort (libstdc++ parallel mode, OpenMP, all cores)",
                           [](auto first, auto last, auto less) { __gnu_parallel::sort(first, last, less); });
  par.details = [](const SortProblem&) { return Details{{"threads", std::to_string(omp_get_max_threads())}}; };
  r.add(par);
  // Stable: sortbench sort --argsort --backend cpu matches numpy.argsort(kind='stable').
  Algorithm st = cpu_sort("cpu-stable-sort", "a stable CPU sort: numpy's argsort(kind='stable') order",
                          "std::stable_sort (one core)",
                          [](auto first, auto last, auto less) { std::stable_sort(first, last, less); });
  st.stable = true;
  r.add(st);
}

}  // namespace sb::baselines
