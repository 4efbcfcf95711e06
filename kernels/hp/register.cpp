// The hp family's registration: seed 004 (Kozakai 2022), integer sorting by histogram and
// prefix sums. Paper versions (hp, hp-1, hp-0c), their sequential CPU forms (cpu-hp*), the
// faster versions beyond the paper (hp-smem, hp-global, hp-hybrid, hp-auto) and the stable
// key + index variant (hp-stable). Method notes: docs/hp.md.
#include <fmt/format.h>

#include "hp.hpp"
#include "hp_index.hpp"

namespace sb::hp {

Algorithm family_base(std::string name, Backend backend, std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "hp";
  a.backend = backend;
  declare_types<TypeList<std::uint32_t, std::int32_t>, KeysOnly>(a);
  a.stable = false;
  a.reads_key_facts = true;  // every hp sort histograms over [min, max]
  a.source = std::move(source);
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  return a;
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
  // Counts, prefix sums and output positions are 32-bit words, as in the paper.
  if (p.n() >= (std::uint64_t{1} << 32)) return std::string("n at or above 2^32: 32-bit counters");
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
