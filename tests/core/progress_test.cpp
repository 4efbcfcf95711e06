// The progress line of long work (core/progress.hpp, issue 37): when it prints, what it says, that
// it stays quiet for short work or when switched off, and that advances from many threads add up.
// A fake clock and a string stream stand in for time and stderr.
#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

#include "sortbench/core/progress.hpp"
#include "support/command.hpp"

namespace {

using namespace sb;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

struct FakeTime {
  double now = 100.0;
  ProgressMeter::Clock clock() {
    return [this] { return now; };
  }
};

TEST(Progress, PrintsAtMostEveryTwoSecondsAndAFinalLineOnce) {
  FakeTime t;
  std::ostringstream out;
  ProgressMeter m("sort", 32 * kGiB, out, t.clock());
  t.now = 101.0;
  m.advance(4 * kGiB);
  EXPECT_EQ(out.str(), "") << "nothing before two seconds";
  t.now = 102.0;
  m.advance(8 * kGiB);
  EXPECT_EQ(out.str(), "sort: 12.0 of 32.0 GiB (37%), 6.4 GB/s\n");
  t.now = 103.5;
  m.advance(kGiB);
  EXPECT_EQ(sb::test::lines_of(out.str()).size(), 1u) << "the next line waits two seconds from the last";
  t.now = 104.0;
  m.advance(3 * kGiB);
  EXPECT_EQ(sb::test::lines_of(out.str()).size(), 2u) << out.str();
  m.advance(16 * kGiB);
  t.now = 105.0;
  m.finish();
  m.finish();
  const auto lines = sb::test::lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u) << out.str();
  EXPECT_EQ(lines.back(), "sort: 32.0 of 32.0 GiB (100%), 6.9 GB/s");
  EXPECT_EQ(m.done(), 32 * kGiB);
}

TEST(Progress, ShortWorkAndAQuietSwitchPrintNothing) {
  FakeTime t;
  std::ostringstream out;
  {
    ProgressMeter small("gen", kGiB - 1, out, t.clock());
    t.now += 10;
    small.advance(kGiB - 1);
    small.finish();
  }
  {
    // A long job that never reached its first interval ends without a lone final line.
    ProgressMeter quick("gen", 8 * kGiB, out, t.clock());
    quick.advance(8 * kGiB);
    quick.finish();
  }
  set_progress_enabled(false);
  {
    ProgressMeter quiet("gen", 8 * kGiB, out, t.clock());
    t.now += 10;
    quiet.advance(kGiB);
    quiet.finish();
  }
  set_progress_enabled(true);
  EXPECT_TRUE(progress_enabled());
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, AdvancesFromManyThreadsAddUp) {
  std::ostringstream out;
  ProgressMeter m("sort", 64 * kGiB, out, [] {
    static std::atomic<int> ticks{0};
    return 0.001 * ticks.fetch_add(1);  // every call a millisecond later: lines get printed concurrently
  });
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      for (int k = 0; k < 1000; ++k) m.advance(std::uint64_t{1} << 20);
    });
  for (auto& th : threads) th.join();
  m.finish();
  EXPECT_EQ(m.done(), 8000ull << 20);
  for (const std::string& line : sb::test::lines_of(out.str()))
    EXPECT_EQ(line.rfind("sort: ", 0), 0u) << "a torn line: " << line;
}

}  // namespace
