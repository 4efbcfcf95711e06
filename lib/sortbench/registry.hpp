// The registry of algorithms: an explicit list of family registration calls (registry.cpp),
// since static-initializer registration is silently dropped from static libraries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sortbench/algorithm.hpp"

namespace sb {

class Registry {
 public:
  // Throws std::logic_error on a duplicate name or an incomplete description.
  void add(Algorithm algorithm);
  const Algorithm* find(std::string_view name) const;
  const std::vector<Algorithm>& all() const { return algorithms_; }
  // Names nearest to a misspelled one (edit distance), best first.
  std::vector<std::string> closest(std::string_view name, std::size_t count = 3) const;

  // "all" (every algorithm of the backend), or a comma list of names and prefix globs
  // ("hp*", "bitonic-*"). Throws UsageError for an unknown name, with the closest names.
  std::vector<const Algorithm*> select(std::string_view list, Backend backend) const;

 private:
  std::vector<Algorithm> algorithms_;
};

// The registry of every family, built on first use.
const Registry& registry();

// One registration function per kernels/<family>/ folder.
void register_baselines(Registry& r);
void register_hp(Registry& r);
void register_bitonic(Registry& r);
void register_radix(Registry& r);
void register_quicksort(Registry& r);

}  // namespace sb
