// The one pipeline on the CPU (session/session.hpp, issue 35): a Session of a host placement
// runs an algorithm, verifies it and hands its output to a sink; sources give slices and
// ranges that equal the same part of the whole; the file sink writes aside and renames only
// when committed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <vector>

#include "sortbench/algo/registry.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/slices.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/sink/file_sink.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/session/session.hpp"
#include "support/sortbench_test.hpp"

namespace sb {
namespace {

namespace fs = std::filesystem;

class KeepColumns final : public OutputSink {
 public:
  bool wants(Column) const override { return true; }
  void write(Column c, std::uint64_t first_byte, const unsigned char* data, std::uint64_t bytes) override {
    std::vector<unsigned char>& out = c == Column::keys ? keys : vals;
    EXPECT_EQ(first_byte, out.size()) << "chunks arrive in order";
    out.insert(out.end(), data, data + bytes);
  }
  std::vector<unsigned char> keys, vals;
};

template <typename T>
std::vector<T> as(const std::vector<unsigned char>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

SessionOptions on_host() {
  SessionOptions o;
  o.placement = PlacementKind::host;
  return o;
}

TEST(Session, HostPlacementRunsVerifiesAndDrainsTheSortedColumns) {
  const InputSpec spec = test::make_spec(5000, Distribution::uniform, KeyType::u32, Payload::index, 2.0);
  Session session(make_generated_source(spec), on_host());
  EXPECT_EQ(session.facts().n, spec.n);
  EXPECT_GT(session.facts().len, 0u) << "a benchmark session counts the distinct keys";
  const ResultRow row = session.run(*registry().find("cpu-stable-sort"), single_sample_settings(), {});
  ASSERT_EQ(row.status, RowStatus::ok) << row.reason;
  EXPECT_EQ(row.verification, "passed");
  KeepColumns sink;
  session.drain(sink);
  const test::Reference ref = test::make_reference(spec);
  EXPECT_EQ(sink.keys, ref.sorted_keys);
  EXPECT_EQ(as<index_t>(sink.vals), ref.stable_vals) << "a stable sort keeps equal keys in input order";
}

TEST(Session, ASingleRunLogsItsPhasesAndLearnsOnlyTheBounds) {
  const InputSpec spec = test::make_spec(3000, Distribution::uniform, KeyType::i64);
  PhaseLog phases;
  SessionOptions o = on_host();
  o.repeated = false;
  o.count_distinct = false;
  o.phases = &phases;
  Session session(make_generated_source(spec), o);
  EXPECT_EQ(session.facts().len, 0u) << "the distinct count stays unknown";
  std::vector<unsigned char> keys(spec.n * 8);
  generate_host(spec, keys.data(), nullptr);
  const KeyFacts all = input_stats_host(spec, keys.data());
  EXPECT_EQ(session.facts().min, all.min);
  EXPECT_EQ(session.facts().max, all.max);
  EXPECT_EQ(session.run(*registry().find("cpu-std-sort"), single_sample_settings(), {}).status, RowStatus::ok);
  std::vector<std::string> names;
  for (const auto& [name, ms] : phases) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"read", "analyze", "sort", "verify"}));
}

TEST(Session, DrainBeforeAnyRunIsAnError) {
  Session session(make_generated_source(test::make_spec(10)), on_host());
  KeepColumns sink;
  EXPECT_THROW(session.drain(sink), std::logic_error);
}

TEST(Session, RowsGoToTheSinkAsTheyAreMade) {
  struct Count : RowSink {
    int started = 0, done = 0;
    void row_started(const Algorithm&) override { ++started; }
    void row_done(const ResultRow&) override { ++done; }
  } count;
  Session session(make_generated_source(test::make_spec(100)), on_host());
  session.run(*registry().find("cpu-std-sort"), single_sample_settings(), {}, &count);
  session.run(*registry().find("cpu-hp-1"), single_sample_settings(), {}, &count);
  EXPECT_EQ(count.started, 2);
  EXPECT_EQ(count.done, 2);
}

// ---- sources: slices, shards and ranges ----

std::vector<unsigned char> whole_keys(const InputSource& s) {
  std::vector<unsigned char> keys(s.spec().n * key_bytes(s.spec().key));
  std::vector<unsigned char> vals(s.spec().n * payload_bytes(s.spec().payload));
  s.fill_host(keys.data(), vals.empty() ? nullptr : vals.data());
  return keys;
}

TEST(InputSources, GeneratedShardsTileTheWholeInput) {
  for (Payload payload : {Payload::none, Payload::index, Payload::u64}) {
    const InputSpec spec = test::make_spec(1001, Distribution::zipf, KeyType::u64, payload, 4.0);
    const auto source = make_generated_source(spec);
    const std::size_t kb = 8, vb = payload_bytes(payload);
    std::vector<unsigned char> keys(spec.n * kb), vals(spec.n * vb);
    source->fill_host(keys.data(), vb ? vals.data() : nullptr);
    for (int world : {1, 3, 7}) {
      std::vector<unsigned char> joined_keys, joined_vals;
      for (int r = 0; r < world; ++r) {
        const auto shard = source->shard(r, world);
        ASSERT_EQ(shard->spec().n, slice_size(r, spec.n, world));
        std::vector<unsigned char> k(shard->spec().n * kb), v(shard->spec().n * vb);
        shard->fill_host(k.data(), vb ? v.data() : nullptr);
        joined_keys.insert(joined_keys.end(), k.begin(), k.end());
        joined_vals.insert(joined_vals.end(), v.begin(), v.end());
        EXPECT_EQ(shard->provenance().contains("slice"), world > 1) << "the whole input is the source itself";
      }
      EXPECT_EQ(joined_keys, keys) << "world " << world << ", payload " << to_string(payload);
      EXPECT_EQ(joined_vals, vals) << "the values are those of the global positions";
    }
  }
}

