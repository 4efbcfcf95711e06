// The external sort's run store (algo/run_store.hpp, issue 52 items 1 and 5): runs in host memory
// while they fit, else in files registered for the signal handler and removed with the store; a
// file removed or truncated between the passes, a full disk and a folder that cannot take a file
// are one-line usage errors (exit 2) naming the file or folder and the fix.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>

#include <cstdint>
#include <filesystem>
#include <numeric>
#include <vector>

#include "sortbench/algo/run_store.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "support/command.hpp"

namespace {

using namespace sb;
using sb::test::TempDir;
namespace fs = std::filesystem;

// n keys (u64, descending) and values (u32, their index), written in pieces of `piece`.
void fill(RunStore& store, std::uint64_t n, std::uint64_t piece) {
  std::vector<std::uint64_t> keys(n);
  std::vector<std::uint32_t> vals(n);
  for (std::uint64_t i = 0; i < n; ++i) keys[i] = 3 * (n - i), vals[i] = static_cast<std::uint32_t>(i);
  for (std::uint64_t first = 0; first < n; first += piece) {
    const std::uint64_t m = std::min(piece, n - first);
    store.write(first, m, keys.data() + first, vals.data() + first);
  }
}

void expect_reads_back(const RunStore& store, std::uint64_t n) {
  std::vector<std::uint64_t> keys(n - 10);
  std::vector<std::uint32_t> vals(n - 10);
  store.read(10, n - 10, keys.data(), vals.data());
  for (std::uint64_t i = 10; i < n; ++i) {
    ASSERT_EQ(keys[i - 10], 3 * (n - i)) << i;
    ASSERT_EQ(vals[i - 10], i) << i;
  }
  std::uint64_t key = 0;
  store.read_keys(n - 1, 1, &key);
  EXPECT_EQ(key, 3u);
}

TEST(RunStore, RunsThatFitStayInHostMemoryAndTouchNoDisk) {
  TempDir dir;
  constexpr std::uint64_t n = 1000;
  RunStore store(n, 8, 4, RunSpace{n * 12, dir.path()});
  EXPECT_TRUE(store.in_memory());
  EXPECT_EQ(store.where(), "memory");
  fill(store, n, 77);
  store.seal();
  ASSERT_NE(store.keys(), nullptr);
  EXPECT_EQ(static_cast<const std::uint64_t*>(store.keys())[0], 3 * n);
  expect_reads_back(store, n);
  EXPECT_EQ(store.file_bytes(), 0u);
  EXPECT_TRUE(dir.names().empty());
}

TEST(RunStore, RunsPastTheLimitGoToRegisteredFilesThatLeaveWithTheStore) {
  TempDir dir;
  constexpr std::uint64_t n = 5000;
  const std::size_t live = live_temp_file_count();
  {
    RunStore store(n, 8, 4, RunSpace{n * 12 - 1, dir.path()});
    EXPECT_FALSE(store.in_memory());
    EXPECT_EQ(store.keys(), nullptr);  // the selection reads them from the file
    EXPECT_EQ(store.file_bytes(), n * 12);
    EXPECT_EQ(live_temp_file_count(), live + 2);  // keys and values: Ctrl-C removes both
    ASSERT_EQ(dir.names().size(), 2u);
    EXPECT_EQ(store.where().rfind(dir.path(), 0), 0u) << store.where();
    fill(store, n, 333);
    store.seal();
    expect_reads_back(store, n);
  }
  EXPECT_TRUE(dir.names().empty());
  EXPECT_EQ(live_temp_file_count(), live);
}

TEST(RunStore, KeysAloneTakeOneFile) {
  TempDir dir;
  RunStore store(100, 4, 0, RunSpace{0, dir.path()});
  EXPECT_EQ(dir.names().size(), 1u);
  std::vector<std::uint32_t> keys(100);
  std::iota(keys.begin(), keys.end(), 7u);
  store.write(0, 100, keys.data(), nullptr);
  store.seal();
  std::vector<std::uint32_t> back(100);
  store.read(0, 100, back.data(), nullptr);
  EXPECT_EQ(back, keys);
}

TEST(RunStore, AFileTruncatedBetweenThePassesIsAUsageErrorNamingIt) {
  TempDir dir;
  RunStore store(1000, 8, 4, RunSpace{0, dir.path()});
  fill(store, 1000, 1000);
  std::string keys_file;
  for (const auto& f : dir.names())
    if (f.find(".keys.") != std::string::npos) keys_file = dir.file(f);
  ASSERT_FALSE(keys_file.empty());
  fs::resize_file(keys_file, 100);
  try {
    store.seal();
    FAIL() << "a truncated run file passed";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(keys_file), std::string::npos) << m;
    EXPECT_NE(m.find("was truncated"), std::string::npos) << m;
    EXPECT_NE(m.find("--tmp-dir"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(RunStore, AFileRemovedBetweenThePassesIsAUsageError) {
  TempDir dir;
  RunStore store(1000, 8, 0, RunSpace{0, dir.path()});
  fill(store, 1000, 1000);
  for (const auto& f : dir.names()) fs::remove(dir.file(f));
  try {
    store.seal();
    FAIL() << "a removed run file passed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("was removed"), std::string::npos) << e.what();
  }
}

// A full disk, made by a file size limit: the write fails (EFBIG, SIGXFSZ ignored) as a full disk's does.
TEST(RunStore, AFullTemporaryDiskIsAUsageErrorNamingTheFolderAndTheFix) {
  TempDir dir;
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old);
  rlimit small = before;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  int code = 0;
  {
    RunStore store(10000, 8, 0, RunSpace{0, dir.path()});
    try {
      fill(store, 10000, 10000);
    } catch (const Error& e) {
      message = e.what();
      code = static_cast<int>(e.code());
    }
  }
  setrlimit(RLIMIT_FSIZE, &before);
  sigaction(SIGXFSZ, &old, nullptr);
  EXPECT_EQ(code, 2);
  EXPECT_NE(message.find("writing the sorted runs to " + dir.path() + " failed"), std::string::npos) << message;
  EXPECT_NE(message.find("--tmp-dir"), std::string::npos) << message;
  EXPECT_NE(message.find("--host-memory-limit"), std::string::npos) << message;
  EXPECT_TRUE(dir.names().empty());  // the store took its files with it
}

TEST(RunStore, AFolderThatCannotTakeAFileIsAUsageError) {
  TempDir dir;
  try {
    RunStore store(10, 8, 0, RunSpace{0, dir.file("missing")});
    FAIL() << "a missing folder took the runs";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("give --tmp-dir a writable folder"), std::string::npos) << e.what();
  }
}

}  // namespace
