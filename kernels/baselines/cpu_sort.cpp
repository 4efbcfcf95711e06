// CPU baselines: std::sort on one core, libstdc++'s parallel mode (__gnu_parallel::sort, OpenMP)
// on all cores, and where the build found Boost.Sort's headers (libboost-dev; issue 52 item 4)
// its parallel block_indirect_sort and stable sample_sort, the strongest CPU sorts a distribution
// package gives. With a payload, (key, value) records are sorted by key.
#include <omp.h>
#include <parallel/algorithm>
#if SORTBENCH_HAVE_BOOST_SORT
#include <boost/sort/sort.hpp>
#endif

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
#if SORTBENCH_HAVE_BOOST_SORT
  const auto threads = [](const SortProblem&) { return Details{{"threads", std::to_string(omp_get_max_threads())}}; };
  Algorithm block = cpu_sort("cpu-boost-block-indirect-sort",
                             "every CPU core, Boost.Sort's fastest unstable sort: the strongest CPU row a package gives",
                             "boost::sort::block_indirect_sort (Boost.Sort, all cores)",
                             [](auto first, auto last, auto less) {
                               boost::sort::block_indirect_sort(first, last, less, omp_get_max_threads());
                             });
  block.details = threads;
  r.add(block);
  Algorithm sample = cpu_sort("cpu-boost-sample-sort", "every CPU core, stable: the stable CPU row to beat",
                              "boost::sort::sample_sort (Boost.Sort, stable, all cores)",
                              [](auto first, auto last, auto less) {
                                boost::sort::sample_sort(first, last, less, omp_get_max_threads());
                              });
  sample.details = threads;
  sample.stable = true;
  r.add(sample);
#endif
}

}  // namespace sb::baselines
