// The GPU tests' device selection (issue 48 item 3): ctest's resource allocation environment read
// into CUDA_VISIBLE_DEVICES by tests/support/gpu_main.cpp, checked here without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/gpu_resources.hpp"

namespace {

std::string gpus_of(const std::map<std::string, std::string>& env) {
  return sb::test::allocated_gpus([&](const std::string& name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(GpuResources, OutsideCtestNothingIsChosen) { EXPECT_EQ(gpus_of({}), ""); }

TEST(GpuResources, OneGroupIsOneDevice) {
  EXPECT_EQ(gpus_of({{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1"}}), "3");
}

TEST(GpuResources, GroupsInOrderAreTheRanksDevices) {
  EXPECT_EQ(gpus_of({{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                     {"CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:4"},
                     {"CTEST_RESOURCE_GROUP_1_GPUS", "id:0,slots:4"}}),
            "1,0");
}

TEST(GpuResources, AGroupWithoutAnIdIsAnError) {
  EXPECT_THROW(gpus_of({{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0_GPUS", "slots:1"}}),
               std::runtime_error);
}

}  // namespace
