// The hp family's registration: seed 004 (Kozakai 2022), integer sorting by histogram and
// prefix sums. Paper versions (hp, hp-1, hp-0c), their sequential CPU forms (cpu-hp*), the
// faster versions beyond the paper (hp-smem, hp-global, hp-hybrid, hp-tiled, hp-auto) and the
// stable ones (hp-stable, hp-tiled-stable, hp-split-stable: issue 40). Method notes: docs/hp.md.
#include <fmt/format.h>

#include "hp.hpp"
#include "hp_index.hpp"

namespace sb::hp {
namespace {

struct Use {
  const char* name;
  AlgorithmRole role;
  const char* pick_when;
};

// What `list` says of each member, side by side so that neighbours (hp-stable and
// hp-tiled-stable, hp-tiled and hp-hybrid) are told apart in one place (issue 35 item 8).
constexpr Use kUses[] = {
    {"hp", AlgorithmRole::reproduction,
     "the paper's H-P sort as published (a global-atomic histogram): to set beside the paper"},
    {"hp-1", AlgorithmRole::reproduction, "the paper's 1-H-P for distinct keys (section 6.3.1's winner)"},
    {"hp-0c", AlgorithmRole::reproduction, "the paper's 0-compressed H-P (empty bins dropped before the scan)"},
    {"cpu-hp", AlgorithmRole::reproduction, "the paper's Algorithm 2 on one CPU core: a reference for small ranges"},
    {"cpu-hp-1", AlgorithmRole::reproduction, "the paper's Algorithm 3 (distinct keys) on one CPU core"},
    {"cpu-hp-0c", AlgorithmRole::reproduction, "the paper's Algorithm 5 (0-compressed) on one CPU core"},
    {"hp-smem", AlgorithmRole::fast_variant,
     "integer keys whose range fits in shared memory (two bands of bins): the fastest H-P there"},
    {"hp-global", AlgorithmRole::fast_variant,
     "a range wider than hp-tiled and hp-hybrid take: the histogram's atomics go to L2"},
    {"hp-hybrid", AlgorithmRole::fast_variant,
     "a wide range with many keys a bin, beside hp-tiled (which groups in place and is usually faster)"},
    {"hp-tiled", AlgorithmRole::fast_variant,
     "dense integer keys over a range past shared memory, alone or with values (not stable): hp-auto's usual pick"},
    {"hp-tiled-stable", AlgorithmRole::fast_variant,
     "values that must keep input order among equal keys, over a range hp-tiled takes: the stable H-P to try first"},
    {"hp-split-stable", AlgorithmRole::fast_variant,
     "issue 40's stable design (a partition pass, then counting by bin): on par with hp-tiled-stable with 8-byte "
     "values, slower with 4-byte ones (docs/hp.md)"},
    {"hp-stable", AlgorithmRole::fast_variant,
     "a stable sort with values where hp-split-stable and hp-tiled-stable decline the range (8-bit digit passes: slow)"},
    {"hp-auto", AlgorithmRole::fast_variant,
     "integer keys and you don't know which: picks an H-P variant or CUB from n, range and distinct count"},
};

}  // namespace

Algorithm family_base(std::string name, Backend backend, std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "hp";
  for (const Use& use : kUses)
    if (a.name == use.name) a.role = use.role, a.pick_when = use.pick_when;
  a.backend = backend;
  declare_types<TypeList<std::uint32_t, std::int32_t>, KeysOnly>(a);
  a.stable = false;
  a.reads_key_facts = true;  // every hp sort histograms over [min, max]
  a.source = std::move(source);
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  // Every member counts in 32-bit words but hp-tiled where n >= 2^32 (hp_fast_rule.cpp).
  a.details = [](const SortProblem&) { return Details{{"count_bits", "32"}}; };
  return a;
}

Details::value_type traffic_detail(TrafficPath path, const SortProblem& p, TrafficInput in) {
  in.key_bytes = static_cast<unsigned>(key_bytes(p.shape.key));
  in.value_bytes = static_cast<unsigned>(payload_bytes(p.shape.payload));
  in.n = static_cast<double>(p.n());
  in.range = static_cast<double>(problem_range(p));
  in.distinct = static_cast<double>(p.facts.len);
  return {"traffic_bytes_per_key", fmt::format("{:.2f}", traffic_bytes_per_key(path, in))};
}

std::uint64_t problem_range(const SortProblem& p) {
  return p.n() == 0 ? 1 : range_of_ordered(p.facts.min_ordered, p.facts.max_ordered);
}

std::optional<std::string> range_limit(const SortProblem& p) {
  if (problem_range(p) <= kMaxRange) return std::nullopt;
  // The exact range (up to 2^64) and the bytes of its 32-bit counters, in 128-bit arithmetic.
  const unsigned __int128 range = static_cast<unsigned __int128>(p.facts.max_ordered - p.facts.min_ordered) + 1;
  const unsigned __int128 bytes = range * sizeof(std::uint32_t);
  auto decimal = [](unsigned __int128 v) {
    std::string s;
    do s.insert(s.begin(), char('0' + int(v % 10))), v /= 10;
    while (v);
    return s;
  };
  return fmt::format("range {} above 2^32: its histogram would need {} bytes of 32-bit counters", decimal(range),
                     decimal(bytes));
}

std::optional<std::string> common_limits(const SortProblem& p) {
  // Counts, prefix sums and output positions are 32-bit words, as in the paper (hp-tiled's and
  // hp-hybrid's keys-only paths widen them, hp_fast_rule.cpp).
  if (p.n() >= (std::uint64_t{1} << 32))
    return std::string("n at or above 2^32: 32-bit counters (hp-tiled, hp-hybrid and hp-auto take it, keys only)");
  return range_limit(p);
}

}  // namespace sb::hp

namespace sb {

void register_hp(Registry& r) {
  hp::add_paper(r);
  hp::add_cpu(r);
  hp::add_fast(r);
  hp::add_stable(r);
}

}  // namespace sb
