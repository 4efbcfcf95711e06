// Issue 38: a user's file split over ranks, on the CPU. A text file's ranges read through the
// probe's line index equal the ranges read from the file's start (line numbers in messages
// included); files cut short after their probe are refused in one line; every format's shards
// tile the whole column for uneven splits, n below the world and the empty file; the ranks' output
// file is the whole sorted column whatever order its parts are written in, and nothing stays
// behind when it is not committed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sortbench/sink/column_writer.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/slices.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/sink/rank_file_output.hpp"
#include "support/command.hpp"

namespace {

using namespace sb;
using sb::test::TempDir;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

FileRequest req(const std::string& path) {
  FileRequest r;
  r.path = path;
  return r;
}

std::string bytes_of(const FileColumn& c) {
  return std::string(reinterpret_cast<const char*>(c.data.data()), c.n * key_bytes(c.key));
}

// The message of the UsageError that f throws ("" when it throws none).
template <typename F>
std::string refusal_of(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// Every range [first, first + count) of the column, read with the probe's index (stride 3, so
// most ranges start between checkpoints and end before the next) and without it: the same
// elements, type and span of lines; ranges past the end refused alike.
void expect_indexed_ranges_match(const FileRequest& r, std::uint64_t expected_n) {
  const ColumnInfo info = probe_column(r, 3);
  ASSERT_EQ(info.n, expected_n) << r.path;
  ASSERT_TRUE(info.lines) << "a text probe keeps its line index";
  EXPECT_EQ(info.lines->cells, info.n);
  EXPECT_EQ(info.lines->checkpoints.size(), (info.n + 2) / 3);
  FileRequest indexed = r;
  indexed.lines = info.lines;
  const std::uint64_t n = info.n;
  for (std::uint64_t first = 0; first <= n; ++first)
    for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3},
                                std::uint64_t{4}, std::uint64_t{7}, n - first}) {
      if (count > n - first) continue;
      SCOPED_TRACE(r.path + " [" + std::to_string(first) + ", +" + std::to_string(count) + ")");
      const FileColumn plain = read_column_range(r, first, count);
      const FileColumn quick = read_column_range(indexed, first, count);
      EXPECT_EQ(quick.n, count);
      EXPECT_EQ(quick.key, plain.key);
      EXPECT_EQ(quick.dtype, plain.dtype);
      EXPECT_EQ(quick.file_bytes, plain.file_bytes);
      EXPECT_EQ(bytes_of(quick), bytes_of(plain));
    }
  for (const auto& [first, count] : {std::pair<std::uint64_t, std::uint64_t>{n, 1}, {0, n + 1}, {n + 1, 0}}) {
    const std::string plain = refusal_of([&] { read_column_range(r, first, count); });
    EXPECT_FALSE(plain.empty());
    EXPECT_EQ(refusal_of([&] { read_column_range(indexed, first, count); }), plain);
  }
}

TEST(FileShards, TextRangesThroughTheLineIndexMatchReadsFromTheStart) {
  TempDir dir;
  std::string lines;
  for (int i = 0; i < 40; ++i) lines += (i % 7 == 3 ? "\n  \n" : "") + std::to_string((i * 7919) % 1000 - 300) + "\n";
  write_bytes(dir.file("lines.txt"), lines + "12");  // the last line has no newline
  expect_indexed_ranges_match(req(dir.file("lines.txt")), 41);

  std::string csv = "id,price\n";
  for (int i = 0; i < 25; ++i) csv += std::to_string(i) + "," + std::to_string(i * 1.25) + (i == 9 ? "\n\n" : "\n");
  write_bytes(dir.file("table.csv"), csv);
  FileRequest price = req(dir.file("table.csv"));
  price.column = "price";
  expect_indexed_ranges_match(price, 25);
  price.column = "0";
  expect_indexed_ranges_match(price, 25);

  // A byte-order mark and a one-column header found without --column.
  std::string bom = "\xEF\xBB\xBF" "value\n";
  for (int i = 0; i < 17; ++i) bom += std::to_string(17 - i) + "\n";
  write_bytes(dir.file("bom.csv"), bom);
  expect_indexed_ranges_match(req(dir.file("bom.csv")), 17);

  FileRequest typed = req(dir.file("lines.txt"));
  typed.key = KeyType::i32;
  expect_indexed_ranges_match(typed, 41);

  write_bytes(dir.file("empty.txt"), "");
  const ColumnInfo empty = probe_column(req(dir.file("empty.txt")), 3);
  EXPECT_EQ(empty.n, 0u);
  FileRequest empty_indexed = req(dir.file("empty.txt"));
  empty_indexed.lines = empty.lines;
  EXPECT_EQ(read_column_range(empty_indexed, 0, 0).n, 0u);
}

