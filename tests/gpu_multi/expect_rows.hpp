// What the gpu-multi tests expect of a run's JSON document: every row ran and passed the ranks'
// verification.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sb::test {

inline void expect_all_ok(const nlohmann::json& doc, const std::string& what) {
  ASSERT_TRUE(doc.contains("results")) << what;
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["status"], "ok") << what << ": " << row.dump();
    EXPECT_EQ(row["verification"], "passed") << what << ": " << row.dump();
  }
}

}  // namespace sb::test
