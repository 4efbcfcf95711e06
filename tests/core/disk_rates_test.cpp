// The disk probes behind sort's disk floor (core/disk_rates.hpp, issue 52 item 2): a folder's probe
// writes, syncs and reads back a file it then removes, a file's probe reads it, and a folder that
// cannot take a file is a usage error naming it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "sortbench/core/disk_rates.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "support/command.hpp"

namespace {

using namespace sb;
using sb::test::TempDir;

TEST(DiskRates, AFolderIsProbedByAFileItRemoves) {
  TempDir dir;
  const std::size_t live = live_temp_file_count();
  const DiskRates rates = probe_folder_rates(dir.path(), std::uint64_t{16} << 20);
  EXPECT_GT(rates.write_gbs, 0.0);
  EXPECT_GT(rates.read_gbs, 0.0);
  EXPECT_TRUE(dir.names().empty());
  EXPECT_EQ(live_temp_file_count(), live);
}

TEST(DiskRates, AFileIsProbedByReadingIt) {
  TempDir dir;
  const std::string file = dir.file("k.raw");
  std::vector<char> bytes(std::size_t{20} << 20, 'k');
  std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_GT(probe_file_read_gbs(file, std::uint64_t{16} << 20), 0.0);
  EXPECT_EQ(probe_file_read_gbs(dir.file("absent.raw"), std::uint64_t{16} << 20), 0.0);
}

TEST(DiskRates, AFolderThatTakesNoFileIsAUsageErrorNamingIt) {
  TempDir dir;
  const std::string nowhere = dir.file("nowhere");
  try {
    probe_folder_rates(nowhere, std::uint64_t{16} << 20);
    FAIL() << "a missing folder took the probe file";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(nowhere), std::string::npos) << e.what();
  }
}

TEST(DiskRates, TransferTimesAreBytesOverRate) {
  EXPECT_DOUBLE_EQ(transfer_ms(2'000'000'000, 2.0), 1000.0);
  EXPECT_DOUBLE_EQ(transfer_ms(0, 0.0), 0.0);
}

}  // namespace