TEST(FileShards, ABadCellReadThroughTheIndexNamesItsLine) {
  TempDir dir;
  write_bytes(dir.file("x.txt"), "1\n\n2\n3\n\n4\nx\n5\n");
  FileRequest r = req(dir.file("x.txt"));
  r.key = KeyType::i64;
  const ColumnInfo info = probe_column(r, 2);
  ASSERT_EQ(info.n, 6u);
  r.lines = info.lines;
  EXPECT_EQ(read_column_range(r, 0, 4).n, 4u) << "the ranges before the bad cell read";
  EXPECT_NE(refusal_of([&] { read_column_range(r, 4, 2); }).find("line 7: 'x' is not a number"), std::string::npos);
}

TEST(FileShards, AFileCutShortAfterItsProbeIsRefusedInOneLine) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + "\n";
  write_bytes(dir.file("t.txt"), text);
  FileRequest r = req(dir.file("t.txt"));
  r.lines = probe_column(r, 10).lines;
  std::filesystem::resize_file(dir.file("t.txt"), 50);
  const std::string cut = refusal_of([&] { read_column_range(r, 90, 10); });
  EXPECT_NE(cut.find(dir.file("t.txt")), std::string::npos) << cut;
  EXPECT_NE(cut.find("truncated"), std::string::npos) << cut;
  EXPECT_NE(cut.find("write the file again"), std::string::npos) << cut;
  EXPECT_EQ(std::count(cut.begin(), cut.end(), '\n'), 0) << cut;

  std::vector<std::uint32_t> keys(1000, 7);
  write_column(dir.file("k.npy"), FileFormat::npy, KeyType::u32, keys.data(), keys.size());
  const auto source = make_file_source({req(dir.file("k.npy"))}, {}, FileReading::streamed);
  std::filesystem::resize_file(dir.file("k.npy"), 1000);
  std::vector<std::uint32_t> shard(500);
  const std::string npy_cut = refusal_of([&] { source->shard(1, 2)->fill_host(shard.data(), nullptr); });
  EXPECT_NE(npy_cut.find(dir.file("k.npy")), std::string::npos) << npy_cut;
  EXPECT_NE(npy_cut.find("truncated"), std::string::npos) << npy_cut;
}

// The keys of the whole source, and the same keys joined from its shards.
std::string whole_of(const InputSource& s) {
  std::string keys(s.spec().n * key_bytes(s.spec().key), '\0');
  std::string vals(s.spec().n * payload_bytes(s.spec().payload), '\0');
  s.fill_host(keys.data(), vals.empty() ? nullptr : vals.data());
  return keys + vals;
}
std::string joined_shards_of(const InputSource& s, int world) {
  std::string keys, vals;
  for (int r = 0; r < world; ++r) {
    const auto shard = s.shard(r, world);
    EXPECT_EQ(shard->spec().n, slice_size(r, s.spec().n, world));
    EXPECT_EQ(shard->spec().key, s.spec().key);
    const std::string part = whole_of(*shard);
    const std::size_t kb = shard->spec().n * key_bytes(s.spec().key);
    keys += part.substr(0, kb);
    vals += part.substr(kb);
  }
  return keys + vals;
}

TEST(FileShards, EveryFormatsShardsTileTheColumnForEveryWorld) {
  TempDir dir;
  for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{1001}}) {
    std::vector<std::int64_t> keys(n), values(n);
    std::string text;
    for (std::uint64_t i = 0; i < n; ++i) {
      keys[i] = static_cast<std::int64_t>((i * 2654435761u) % 100000) - 5000;
      values[i] = static_cast<std::int64_t>(i * 3);
      text += std::to_string(keys[i]) + (i % 97 == 5 ? "\n\n" : "\n");
    }
    const std::string tag = std::to_string(n);
    write_column(dir.file(tag + ".npy"), FileFormat::npy, KeyType::i64, keys.data(), n);
    write_column(dir.file(tag + ".bin"), FileFormat::raw, KeyType::i64, keys.data(), n);
    write_column(dir.file(tag + "v.npy"), FileFormat::npy, KeyType::i64, values.data(), n);
    write_bytes(dir.file(tag + ".txt"), text);
    FileInputRequest npy{req(dir.file(tag + ".npy"))}, raw{req(dir.file(tag + ".bin"))},
        txt{req(dir.file(tag + ".txt"))}, with_values{req(dir.file(tag + ".npy"))};
    raw.keys.key = KeyType::i64;
    with_values.values = req(dir.file(tag + "v.npy"));
    for (const FileInputRequest& request : {npy, raw, txt, with_values})
      for (const FileReading reading : {FileReading::into_memory, FileReading::streamed}) {
        const auto source = make_file_source(request, {}, reading);
        EXPECT_FALSE(source->why_no_shards()) << "a file shards";
        const std::string whole = whole_of(*source);
        for (int world : {1, 2, 3, 7})
          EXPECT_EQ(joined_shards_of(*source, world), whole)
              << request.keys.path << (request.values ? " with values" : "") << ", world " << world
              << (reading == FileReading::streamed ? ", streamed" : ", in memory");
      }
  }
}

