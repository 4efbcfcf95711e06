// Spec parsing, its errors, row expansion, sharding and the JSONL file (lib/sortbench/experiment/sweep.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "sortbench/core/errors.hpp"
#include "sortbench/experiment/sweep.hpp"
#include "support/command.hpp"

namespace sb {
namespace {

using nlohmann::json;
using test::source_path;

// Only the baselines: the families being written elsewhere are "not registered" here.
const Registry& baselines() {
  static const Registry r = [] {
    Registry reg;
    register_baselines(reg);
    return reg;
  }();
  return r;
}

json small_spec() {
  return json::parse(R"({
    "name": "t", "backend": "cpu", "algorithms": ["cpu-std-sort"],
    "fixed": {"min_val": 0},
    "axes": [{"name": "delta", "values": [1, 4]}, {"name": "n", "pow2": {"from": 10, "to": 12}}]
  })");
}

// Parsing must fail with a message naming the file and the field.
void expect_spec_error(const json& spec, const std::vector<std::string>& fragments) {
  try {
    parse_sweep_spec(spec, "specs/bad.json", baselines());
    ADD_FAILURE() << "accepted: " << spec.dump();
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("specs/bad.json"), std::string::npos) << m;
    for (const auto& f : fragments) EXPECT_NE(m.find(f), std::string::npos) << "'" << f << "' missing from: " << m;
  }
}

TEST(SweepSpec, CrossProductWithTheLastAxisFastest) {
  const SweepSpec s = parse_sweep_spec(small_spec(), "t.json", baselines());
  ASSERT_EQ(s.rows.size(), 6u);
  ASSERT_EQ(s.algorithms.size(), 1u);
  EXPECT_EQ(s.backend, Backend::cpu);
  const std::vector<std::pair<double, std::uint64_t>> expected{{1, 1024}, {1, 2048}, {1, 4096},
                                                               {4, 1024}, {4, 2048}, {4, 4096}};
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    EXPECT_EQ(s.rows[i].index, i);
    EXPECT_EQ(*s.rows[i].request.delta, expected[i].first);
    EXPECT_EQ(*s.rows[i].request.n, expected[i].second);
    EXPECT_EQ(*s.rows[i].request.min_val, 0);
  }
  EXPECT_EQ(s.rows[4].key, "n=2048 delta=4 min_val=0 dist=uniform key=u32 payload=none seed=1");
}

TEST(SweepSpec, LinearAndPowerOfTwoAxesAndParts) {
  json j = small_spec();
  j.erase("axes");
  j["parts"] = json::parse(R"([
    {"fixed": {"delta": 1}, "axes": [{"name": "n", "linear": {"from": 200000, "to": 2000000, "step": 100000}}]},
    {"fixed": {"delta": 0.5}, "axes": [{"name": "n", "linear": {"from": 200000, "to": 1300000, "step": 100000}}]},
    {"fixed": {"max_val": 16777216, "delta": 2}, "axes": [{"name": "n", "values": ["2^25"]}]}
  ])");
  const SweepSpec s = parse_sweep_spec(j, "t.json", baselines());
  ASSERT_EQ(s.rows.size(), 19u + 12u + 1u);
  EXPECT_EQ(*s.rows[0].request.n, 200000u);
  EXPECT_EQ(*s.rows[18].request.n, 2000000u);
  EXPECT_EQ(*s.rows[19].request.delta, 0.5);
  EXPECT_EQ(*s.rows[30].request.n, 1300000u);
  EXPECT_EQ(*s.rows[31].request.n, std::uint64_t{1} << 25);
  EXPECT_EQ(*s.rows[31].request.max_val, 16777216);
  const InputSpec last = derive_input_spec(s.rows[31].request);
  EXPECT_EQ(last.range, 16777216u);

  json p = small_spec();
  p["axes"] = json::parse(R"([{"name": "n", "pow2": {"from": 8, "to": 27, "step": 3}}])");
  const SweepSpec q = parse_sweep_spec(p, "t.json", baselines());
  ASSERT_EQ(q.rows.size(), 7u);  // 8, 11, ..., 26
  EXPECT_EQ(*q.rows[6].request.n, std::uint64_t{1} << 26);
}

