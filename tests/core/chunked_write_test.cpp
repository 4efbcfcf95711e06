// Writing a key column in chunks (sink/chunked_write.hpp, issue 37 item 5): with chunks forced
// down to a few keys, the file is byte for byte what a whole-column write gives, for every format
// and for key types of each width; the bounds seen chunk by chunk are the whole column's; a fill
// or a disk that fills up leaves no file (the latter said in one line); and `gen -o` writes what it
// wrote before chunking (header + keys).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "sortbench/sink/chunked_write.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/input/input_source.hpp"
#include "support/command.hpp"
#include "support/sortbench_test.hpp"

namespace {

using namespace sb;
using sb::test::TempDir;
namespace fs = std::filesystem;

std::vector<unsigned char> whole_keys(const InputSpec& spec) {
  std::vector<unsigned char> keys(std::max<std::uint64_t>(spec.n * key_bytes(spec.key), 1));
  generate_host(spec, keys.data(), nullptr);
  return keys;
}

TEST(ChunkedWrite, TinyChunksWriteTheBytesOfAWholeColumnWrite) {
  TempDir dir;
  struct Case {
    KeyType key;
    FileFormat format;
    std::uint64_t n;
  };
  const std::vector<Case> cases = {
      {KeyType::u32, FileFormat::npy, 1000},  {KeyType::i64, FileFormat::npy, 1001},
      {KeyType::f64, FileFormat::raw, 999},   {KeyType::u32x4, FileFormat::raw, 257},
      {KeyType::i32, FileFormat::text, 1003}, {KeyType::f32, FileFormat::text, 500},
      {KeyType::u64, FileFormat::npy, 0},     {KeyType::u32, FileFormat::raw, 1},
  };
  for (const Case& c : cases) {
    InputSpec spec = sb::test::make_spec(c.n, Distribution::uniform, c.key);
    if (is_float_key(c.key)) spec = sb::test::make_spec(c.n, Distribution::real, c.key);
    const auto keys = whole_keys(spec);
    const std::string what = std::string(to_string(c.key)) + " " + std::string(to_string(c.format)) + " n=" +
                             std::to_string(c.n);
    const std::string whole = dir.file("whole"), chunked = dir.file("chunked");
    write_column(whole, c.format, c.key, keys.data(), c.n);
    ChunkedWriteOptions how;
    how.format = c.format;
    how.chunk_bytes = 3 * key_bytes(c.key) + 1;  // three keys a chunk, and a byte that is no key
    const ChunkedWriteResult r = write_source_keys(*make_generated_source(spec), chunked, how);
    const std::string expected = sb::test::read_text(whole);
    EXPECT_EQ(sb::test::read_text(chunked), expected) << what;
    EXPECT_EQ(r.file_bytes, expected.size()) << what;
    // The bounds of the chunks are the whole column's; the distinct count is not counted.
    if (c.n) {
      const KeyFacts stats = input_stats_host(spec, keys.data());
      EXPECT_TRUE(r.bounds.min == stats.min && r.bounds.max == stats.max) << what;
      EXPECT_EQ(r.bounds.min_ordered, stats.min_ordered) << what;
      EXPECT_EQ(r.bounds.max_ordered, stats.max_ordered) << what;
      EXPECT_EQ(r.bounds.integral, stats.integral) << what;
    }
    EXPECT_EQ(r.bounds.n, c.n) << what;
    EXPECT_EQ(r.bounds.len, 0u) << what;
  }
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"chunked", "whole"})) << "no temporary left behind";
}

TEST(ChunkedWrite, AFillThatFailsLeavesNoFile) {
  TempDir dir;
  ChunkedWriteOptions how;
  how.chunk_bytes = 64;
  EXPECT_THROW(write_keys_chunked(dir.file("keys.bin"), KeyType::u32, 1000,
                                  [](std::uint64_t first, std::uint64_t, void*) {
                                    if (first > 100) throw std::runtime_error("the generator failed");
                                  },
                                  how),
               std::runtime_error);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(ChunkedWrite, AFullDiskIsOneLineAndLeavesNoFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  TempDir dir;
  // The temporary name made a link to /dev/full (every write fails with ENOSPC): a full disk.
  const std::string target = dir.file("keys.npy");
  fs::create_symlink("/dev/full", temp_path_for(target));
  ChunkedWriteOptions how;
  how.format = FileFormat::npy;
  how.chunk_bytes = 1 << 12;
  try {
    write_keys_chunked(target, KeyType::u32, 1 << 16,
                       [](std::uint64_t first, std::uint64_t count, void* keys) {
                         auto* k = static_cast<std::uint32_t*>(keys);
                         for (std::uint64_t i = 0; i < count; ++i) k[i] = static_cast<std::uint32_t>(first + i);
                       },
                       how);
    FAIL() << "a write to /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::output);
    EXPECT_EQ(std::string(e.what()),
              "writing " + target + " failed: the disk is full; free space or choose another path");
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(ChunkedWrite, GenWritesAHeaderAndTheGeneratedKeys) {
  TempDir dir;
  const InputSpec spec = sb::test::make_spec(5000, Distribution::zipf, KeyType::i64, Payload::none, 0.5,
                                             std::nullopt, -100, 11);
  const auto keys = whole_keys(spec);
  const std::string expected = npy_header(KeyType::i64, 5000) + std::string(keys.begin(), keys.end());
  const sb::test::CommandResult r = sb::test::run_command(
      sb::test::exe() + " gen --backend cpu -n 5000 --key i64 --dist zipf --delta 0.5 --min-val -100 --seed 11 -o " +
      dir.file("g.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(sb::test::read_text(dir.file("g.npy")), expected);
  EXPECT_NE(r.output.find("realized len "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wrote " + std::to_string(expected.size()) + " bytes of npy i64 keys"), std::string::npos)
      << r.output;
}

}  // namespace