// A column of n keys and one output written from its parts, in the order given.
void write_in_parts(RankFileOutput& out, const std::vector<std::int64_t>& sorted,
                    const std::vector<std::uint64_t>& counts, const std::vector<int>& order) {
  std::vector<std::uint64_t> offsets(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  for (const int r : order) {
    const auto part = out.part(r, offsets[r], counts[r]);
    // Two appends, as a rank downloads its part in pieces.
    const std::uint64_t half = counts[r] / 2;
    part->append(sorted.data() + offsets[r], half);
    part->append(sorted.data() + offsets[r] + half, counts[r] - half);
    part->close();
  }
}

TEST(RankFileOutput, PartsInAnyOrderMakeTheWholeColumnInEveryFormat) {
  TempDir dir;
  std::vector<std::int64_t> sorted(10);
  for (int i = 0; i < 10; ++i) sorted[i] = i * 11 - 40;
  for (const auto& [name, format] : {std::pair<std::string, FileFormat>{"o.npy", FileFormat::npy},
                                     {"o.bin", FileFormat::raw}, {"o.txt", FileFormat::text}}) {
    SCOPED_TRACE(name);
    const std::string target = dir.file(name);
    RankFileOutput out({target, format, KeyType::i64}, sorted.size(), 4);
    write_in_parts(out, sorted, {0, 7, 3, 0}, {2, 3, 1, 0});
    EXPECT_FALSE(std::filesystem::exists(target)) << "nothing at the target before the commit";
    EXPECT_GT(out.commit(), 0u);
    FileRequest r = req(target);
    r.format = format;
    r.key = KeyType::i64;
    const FileColumn c = read_column(r);
    ASSERT_EQ(c.n, sorted.size());
    EXPECT_EQ(std::memcmp(c.data.data(), sorted.data(), sorted.size() * 8), 0);
    EXPECT_FALSE(std::filesystem::exists(out.aside()));
    for (int rank = 0; rank < 4; ++rank) EXPECT_FALSE(std::filesystem::exists(out.part_path(rank)));
  }
}

TEST(RankFileOutput, AnOutputNotCommittedLeavesNothingBehind) {
  TempDir dir;
  std::vector<std::int64_t> sorted{1, 2, 3, 4, 5};
  for (const FileFormat format : {FileFormat::npy, FileFormat::text}) {
    const std::string target = dir.file("never");
    std::string aside;
    std::vector<std::string> parts;
    {
      RankFileOutput out({target, format, KeyType::i64}, sorted.size(), 2);
      write_in_parts(out, sorted, {3, 2}, {0, 1});
      aside = out.aside();
      parts = {out.part_path(0), out.part_path(1)};
      EXPECT_TRUE(std::filesystem::exists(format == FileFormat::text ? parts[0] : aside));
    }
    EXPECT_FALSE(std::filesystem::exists(target));
    EXPECT_FALSE(std::filesystem::exists(aside));
    for (const auto& p : parts) EXPECT_FALSE(std::filesystem::exists(p));
  }
  // A process that leaves the file to the committing rank does not remove it.
  const std::string shared = shared_aside_path(dir.file("o.npy"), dir.path());
  {
    RankFileOutput out({dir.file("o.npy"), FileFormat::npy, KeyType::i64}, sorted.size(), 2, shared);
    write_in_parts(out, sorted, {3, 2}, {1});
    out.leave_to_committer();
  }
  EXPECT_TRUE(std::filesystem::exists(shared));
}

TEST(RankFileOutput, ProcessesOfOneRunDeriveOneAsideName) {
  TempDir dir;
  const std::string a = shared_aside_path(dir.file("out.npy"), dir.path());
  EXPECT_EQ(a, shared_aside_path(dir.file("out.npy"), dir.path() + "/./"));
  EXPECT_NE(a, shared_aside_path(dir.file("out.npy"), dir.file("other")));
  EXPECT_EQ(a.rfind(dir.file("out.npy"), 0), 0u) << "beside the target: " << a;
}

}  // namespace