TEST(SweepSpec, SettingsParamsAndTypedFields) {
  json j = small_spec();
  j["measure"] = {{"warmup", 0}, {"reps", 3}, {"max_noise_pct", 5}, {"budget_s", 0.5}, {"flush_l2", false}};
  j["fixed"] = {{"key", "f32"}, {"payload", "index"}, {"dist", "zipf"}, {"seed", 9}, {"min_val", "-2^10"}};
  const SweepSpec s = parse_sweep_spec(j, "t.json", baselines());
  EXPECT_EQ(s.settings.warmup, 0);
  EXPECT_EQ(s.settings.min_reps, 3);
  EXPECT_DOUBLE_EQ(s.settings.max_noise, 0.05);
  EXPECT_DOUBLE_EQ(s.settings.budget_s, 0.5);
  EXPECT_FALSE(s.settings.flush_l2);
  const InputRequest& r = s.rows[0].request;
  EXPECT_EQ(r.key, KeyType::f32);
  EXPECT_EQ(r.payload, Payload::index);
  EXPECT_EQ(r.dist, Distribution::zipf);
  EXPECT_EQ(r.seed, 9u);
  EXPECT_EQ(*r.min_val, -1024);
}

TEST(SweepSpec, AlgorithmParametersAsFixedValuesAndAxes) {
  json j = json::parse(R"({
    "algorithms": ["cub-radix"], "params": {"radix-bits": 4},
    "axes": [{"name": "n", "values": [1024]}]
  })");
  const Algorithm* radix = baselines().find("cub-radix");
  ASSERT_NE(radix, nullptr);
  if (std::find(radix->params.begin(), radix->params.end(), "radix-bits") == radix->params.end()) {
    expect_spec_error(j, {"params", "radix-bits", "read by none"});
    return;
  }
  const SweepSpec s = parse_sweep_spec(j, "t.json", baselines());
  EXPECT_EQ(s.rows[0].params.at("radix-bits"), "4");
  j.erase("params");
  j["axes"].push_back({{"name", "param:radix-bits"}, {"values", {4, 8}}});
  const SweepSpec t = parse_sweep_spec(j, "t.json", baselines());
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].params.at("radix-bits"), "8");
  EXPECT_NE(t.rows[1].key.find("param:radix-bits=8"), std::string::npos);
}

TEST(SweepSpec, GlobsThatMatchNothingBecomeUnregisteredRows) {
  json j = small_spec();
  j["backend"] = "gpu";
  j["algorithms"] = {"nosuch-*", "cpu-*", "cub-radix-bits", "nosuch-*"};
  const SweepSpec s = parse_sweep_spec(j, "t.json", baselines());
  ASSERT_EQ(s.unregistered, std::vector<std::string>{"nosuch-*"});
  // Every cpu-* baseline (cpu-std-sort, cpu-parallel-sort, cpu-stable-sort, and the cpu-boost-*
  // rows where the build found Boost.Sort), then cub-radix-bits.
  std::size_t cpu = 0;
  for (const Algorithm& a : baselines().all()) cpu += a.name.rfind("cpu-", 0) == 0;
  EXPECT_GE(cpu, 3u);
  EXPECT_EQ(s.algorithms.size(), cpu + 1);
  EXPECT_EQ(s.results_per_row(), cpu + 2);
  j["algorithms"] = {"all"};
  const SweepSpec all = parse_sweep_spec(j, "t.json", baselines());
  for (const Algorithm* a : all.algorithms) EXPECT_EQ(a->backend, Backend::gpu) << a->name;
}