TEST(InputSources, ASortedDistributionHasNoShards) {
  const auto source = make_generated_source(test::make_spec(100, Distribution::sorted));
  ASSERT_TRUE(source->why_no_shards());
  EXPECT_NE(source->why_no_shards()->find("sorted"), std::string::npos);
  EXPECT_THROW(source->shard(0, 2), UsageError);
  EXPECT_EQ(source->shard(0, 1).get(), source.get()) << "the whole input is the source itself";
  EXPECT_FALSE(make_generated_source(test::make_spec(100))->why_no_shards());
}

TEST(InputSources, ReadRangeOfASliceOfASliceIsThatPartOfTheWhole) {
  const InputSpec spec = test::make_spec(777, Distribution::uniform, KeyType::f32);
  const auto source = make_generated_source(spec);
  const auto keys = as<float>(whole_keys(*source));
  std::vector<float> part(50);
  source->slice(100, 400)->read_range(20, 50, part.data(), nullptr);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), keys.begin() + 120));
  EXPECT_THROW(source->slice(700, 100), std::logic_error) << "past the end is the caller's arithmetic";
}

TEST(InputSources, ArraySourceSlicesTheCallersMemory) {
  std::vector<std::uint32_t> keys(64), vals(64);
  std::iota(keys.rbegin(), keys.rend(), 0u);
  std::iota(vals.begin(), vals.end(), 1000u);
  const auto source = make_array_source({64, KeyType::u32, Payload::u32}, keys.data(), vals.data());
  EXPECT_TRUE(source->values_are_data());
  std::vector<std::uint32_t> k(8), v(8);
  source->shard(3, 8)->fill_host(k.data(), v.data());
  EXPECT_TRUE(std::equal(k.begin(), k.end(), keys.begin() + 24));
  EXPECT_TRUE(std::equal(v.begin(), v.end(), vals.begin() + 24));
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("sortbench-session-" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::size_t entries() const { return std::distance(fs::directory_iterator(path_), fs::directory_iterator()); }

 private:
  fs::path path_;
};

TEST(InputSources, FileSlicesMatchTheWholeReadInMemoryAndStreamed) {
  TempDir dir;
  std::vector<std::int64_t> keys(3000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int64_t>((i * 7919) % 1000) - 500;
  const std::string npy = dir.file("keys.npy"), txt = dir.file("keys.txt");
  write_column(npy, FileFormat::npy, KeyType::i64, keys.data(), keys.size());
  write_column(txt, FileFormat::text, KeyType::i64, keys.data(), keys.size());
  for (const std::string& path : {npy, txt})
    for (FileReading reading : {FileReading::into_memory, FileReading::streamed}) {
      FileInputRequest r;
      r.keys.path = path;
      r.keys.key = KeyType::i64;
      r.positions = true;
      const auto source = make_file_source(r, {}, reading);
      ASSERT_EQ(source->spec().n, keys.size());
      EXPECT_EQ(source->spec().payload, Payload::index);
      EXPECT_EQ(source->sortedness().has_value(), reading == FileReading::into_memory)
          << "a streamed file is measured by the session, not as it is read";
      std::vector<std::int64_t> k(1000);
      std::vector<index_t> v(1000);
      source->slice(1500, 1000)->fill_host(k.data(), v.data());
      EXPECT_TRUE(std::equal(k.begin(), k.end(), keys.begin() + 1500)) << path;
      for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], 1500 + i) << "positions are the file's";
    }
}

// ---- the file sink ----

TEST(FileSink, WritesAsideAndRenamesOnlyOnCommit) {
  TempDir dir;
  const std::vector<std::uint32_t> keys = {1, 2, 3, 4};
  {
    FileSink sink(4, FileSink::Target{dir.file("out.npy"), FileFormat::npy, KeyType::u32}, std::nullopt);
    EXPECT_TRUE(sink.wants(OutputSink::Column::keys));
    EXPECT_FALSE(sink.wants(OutputSink::Column::values));
    sink.write(OutputSink::Column::keys, 0, reinterpret_cast<const unsigned char*>(keys.data()), 16);
    sink.close();
    EXPECT_FALSE(fs::exists(dir.file("out.npy"))) << "nothing at the target before commit";
  }
  EXPECT_EQ(dir.entries(), 0u) << "an uncommitted sink leaves no file";
  FileSink sink(4, std::nullopt, FileSink::Target{dir.file("perm.raw"), FileFormat::raw, KeyType::u64}, Payload::u64);
  std::vector<std::uint64_t> encoded(4);
  for (std::uint64_t i = 0; i < 4; ++i) encoded[i] = encode_value<std::uint64_t>(Payload::u64, 3 - i);
  sink.write(OutputSink::Column::values, 0, reinterpret_cast<const unsigned char*>(encoded.data()), 32);
  EXPECT_EQ(sink.close(), 32u);
  sink.commit();
  FileRequest back;
  back.path = dir.file("perm.raw");
  back.key = KeyType::u64;
  const FileColumn c = read_column(back);
  std::vector<std::uint64_t> positions(4);
  std::memcpy(positions.data(), c.data.data(), 32);
  EXPECT_EQ(positions, (std::vector<std::uint64_t>{3, 2, 1, 0})) << "u64 positions are written decoded";
}

}  // namespace
}  // namespace sb
