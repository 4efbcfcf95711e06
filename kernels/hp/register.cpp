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
  a.source = std::move(source);
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  return a;
}

std::uint64_t problem_range(const SortProblem& p) {
  return p.n() == 0 ? 1 : range_of(p.realized.min, p.realized.max);
}

std::optional<std::string> common_limits(const SortProblem& p) {
  // Counts, prefix sums and output positions are 32-bit words, as in the paper.
  if (p.n() >= (std::uint64_t{1} << 32)) return std::string("n at or above 2^32: 32-bit counters");
  return std::nullopt;
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