TEST(SweepSpec, ErrorsNameTheFileAndTheField) {
  json j = small_spec();
  j["algorithms"] = {"cpu-std-sort", "cpu-std-srot"};
  expect_spec_error(j, {"algorithms[1]", "unknown algorithm 'cpu-std-srot'", "cpu-std-sort"});

  j = small_spec();
  j["algorithms"] = json::array();
  expect_spec_error(j, {"algorithms"});

  j = small_spec();
  j["axes"][1] = json::parse(R"({"name": "n", "values": []})");
  expect_spec_error(j, {"axes[1] (n)", "no values"});

  j = small_spec();
  j["axes"][1] = json::parse(R"({"name": "n", "pow2": {"from": 12, "to": 10}})");
  expect_spec_error(j, {"axes[1] (n)", "no values"});

  j = small_spec();
  j["fixed"]["max_val"] = 100;  // with n and delta: range n / delta disagrees with maxVal
  expect_spec_error(j, {"fixed.max_val", "axes[0] (delta)", "axes[1] (n)", "inconsistent", "range"});

  j = small_spec();
  j["fixed"]["sigmaa"] = 2;
  expect_spec_error(j, {"fixed.sigmaa", "unknown input parameter"});

  j = small_spec();
  j["axis"] = json::array();
  expect_spec_error(j, {"axis", "unknown field"});

  j = small_spec();
  j["axes"][0] = json::parse(R"({"name": "delta", "values": [1, 1]})");
  expect_spec_error(j, {"repeats row"});

  j = small_spec();
  j["axes"][0] = json::parse(R"({"name": "key", "values": ["u16"]})");
  expect_spec_error(j, {"axes[0] (key).values[0]", "u32, i32, f32, u64, i64, f64, u32x4"});

  j = small_spec();
  j["axes"][0] = json::parse(R"({"name": "n", "values": [1]})");
  expect_spec_error(j, {"axes[1] (n)", "already an axis"});

  j = small_spec();
  j["algorithms"] = {"cub-radix"};
  expect_spec_error(j, {"algorithms", "runs on the GPU", "backend is cpu"});

  j = small_spec();
  j["measure"] = {{"reps", 0}};
  expect_spec_error(j, {"measure.reps"});

  j = small_spec();
  j["axes"][1] = json::parse(R"({"name": "n", "values": [1024], "linear": {"from": 1, "to": 2, "step": 1}})");
  expect_spec_error(j, {"axes[1] (n)", "exactly one"});
}

TEST(SweepSpec, EveryDatasetParsesAndEveryRowIsConsistent) {
  std::size_t specs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("datasets"))) {
    if (entry.path().extension() != ".json") continue;
    ++specs;
    SCOPED_TRACE(entry.path().string());
    SweepSpec s;
    ASSERT_NO_THROW(s = load_sweep_spec(entry.path().string(), registry()));
    EXPECT_FALSE(s.rows.empty());
    EXPECT_FALSE(s.regenerates.empty()) << "each spec says which figure or table it regenerates";
    EXPECT_GT(s.results_per_row(), 0u);
  }
  EXPECT_GE(specs, 10u);
}

TEST(SweepSpec, BitonicTableKeepsF32KeysWithin2To24) {
  const SweepSpec s = load_sweep_spec(source_path("datasets/bitonic-table.json"), baselines());
  ASSERT_EQ(s.rows.size(), 20u);  // 2^8 ... 2^27
  for (const auto& row : s.rows) {
    const InputSpec in = derive_input_spec(row.request);
    EXPECT_EQ(in.key, KeyType::f32);
    EXPECT_EQ(in.payload, Payload::index);
    EXPECT_LE(in.range, std::uint64_t{1} << 24) << row.key;
  }
  EXPECT_EQ(derive_input_spec(s.rows.back().request).n, std::uint64_t{1} << 27);
}

TEST(SweepShard, ShardsPartitionTheRows) {
  const SweepSpec s = load_sweep_spec(source_path("datasets/hp-6.3.1-no-duplicates.json"), baselines());
  for (std::size_t count = 1; count <= 5; ++count) {
    std::multiset<std::size_t> seen;
    for (std::size_t i = 0; i < count; ++i)
      for (const SweepRow* row : shard_rows(s, {i, count})) {
        EXPECT_EQ(row->index % count, i);
        seen.insert(row->index);
      }
    ASSERT_EQ(seen.size(), s.rows.size()) << count << " shards";
    for (std::size_t i = 0; i < s.rows.size(); ++i) EXPECT_EQ(seen.count(i), 1u) << "row " << i;
  }
}

TEST(SweepShard, ParsesIOverN) {
  EXPECT_EQ(parse_shard("2/4").index, 2u);
  EXPECT_EQ(parse_shard("2/4").count, 4u);
  for (const char* bad : {"4/4", "1", "a/2", "-1/2", "1/0", "1/2x", "/2"}) EXPECT_THROW(parse_shard(bad), UsageError) << bad;
}

