// The registry of algorithms: an explicit list of family registration calls (registry.cpp),
// since static-initializer registration is silently dropped from static libraries.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sortbench/algo/algorithm.hpp"

namespace sb {

class Registry {
 public:
  // Throws std::logic_error on a duplicate name or an incomplete description.
  void add(Algorithm algorithm);
  const Algorithm* find(std::string_view name) const;
  // The algorithm of that name; UsageError naming the closest names where there is none.
  const Algorithm& named(std::string_view name) const;
  const std::vector<Algorithm>& all() const { return algorithms_; }
  // Names nearest to a misspelled one (edit distance), best first.
  std::vector<std::string> closest(std::string_view name, std::size_t count = 3) const;

  // A family that was not built (e.g. distributed without NCCL): `list` and `info` print why,
  // with how to get it, in one line.
  void note_unavailable(std::string family, std::string why);
  const std::vector<std::pair<std::string, std::string>>& unavailable() const { return unavailable_; }

  // "all" (every single-device algorithm of the backend), or a comma list of names and prefix globs
  // ("hp*", "bitonic-*"). Throws UsageError for an unknown name, with the closest names.
  std::vector<const Algorithm*> select(std::string_view list, Backend backend) const;

 private:
  std::vector<Algorithm> algorithms_;
  std::vector<std::pair<std::string, std::string>> unavailable_;
};

// The registry of every family, built on first use.
const Registry& registry();

// One registration function per kernels/<family>/ folder.
void register_baselines(Registry& r);
void register_hp(Registry& r);
void register_bitonic(Registry& r);
void register_radix(Registry& r);
void register_quicksort(Registry& r);
void register_distributed(Registry& r);  // with NCCL only; otherwise notes why it is missing
void register_outofcore(Registry& r);

}  // namespace sb
