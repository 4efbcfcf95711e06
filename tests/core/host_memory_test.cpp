// Host memory for out-of-core work (core/host_memory.hpp, issue 37): MemAvailable, the one-line
// message of a failed pinned allocation, and (with a GPU) that the failure is exit 4 and that a
// PinnedBuffer owns and hands over its memory.
#include <gtest/gtest.h>

#include <utility>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/device/device_info.hpp"

namespace {

using namespace sb;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(HostMemory, MemAvailableIsReadFromMeminfo) {
  EXPECT_EQ(parse_mem_available("MemTotal:       263840664 kB\nMemFree:         1024 kB\n"
                                "MemAvailable:   32715348 kB\nBuffers:  0 kB\n"),
            32715348ull * 1024);
  EXPECT_EQ(parse_mem_available("MemTotal: 1 kB\nMemFree: 2 kB\n"), 0u);
  EXPECT_EQ(parse_mem_available("NotMemAvailable: 5 kB\n"), 0u);
  EXPECT_EQ(parse_mem_available("MemAvailable: junk\n"), 0u);
  // Linux always has the field: the machine running the tests has some memory left.
  EXPECT_GT(host_available_bytes(), 0u);
}

TEST(HostMemory, AFailedPinnedAllocationNamesTheBytesAndTheFix) {
  EXPECT_EQ(pinned_failure_message(64 * kGiB, "the input file's columns", 31 * kGiB + kGiB / 5),
            "pinned host memory for the input file's columns: 64.0 GiB needed, 31.2 GiB available; lower -n or "
            "free host memory");
  EXPECT_EQ(pinned_failure_message(512ull << 20, "the copies", 0),
            "pinned host memory for the copies: 512.0 MiB needed, available unknown; lower -n or free host memory");
}

TEST(HostMemory, PinnedAllocationWithoutAGpuIsAnError) {
  if (!cuda_unavailable_reason()) GTEST_SKIP() << "a CUDA device answers; the no-GPU path is not reachable here";
  EXPECT_THROW(pinned_alloc(1 << 20, "a test"), Error);
}

TEST(HostMemory, PinnedAllocationFailsWithExitFourAndOneLine) {
  if (auto why = cuda_unavailable_reason()) GTEST_SKIP() << "needs a CUDA device: " << *why;
  try {
    // More than any host has: 1 PiB.
    pinned_alloc(std::size_t{1} << 50, "a test");
    FAIL() << "1 PiB of pinned memory was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::device_memory);
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("1048576.0 GiB needed"), std::string::npos) << m;
    EXPECT_NE(m.find("free host memory"), std::string::npos) << m;
  }
}

TEST(HostMemory, PinnedBufferOwnsAndMovesItsMemory) {
  if (auto why = cuda_unavailable_reason()) GTEST_SKIP() << "needs a CUDA device: " << *why;
  PinnedBuffer a(4096, "a test");
  ASSERT_NE(a.get(), nullptr);
  a.as<unsigned char>()[4095] = 7;
  void* const p = a.get();
  PinnedBuffer b(std::move(a));
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_EQ(b.get(), p);
  EXPECT_EQ(b.bytes(), 4096u);
  EXPECT_EQ(b.as<unsigned char>()[4095], 7);
  PinnedBuffer c;
  c = std::move(b);
  EXPECT_EQ(c.get(), p);
  c.reset();
  EXPECT_EQ(c.get(), nullptr);
}

}  // namespace