TEST(SweepFileTest, DropsAndCutsOffAPartialLastLine) {
  test::TempDir dir;
  const std::string path = dir.file("out.jsonl");
  const std::string complete = R"({"context": {}})" "\n"
                               R"({"row_key": "r0", "algorithm": "a"})" "\n"
                               R"({"row_key": "r1", "algorithm": "a"})" "\n";
  test::write_text(path, complete + R"({"row_key": "r2", "algori)");
  SweepFile peek = read_sweep_file(path, false);
  EXPECT_EQ(peek.results, 2u);
  EXPECT_GT(peek.dropped_bytes, 0u);
  EXPECT_NE(test::read_text(path), complete);  // left alone without truncate_partial
  SweepFile f = read_sweep_file(path, true);
  EXPECT_TRUE(f.has_context);
  EXPECT_EQ(f.done, (std::set<std::string>{result_key("r0", "a"), result_key("r1", "a")}));
  EXPECT_EQ(test::read_text(path), complete);

  test::write_text(path, complete + "not json\n");
  EXPECT_THROW(read_sweep_file(path, true), UsageError);
  EXPECT_EQ(read_sweep_file(dir.file("missing.jsonl"), true).results, 0u);
}

TEST(SweepRun, WritesEveryResultOnceAndSkipsDoneOnes) {
  json j = small_spec();
  j["algorithms"] = {"cpu-std-sort", "nosuch-*"};
  j["measure"] = {{"warmup", 0}, {"reps", 1}, {"budget_s", 0}};
  const SweepSpec s = parse_sweep_spec(j, "t.json", baselines());
  test::TempDir dir;
  const std::string path = dir.file("out.jsonl");
  SweepOutcome first;
  {
    JsonlAppender out(path);
    SweepRunOptions options;
    options.shard = {1, 2};
    first = run_sweep(s, options, {}, out);
  }
  EXPECT_EQ(first.written, 3u * 2u);  // rows 1, 3, 5 x (cpu-std-sort, nosuch-*)
  EXPECT_EQ(first.remaining, 0u);
  SweepFile f = read_sweep_file(path, true);
  EXPECT_EQ(f.results, 6u);
  std::size_t unregistered = 0;
  for (const auto& line : test::lines_of(test::read_text(path))) {
    const json r = json::parse(line);
    EXPECT_EQ(r.at("row_index").get<std::size_t>() % 2, 1u);
    const ResultRow row = row_from_json(r);
    if (row.algorithm == "nosuch-*") {
      ++unregistered;
      EXPECT_EQ(row.status, RowStatus::unsupported);
      EXPECT_NE(row.reason.find("not registered in this build"), std::string::npos);
    } else {
      EXPECT_EQ(row.status, RowStatus::ok) << row.reason;
      EXPECT_EQ(row.verification, "passed");
    }
  }
  EXPECT_EQ(unregistered, 3u);
  // All shards after shard 1: only the even rows run.
  JsonlAppender out(path);
  const SweepOutcome rest = run_sweep(s, {}, f.done, out);
  EXPECT_EQ(rest.written, 6u);
  EXPECT_EQ(read_sweep_file(path, true).done.size(), 12u);
  const SweepOutcome none = run_sweep(s, {}, read_sweep_file(path, true).done, out);
  EXPECT_EQ(none.written, 0u);
}

TEST(SweepRun, StopAfterStartsNoNewRow) {
  json j = small_spec();
  j["measure"] = {{"warmup", 0}, {"reps", 1}, {"budget_s", 0}};
  const SweepSpec s = parse_sweep_spec(j, "t.json", baselines());
  test::TempDir dir;
  JsonlAppender out(dir.file("out.jsonl"));
  SweepRunOptions options;
  options.stop_after_s = 0;
  const SweepOutcome o = run_sweep(s, options, {}, out);
  EXPECT_TRUE(o.stopped_on_time);
  EXPECT_EQ(o.written, 0u);
  EXPECT_EQ(o.remaining, 6u);
}

TEST(SweepEstimateTest, GrowsWithTheRowsAndDropsDoneOnes) {
  const SweepSpec s = parse_sweep_spec(small_spec(), "t.json", baselines());
  const auto rows = shard_rows(s, {});
  const SweepEstimate all = estimate_sweep(s, rows, {});
  EXPECT_GT(all.low_s, 0);
  EXPECT_GE(all.high_s, all.low_s + s.rows.size() * s.settings.budget_s - 1e-9);
  std::set<std::string> done;
  for (const auto& row : s.rows) done.insert(result_key(row.key, "cpu-std-sort"));
  EXPECT_EQ(estimate_sweep(s, rows, done).low_s, 0);
  EXPECT_EQ(format_duration(59), "59s");
  EXPECT_EQ(format_duration(3 * 60 + 7), "3m07s");
  EXPECT_EQ(format_duration(2 * 3600 + 5 * 60), "2h05m");
}

}  // namespace
}  // namespace sb
