// What the gpu-multi tests share: how many ranks they run (two, or every GPU of the machine where
// ctest runs the suite again at that count, tests/CMakeLists.txt), and what they expect of a
// run's JSON document: every row ran and passed the ranks' verification.
#pragma once

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sb::test {

// SORTBENCH_TEST_RANKS, which ctest sets on the suite's run at every GPU; 2 otherwise.
inline int test_ranks() {
  const char* ranks = std::getenv("SORTBENCH_TEST_RANKS");
  return ranks && *ranks ? std::atoi(ranks) : 2;
}
// " --gpus N ": one rank on each of the test's GPUs.
inline std::string gpus_option() { return " --gpus " + std::to_string(test_ranks()) + " "; }
// [0, 1, ..., N - 1]: the devices of those ranks.
inline nlohmann::json test_devices() {
  nlohmann::json devices = nlohmann::json::array();
  for (int d = 0; d < test_ranks(); ++d) devices.push_back(d);
  return devices;
}

inline void expect_all_ok(const nlohmann::json& doc, const std::string& what) {
  ASSERT_TRUE(doc.contains("results")) << what;
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["status"], "ok") << what << ": " << row.dump();
    EXPECT_EQ(row["verification"], "passed") << what << ": " << row.dump();
  }
}

}  // namespace sb::test
