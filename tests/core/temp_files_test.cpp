// Outputs written aside (core/temp_files.hpp, issue 37 item 4): the registry of live temporaries,
// the signal handler that removes them and then lets the signal end the process, and a full disk
// (/dev/full stands in for one: every write fails with ENOSPC) reported in one line that names the
// file and the fix, with no file left behind by sort's file sink (gen's chunked writer:
// chunked_write_test.cpp).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "sortbench/sink/column_writer.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/sink/file_sink.hpp"
#include "support/command.hpp"

namespace {

using namespace sb;
using sb::test::TempDir;
namespace fs = std::filesystem;

void touch(const std::string& path) { std::ofstream(path) << "x"; }

TEST(TempFiles, TheRegistryRemovesWhatIsLiveAndForgetsWhatIsNot) {
  TempDir dir;
  const std::size_t before = live_temp_file_count();
  touch(dir.file("a"));
  touch(dir.file("b"));
  const int a = register_temp_file(dir.file("a").c_str());
  const int b = register_temp_file(dir.file("b").c_str());
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(live_temp_file_count(), before + 2);
  unregister_temp_file(b);
  remove_live_temp_files();
  EXPECT_FALSE(fs::exists(dir.file("a")));
  EXPECT_TRUE(fs::exists(dir.file("b")));
  unregister_temp_file(a);
  EXPECT_EQ(live_temp_file_count(), before);
  EXPECT_EQ(register_temp_file(std::string(5000, 'x').c_str()), -1) << "a path too long for a slot";
}

TEST(TempFiles, ATempOutputIsRenamedWhenCommittedAndRemovedOtherwise) {
  TempDir dir;
  const std::string target = dir.file("out.npy");
  EXPECT_EQ(temp_path_for(target), target + ".sortbench-" + std::to_string(::getpid()) + ".tmp");
  {
    TempOutput t(target);
    touch(t.path());
  }
  EXPECT_TRUE(dir.names().empty());
  {
    TempOutput t(target);
    touch(t.path());
    t.commit();
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.npy"});
  {
    TempOutput t(dir.file("missing/out.npy"));
    try {
      t.commit();
      FAIL() << "renamed into a folder that does not exist";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::output);
      EXPECT_NE(std::string(e.what()).find("missing/out.npy"), std::string::npos) << e.what();
    }
  }
}

// In a child process: a temporary output and a file of its own, then SIGTERM. The child ends by
// the signal (the handler re-raised it with the default action) and only the temporary is gone.
TEST(TempFilesDeathTest, SigtermRemovesLiveTemporariesAndStillEndsTheProcess) {
  TempDir dir;
  const std::string target = dir.file("sorted.npy"), kept = dir.file("kept.txt");
  EXPECT_EXIT(
      {
        touch(kept);
        TempOutput t(target);
        touch(t.path());
        if (!fs::exists(t.path())) std::_Exit(3);
        ::raise(SIGTERM);
        std::_Exit(4);  // not reached: the signal ends the process
      },
      testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"kept.txt"});
}

bool have_dev_full() { return fs::exists("/dev/full"); }

TEST(TempFiles, AFullDiskIsOneLineNamingTheFileAndTheFix) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this system";
  const std::vector<std::uint32_t> keys(1 << 16, 7);
  try {
    ColumnWriter w("/dev/full", FileFormat::raw, KeyType::u32, keys.size(), "sorted.bin");
    w.append(keys.data(), keys.size());
    w.close();
    FAIL() << "a write to /dev/full succeeded";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.code(), ExitCode::output);
    EXPECT_EQ(m, "writing sorted.bin failed: the disk is full; free space or choose another path");
  }
}

// The temporary name made a link to /dev/full: the writer's every byte lands on a full "disk".
std::string full_disk_target(const TempDir& dir, const std::string& name) {
  const std::string target = dir.file(name);
  fs::create_symlink("/dev/full", temp_path_for(target));
  return target;
}

TEST(TempFiles, SortsFileSinkOnAFullDiskIsAUsageErrorAndLeavesNoFile) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this system";
  TempDir dir;
  const std::string target = full_disk_target(dir, "sorted.bin");
  const std::vector<std::uint32_t> keys(1 << 16, 7);
  try {
    FileSink sink(keys.size(), FileSink::Target{target, FileFormat::raw, KeyType::u32}, std::nullopt);
    sink.write(OutputSink::Column::keys, 0, reinterpret_cast<const unsigned char*>(keys.data()), keys.size() * 4);
    sink.close();
    sink.commit();
    FAIL() << "a write to /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("the disk is full"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.names().empty());
}

}  // namespace
