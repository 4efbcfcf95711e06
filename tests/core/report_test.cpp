// JSON and CSV writers: round trip, flat columns, and crash-safe files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "sortbench/core/errors.hpp"
#include "sortbench/report/report.hpp"

namespace sb {
namespace {

ResultRow sample_row() {
  ResultRow r;
  r.algorithm = "cub-radix";
  r.family = "baselines";
  r.stable = true;
  r.requested.n = 1000;
  r.requested.delta = 50;
  r.requested.key = KeyType::i32;
  r.spec = derive_input_spec(r.requested);
  r.source = make_generated_source(r.spec, r.requested)->provenance();
  r.realized = {1000, 0, 19, 20};
  r.params = {{"radix-bits", "4"}};
  r.status = RowStatus::ok;
  r.verification = "passed";
  namespace tag = summary_tag;
  const TimingStats t = summarize_times({1.0, 2.0, 3.0});
  r.summaries.set(tag::samples, static_cast<double>(t.samples));
  r.summaries.set(tag::median_ms, t.median_ms);
  r.summaries.set(tag::rel_stddev, t.rel_stddev);
  r.summaries.set(tag::keys_per_s, 5e8);
  r.summaries.set(tag::bandwidth_gbs, 4.0);
  r.summaries.set(tag::bandwidth_pct, 0.1);
  r.details = {{"end_bit", "5"}};
  return r;
}

TEST(Report, JsonRowRoundTrips) {
  const ResultRow r = sample_row();
  const ResultRow back = row_from_json(nlohmann::json::parse(to_json(r).dump()));
  EXPECT_EQ(back.algorithm, r.algorithm);
  EXPECT_EQ(back.spec.n, r.spec.n);
  EXPECT_EQ(back.spec.max_val, r.spec.max_val);
  EXPECT_EQ(back.spec.key, KeyType::i32);
  EXPECT_EQ(back.requested.delta, r.requested.delta);
  EXPECT_FALSE(back.requested.sigma.has_value());
  EXPECT_EQ(back.realized.len, 20u);
  EXPECT_EQ(back.status, RowStatus::ok);
  EXPECT_DOUBLE_EQ(back.median_ms(), 2.0);
  EXPECT_EQ(back.summaries.get(summary_tag::samples), 3.0);
  EXPECT_EQ(back.summaries.get(summary_tag::bandwidth_pct), 0.1);
  EXPECT_FALSE(back.summaries.get(summary_tag::max_ms).has_value()) << "only the summaries that were set";
  const auto j = to_json(r);
  EXPECT_TRUE(j["time_ms"]["samples"].is_number_integer());
  EXPECT_EQ(j["time_ms"]["median"], 2.0);
  EXPECT_EQ(j["keys_per_s"], 5e8);
  EXPECT_EQ(back.params, r.params);
  EXPECT_EQ(back.details, r.details);
}

TEST(Summaries, EveryTagHasADefinitionAndUniqueColumns) {
  Summaries s;
  EXPECT_THROW(s.set("no.such.summary", 1), std::logic_error);
  std::set<std::string_view> tags, columns;
  for (const SummaryDef& d : summary_defs()) {
    EXPECT_TRUE(tags.insert(d.tag).second) << d.tag;
    EXPECT_TRUE(columns.insert(d.column).second) << d.column;
  }
}

TEST(Report, UnsupportedRowHasReasonAndNoTimes) {
  ResultRow r = sample_row();
  r.status = RowStatus::unsupported;
  r.reason = "needs distinct keys";
  r.summaries = {};
  const auto j = to_json(r);
  EXPECT_EQ(j["status"], "unsupported");
  EXPECT_EQ(j["reason"], "needs distinct keys");
  EXPECT_TRUE(j["time_ms"].is_null());
  EXPECT_EQ(row_from_json(j).reason, "needs distinct keys");
}

TEST(Report, DocumentHasSchemaVersionContextAndResults) {
  RunContext c = make_context();
  c.command_line = "sortbench run";
  const auto doc = make_document(c, {sample_row(), sample_row()});
  EXPECT_EQ(doc["schema_version"], kSchemaVersion);
  EXPECT_EQ(doc["context"]["command_line"], "sortbench run");
  EXPECT_TRUE(doc["context"]["gpu"].is_null());
  EXPECT_FALSE(doc["context"]["git_commit"].get<std::string>().empty());
  EXPECT_EQ(doc["results"].size(), 2u);
}

// Issue 51: on a host of two or more GPUs the context records every ordered pair's link.
TEST(Report, ContextRecordsTheTopologyOfAHostWithSeveralGpus) {
  RunContext c = make_context();
  c.gpu = DeviceInfo{};
  EXPECT_FALSE(to_json(c).contains("topology")) << "one GPU: no pairs";
  PeerLink nvlink;
  nvlink.from = 0;
  nvlink.to = 1;
  nvlink.access = true;
  nvlink.native_atomics = true;
  PeerLink none;
  none.from = 1;
  none.to = 0;
  c.gpu->peers = {nvlink, none};
  const auto topology = to_json(c)["topology"];
  ASSERT_EQ(topology.size(), 2u);
  EXPECT_EQ(topology[0]["from"], 0);
  EXPECT_EQ(topology[0]["to"], 1);
  EXPECT_EQ(topology[0]["peer_access"], true);
  EXPECT_EQ(topology[0]["native_atomics"], true);
  EXPECT_EQ(topology[0]["performance_rank"], 0);
  EXPECT_EQ(topology[0]["link"], describe(nvlink));
  EXPECT_EQ(topology[1]["peer_access"], false);
  EXPECT_EQ(topology[1]["link"], "no peer access (through host memory)");
}

TEST(Report, CsvHasOneHeaderAndMatchingColumns) {
  ResultRow r = sample_row();
  r.reason = "a, \"quoted\" reason";
  const std::string csv = to_csv({r});
  std::istringstream in(csv);
  std::string header, line, extra;
  std::getline(in, header);
  std::getline(in, line);
  EXPECT_FALSE(std::getline(in, extra));
  const auto names = parse_csv_line(header);
  const auto fields = parse_csv_line(line);
  ASSERT_EQ(names.size(), fields.size());
  ASSERT_EQ(names, csv_header());
  auto field = [&](const std::string& name) {
    return fields[std::find(names.begin(), names.end(), name) - names.begin()];
  };
  EXPECT_EQ(field("algorithm"), "cub-radix");
  EXPECT_EQ(field("reason"), r.reason);
  EXPECT_EQ(field("median_ms"), "2");
  EXPECT_EQ(field("requested_delta"), "50");
  EXPECT_EQ(field("requested_sigma"), "");
  EXPECT_EQ(field("details"), "end_bit=5");
}

TEST(Report, AtomicWriteReplacesAndLeavesNoTemporary) {
  const auto dir = std::filesystem::temp_directory_path() / "sortbench_report_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  std::ifstream f(path);
  std::string content((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(content, "second");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(dir);
}

TEST(Report, UnwritablePathIsAnOutputError) {
  try {
    check_writable("/nonexistent-dir/out.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::output);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/out.json"), std::string::npos);
  }
}

TEST(Harness, StatisticsAndStoppingRule) {
  const TimingStats s = summarize_times({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 4);
  EXPECT_DOUBLE_EQ(s.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_NEAR(s.rel_stddev, 1.2909944 / 2.5, 1e-6);
  MeasureSettings m;
  m.min_reps = 3;
  m.max_noise = 0.01;
  m.budget_s = 10;
  EXPECT_FALSE(enough_samples({1.0, 1.0}, 0, m));           // below the minimum count
  EXPECT_TRUE(enough_samples({1.0, 1.0, 1.0}, 0, m));       // quiet enough
  EXPECT_FALSE(enough_samples({1.0, 2.0, 3.0}, 1, m));      // noisy, budget left
  EXPECT_TRUE(enough_samples({1.0, 2.0, 3.0}, 11, m));      // noisy, budget spent
}

TEST(Harness, RunningNoiseMatchesTheSummary) {
  const std::vector<double> ms{5.0, 5.5, 4.75, 5.25, 6.0, 4.9};
  SampleNoise noise;
  for (double x : ms) noise.add(x);
  EXPECT_EQ(noise.count(), ms.size());
  EXPECT_NEAR(noise.rel_stddev(), summarize_times(ms).rel_stddev, 1e-12);
}

}  // namespace
}  // namespace sb
