// The registry refuses an algorithm `list` could not place or explain (issue 35 item 8): every
// registered one has a role and a line on when to pick it.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sortbench/algo/registry.hpp"

namespace sb {
namespace {

Algorithm complete_cpu_algorithm() {
  Algorithm a;
  a.name = "cpu-test";
  a.family = "test";
  a.backend = Backend::cpu;
  a.key_types = {KeyType::u32};
  a.workspace_bytes = [](const SortProblem&) { return std::size_t{0}; };
  a.run_host = [](const SortProblem&, const HostBuffers&) {};
  a.pick_when = "never: a test";
  return a;
}

TEST(Registry, RefusesAnAlgorithmWithoutALineOnWhenToPickIt) {
  Registry r;
  Algorithm a = complete_cpu_algorithm();
  a.pick_when.clear();
  try {
    r.add(a);
    FAIL() << "added without pick_when";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu-test"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pick_when"), std::string::npos) << e.what();
  }
  EXPECT_EQ(r.find("cpu-test"), nullptr);
  r.add(complete_cpu_algorithm());
  EXPECT_NE(r.find("cpu-test"), nullptr);
}

TEST(Registry, EveryRegisteredAlgorithmSaysWhenToPickIt) {
  for (const Algorithm& a : registry().all()) {
    EXPECT_FALSE(a.pick_when.empty()) << a.name;
    EXPECT_EQ(a.pick_when.find('\n'), std::string::npos) << a.name << ": one line";
  }
  // The groups are filled as the families describe their members.
  EXPECT_EQ(registry().find("hp")->role, AlgorithmRole::reproduction);
  EXPECT_EQ(registry().find("hp-tiled-stable")->role, AlgorithmRole::fast_variant);
  EXPECT_EQ(registry().find("cub-radix")->role, AlgorithmRole::baseline);
  EXPECT_EQ(registry().find("cpu-parallel-sort")->role, AlgorithmRole::baseline);
  EXPECT_EQ(registry().find("radix-lsd-seed")->role, AlgorithmRole::reproduction);
  EXPECT_EQ(registry().find("quick-prefix")->role, AlgorithmRole::reproduction);
  EXPECT_EQ(registry().find("bitonic-b2")->role, AlgorithmRole::reproduction);
  EXPECT_EQ(registry().find("bitonic-b32c16")->role, AlgorithmRole::fast_variant);
}

}  // namespace
}  // namespace sb
