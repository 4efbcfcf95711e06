// Which GPUs a build's CUDA architecture list has code for (sortbench info's warning).
#include <gtest/gtest.h>

#include <string>

#include "sortbench/report/build_info.hpp"

namespace sb {
namespace {

TEST(CudaArchsCover, SassOfTheSameMajorRunsFromItsMinorUp) {
  EXPECT_EQ(cuda_archs_cover("90-real", 90), true);
  EXPECT_EQ(cuda_archs_cover("80-real", 86), true);
  EXPECT_EQ(cuda_archs_cover("86-real", 80), false);
  EXPECT_EQ(cuda_archs_cover("90-real", 100), false);
  EXPECT_EQ(cuda_archs_cover("90-real", 80), false);
}

TEST(CudaArchsCover, PtxRunsOnNewerArchitectures) {
  EXPECT_EQ(cuda_archs_cover("90", 120), true);  // "90" is SASS and PTX
  EXPECT_EQ(cuda_archs_cover("80-virtual", 90), true);
  EXPECT_EQ(cuda_archs_cover("90-virtual", 80), false);
  EXPECT_EQ(cuda_archs_cover("100", 90), false);
}

TEST(CudaArchsCover, ListsAndSpecificArchitectures) {
  EXPECT_EQ(cuda_archs_cover("80-real;90-real", 90), true);
  EXPECT_EQ(cuda_archs_cover("80-real;90-real", 100), false);
  EXPECT_EQ(cuda_archs_cover("90a-real", 90), true);
  EXPECT_EQ(cuda_archs_cover("90a", 100), false);
}

TEST(CudaArchsCover, NamesWithoutNumbersSayNothing) {
  EXPECT_EQ(cuda_archs_cover("native", 90), std::nullopt);
  EXPECT_EQ(cuda_archs_cover("all-major", 90), std::nullopt);
  EXPECT_EQ(cuda_archs_cover("", 90), std::nullopt);
}

TEST(CudaArchsCover, ThisBuildNamesItsArchitectures) {
  EXPECT_FALSE(std::string(build_cuda_architectures()).empty());
}

}  // namespace
}  // namespace sb
