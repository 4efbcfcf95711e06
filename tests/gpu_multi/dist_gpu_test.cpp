// Distributed sorts on two GPUs (issue 15), through the real executable: every distributed
// algorithm on G = 2 for the GPU test matrix's distributions, sizes not divisible by G, n < G,
// all keys equal, and a rank that runs out of memory; with payloads (issue 38) the same inputs
// verified as (key, value) pairs, and a value moved apart from its key caught by the ranks'
// verification. Label gpu-multi; tests/support/gpu_main.cpp skips (exit 77) with the reason when
// fewer than two GPUs answer.
#include <cuda_runtime_api.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sortbench/algo/ranks.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/place/rank_placement.hpp"
#include "gpu_multi/expect_rows.hpp"
#include "support/command.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

// Runs sortbench run on the test's ranks with `args` and returns the JSON document.
nlohmann::json run_ranks(const std::string& args, int expect_exit = 0) {
  TempDir dir;
  const std::string json = dir.file("out.json");
  const CommandResult r =
      run_command(exe() + " run" + gpus_option() + "--reps 2 --budget 0 --quiet --json " + json + " " + args, true);
  EXPECT_EQ(r.exit_code, expect_exit) << args << "\n" << r.output << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(read_text(json));
}

TEST(DistGpu, EveryDistributionOnTwoRanks) {
  for (const char* dist : {"uniform", "zipf"}) {
    const std::string args = std::string("--algo dist-hp,dist-sample-sort -n 1000003 --delta 4 --sigma 2 --dist ") + dist;
    expect_all_ok(run_ranks(args), args);
  }
  expect_all_ok(run_ranks("--algo dist-sample-sort -n 2^20 --key u64"), "u64 keys");
  expect_all_ok(run_ranks("--algo dist-sample-sort -n 777777 --key f32"), "f32 keys");
  expect_all_ok(run_ranks("--algo dist-hp,dist-sample-sort -n 777777 --key i32 --delta 8 --min-val -3000"), "i32");
}

TEST(DistGpu, TinyAndEqualInputs) {
  for (const char* n : {"1", "3"})
    expect_all_ok(run_ranks(std::string("--algo dist-hp,dist-sample-sort -n ") + n), std::string("n = ") + n);
  // All keys equal: a sample sort without tie-breaking would send every key to one rank.
  const auto doc = run_ranks("--algo dist-hp,dist-sample-sort -n 1000001 --len 1");
  expect_all_ok(doc, "all keys equal");
  for (const auto& row : doc["results"])
    for (const auto& d : row["details"].items())
      if (d.key() == "imbalance") EXPECT_LT(std::stod(d.value().get<std::string>()), 1.01) << row.dump();
}

// A run of distributed rows alone places nothing on one GPU (issue 49): its rows report the
// min and max the ranks all-reduced, the same facts a run that also placed the input measured.
TEST(DistGpu, DistributedRowsAloneReportTheRanksFacts) {
  const std::string input = " -n 1000003 --key i32 --min-val -5000 --max-val 2000000 --len 1000";
  const auto placed = run_ranks("--algo cub-radix,dist-hp" + input);
  const auto ranks_only = run_ranks("--algo dist-hp,dist-sample-sort" + input);
  expect_all_ok(placed, "placed");
  expect_all_ok(ranks_only, "ranks only");
  ASSERT_EQ(placed["results"].size(), 2u);
  const nlohmann::json& measured = placed["results"][0]["realized"];
  // The generator draws 1000 of the range's 2,005,000 values: its ends are not the range's.
  EXPECT_NE(measured["min"], -5000) << measured.dump();
  for (const auto& row : ranks_only["results"]) {
    EXPECT_EQ(row["realized"]["min"], measured["min"]) << row.dump();
    EXPECT_EQ(row["realized"]["max"], measured["max"]) << row.dump();
    EXPECT_EQ(row["realized"]["len"], measured["len"]) << row.dump();
  }
}

// Values travel with their keys: both algorithms with every payload on the inputs above.
TEST(DistGpu, PayloadsTravelWithTheirKeys) {
  for (const char* payload : {"u32", "u64", "index"}) {
    const std::string algos = std::string("--algo dist-hp,dist-sample-sort --payload ") + payload;
    for (const char* dist : {"uniform", "zipf"}) {
      const std::string args = algos + " -n 1000003 --delta 4 --sigma 2 --dist " + dist;
      expect_all_ok(run_ranks(args), args);
    }
    expect_all_ok(run_ranks(algos + " -n 777777 --key i32 --delta 8 --min-val -3000"), algos + ", i32 keys");
    expect_all_ok(run_ranks(algos + " -n 1000001 --len 1"), algos + ", all keys equal");
    // Few distinct values: the slice boundaries fall inside bins.
    expect_all_ok(run_ranks(algos + " -n 1000003 --len 3"), algos + ", three distinct keys");
    for (const char* n : {"1", "3"}) expect_all_ok(run_ranks(algos + " -n " + n), algos + ", n = " + n);
  }
  expect_all_ok(run_ranks("--algo dist-sample-sort --payload u64 -n 2^20 --key f64"), "f64 keys with u64 values");
}

// The algorithm with rank 0 swapping the values of its first and last output elements after
// each run: the keys stay sorted and the value multiset unchanged; only the pairs break.
RankAlgorithm with_first_and_last_values_swapped(const RankAlgorithm& algo) {
  RankAlgorithm swapped = algo;
  swapped.run = [run = algo.run](const SortProblem& p, const RankSlice& s, const RankBuffers& b, const Rank& rank,
                                 const PhaseMarks& marks) {
    const RankResult r = run(p, s, b, rank, marks);
    if (rank.rank() != 0 || r.count < 2) return r;
    const std::size_t vb = payload_bytes(p.shape.payload);
    auto* vals = static_cast<unsigned char*>(b.values[r.buffer]);
    std::vector<unsigned char> first(vb), last(vb);
    SB_CUDA_CHECK(cudaMemcpyAsync(first.data(), vals, vb, cudaMemcpyDeviceToHost, rank.stream()));
    SB_CUDA_CHECK(cudaMemcpyAsync(last.data(), vals + (r.count - 1) * vb, vb, cudaMemcpyDeviceToHost, rank.stream()));
    SB_CUDA_CHECK(cudaStreamSynchronize(rank.stream()));
    SB_CUDA_CHECK(cudaMemcpyAsync(vals, last.data(), vb, cudaMemcpyHostToDevice, rank.stream()));
    SB_CUDA_CHECK(cudaMemcpyAsync(vals + (r.count - 1) * vb, first.data(), vb, cudaMemcpyHostToDevice, rank.stream()));
    SB_CUDA_CHECK(cudaStreamSynchronize(rank.stream()));
    return r;
  };
  return swapped;
}

// One sample of `algo` on GPUs 0 and 1 through the ranks placement, as a stable algorithm's row.
VerifyReport verify_on_two(const RankAlgorithm& algo, const InputSpec& spec) {
  const auto source = make_generated_source(spec);
  SortProblem problem;
  problem.shape = spec.shape();
  DistributedRequest request;
  request.source = source.get();
  request.devices = {0, 1};
  request.settings.warmup = 0;
  request.settings.min_reps = 1;
  request.settings.budget_s = 0;
  request.check_stable = true;
  return run_on_ranks(algo, problem, request).verification;
}

// The ranks' verification must see a value that left its key (distinct keys: the pair
// fingerprints differ) and, among equal keys, values out of input order (all keys equal: only
// the stability check can tell). The unmodified algorithms pass the same inputs.
TEST(DistGpu, AValueApartFromItsKeyFailsVerification) {
  for (const char* name : {"dist-hp", "dist-sample-sort"}) {
    const Algorithm* real = registry().find(name);
    ASSERT_NE(real, nullptr) << name;
    EXPECT_TRUE(real->stable) << name;
    const RankAlgorithm swapped = with_first_and_last_values_swapped(*real->ranks);
    for (Payload payload : {Payload::u32, Payload::u64, Payload::index}) {
      const std::string what = std::string(name) + " with " + std::string(to_string(payload)) + " values";
      const InputSpec spec = make_spec(100003, Distribution::uniform, KeyType::u32, payload, 4.0);
      const VerifyReport good = verify_on_two(*real->ranks, spec);
      EXPECT_TRUE(good.ok) << what << ": " << good.message;
      const VerifyReport bad = verify_on_two(swapped, spec);
      EXPECT_FALSE(bad.ok) << what << ": a swapped value passed";
      EXPECT_NE(bad.message.find("values moved apart from their keys"), std::string::npos)
          << what << ": " << bad.message;

      const InputSpec equal = make_spec(100003, Distribution::uniform, KeyType::u32, payload, std::nullopt, 1);
      const VerifyReport stable = verify_on_two(*real->ranks, equal);
      EXPECT_TRUE(stable.ok) << what << ", all keys equal: " << stable.message;
      const VerifyReport unstable = verify_on_two(swapped, equal);
      EXPECT_FALSE(unstable.ok) << what << ", all keys equal: a swap of equal keys' values passed";
      EXPECT_NE(unstable.message.find("not stable"), std::string::npos) << what << ": " << unstable.message;
    }
  }
}

TEST(DistGpu, SpeedupsAgainstTheSingleGpuReferences) {
  const auto doc = run_ranks("--algo cub-radix,dist-hp -n 2^24 --delta 50 --sigma 50");
  expect_all_ok(doc, "speed-up");
  bool found = false;
  for (const auto& row : doc["results"])
    if (row["algorithm"] == "dist-hp") found = row["details"].contains("speedup_vs_cub-radix");
  EXPECT_TRUE(found) << doc.dump();
}

TEST(DistGpu, RankOutOfMemoryStopsEveryRank) {
  // 2^36 u64 keys: 256 GiB per rank's slice; the single-GPU rows cannot hold it either.
  TempDir dir;
  const CommandResult r =
      run_command(exe() + " run" + gpus_option() + "--algo dist-sample-sort -n 2^36 --key u64 --reps 1 --quiet", true);
  EXPECT_EQ(r.exit_code, 4) << r.output << r.err;
  EXPECT_NE(r.err.find("rank "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("free"), std::string::npos) << r.err;
  EXPECT_EQ(r.output.find("dist-sample-sort"), std::string::npos) << "no partial table: " << r.output;
}

std::string detail(const nlohmann::json& row, const std::string& key) {
  return row["details"].contains(key) ? row["details"][key].get<std::string>() : std::string();
}

// dist-auto (issue 38): each row says what it chose, with the predictions it chose from; the
// choice is the fastest prediction, and the ones that cannot be in doubt are the expected ones.
TEST(DistGpu, DistAutoChoosesByItsPredictions) {
  struct Case {
    const char* args;
    const char* expected;  // "" where either sort may win on some fabric
  };
  const Case cases[] = {
      {"-n 3", "one-gpu"},
      {"-n 2^26 --delta 50 --sigma 50", "dist-hp"},
      {"-n 2^24 --key f64 --dist real", ""},
      {"-n 2^24 --dist zipf --delta 0.5", ""},
      // With a payload both exchange the pairs; dist-hp sorts them on the range's 19 bits (3
      // radix passes to the sample sort's 4), and over the whole domain it cannot be cheaper.
      {"-n 2^24 --delta 50 --sigma 50 --payload u32", "dist-hp"},
      {"-n 2^24 --min-val 0 --max-val 2^32 --payload u32", "dist-sample-sort"},
  };
  for (const Case& c : cases) {
    const auto doc = run_ranks(std::string("--algo cub-radix,dist-auto ") + c.args);
    expect_all_ok(doc, c.args);
    for (const auto& row : doc["results"]) {
      if (row["algorithm"] != "dist-auto") continue;
      const std::string variant = detail(row, "variant");
      if (*c.expected) EXPECT_EQ(variant, c.expected) << c.args << ": " << row.dump();
      EXPECT_FALSE(detail(row, "speedup_vs_best_single").empty()) << row.dump();
      EXPECT_FALSE(detail(row, "fabric_exchange_gbs").empty()) << row.dump();
      // Each prediction scaled by the profile's measure of its way, where one was read.
      double best = 1e300;
      std::string best_name;
      for (const auto& [key, name] : {std::pair<std::string, std::string>{"predicted_hp_ms", "dist-hp"},
                                      {"predicted_sample_sort_ms", "dist-sample-sort"},
                                      {"predicted_one_gpu_ms", "one-gpu"}}) {
        const std::string t = detail(row, key), scale = detail(row, "scale_" + name);
        const double scaled = t.empty() ? 0 : std::stod(t) * (scale.empty() ? 1.0 : std::stod(scale));
        if (!t.empty() && scaled < best) best = scaled, best_name = name;
      }
      EXPECT_EQ(variant, best_name) << c.args << ": " << row.dump();
    }
  }
}

// tune on the ranks (issue 50): it measures dist-auto's ways against their predictions and
// writes one scale a way; dist-auto reads a profile's scales (a dist-hp measured 100 times its
// prediction loses to the sample sort where it would win), records them, and --param variant
// forces a way or is exit 2 naming the ways.
TEST(DistGpu, TuneOnTheRanksScalesDistAuto) {
  TempDir dir;
  const std::string profile = dir.file("profile.json");
  const CommandResult tune = run_command(exe() + " tune" + gpus_option() + "--budget 0 --reps 1 -o " + profile, true);
  ASSERT_EQ(tune.exit_code, 0) << tune.output << tune.err;
  nlohmann::json doc = nlohmann::json::parse(read_text(profile));
  std::set<std::string> ways;
  for (const auto& c : doc["thresholds"]["dist_scale"]) {
    EXPECT_EQ(c["world"], test_ranks()) << c.dump();
    EXPECT_GT(c["scale"].get<double>(), 0) << c.dump();
    ways.insert(std::string(c["way"]) + (c["values"].get<bool>() ? "+values" : ""));
  }
  for (const char* way : {"dist-hp", "dist-sample-sort", "one-gpu", "dist-hp+values", "dist-sample-sort+values"})
    EXPECT_TRUE(ways.count(way)) << way << ": " << doc["thresholds"].dump();

  const char* input = "--algo dist-auto -n 2^26 --delta 50 --sigma 50";
  doc["thresholds"]["dist_scale"] = {{{"world", test_ranks()}, {"values", false}, {"way", "dist-hp"}, {"scale", 100}}};
  const std::string slow_hp = dir.file("slow-hp.json");
  write_text(slow_hp, doc.dump());
  const auto scaled = run_ranks(std::string(input) + " --profile " + slow_hp);
  expect_all_ok(scaled, input);
  ASSERT_EQ(scaled["results"].size(), 1u);
  const auto& row = scaled["results"][0];
  EXPECT_EQ(detail(row, "variant"), "dist-sample-sort") << row.dump();
  EXPECT_EQ(detail(row, "scale_dist-hp"), "100.000") << row.dump();
  EXPECT_EQ(detail(row, "rule"), "profile:" + slow_hp) << row.dump();

  const auto forced = run_ranks(std::string(input) + " --profile none --param variant=one-gpu");
  expect_all_ok(forced, input);
  EXPECT_EQ(detail(forced["results"][0], "variant"), "one-gpu") << forced.dump();
  const CommandResult bad = run_command(
      exe() + " run" + gpus_option() + "--quiet --reps 1 --budget 0 " + input + " --param variant=fastest", true);
  EXPECT_EQ(bad.exit_code, 2) << bad.output << bad.err;
  EXPECT_NE(bad.err.find("one-gpu, dist-hp or dist-sample-sort"), std::string::npos) << bad.err;
}

// NCCL's connections are made before the first timed sample: with no warm-up the first sample
// is not the 200 ms of a lazy connection set-up (it still loads each kernel's module on first
// launch, a few ms, as a single GPU's first sample does).
TEST(DistGpu, FirstSampleIsNotConnectionSetUp) {
  TempDir dir;
  const std::string json = dir.file("out.json");
  const CommandResult r = run_command(exe() + " run" + gpus_option() + "--warmup 0 --reps 5 --budget 0 --max-noise 1 --quiet --json " +
                                          json + " --algo dist-sample-sort,dist-hp -n 2^24 --delta 8",
                                      true);
  ASSERT_EQ(r.exit_code, 0) << r.output << r.err;
  const auto doc = nlohmann::json::parse(read_text(json));
  expect_all_ok(doc, "warm-up 0");
  for (const auto& row : doc["results"]) {
    const double median = row["time_ms"]["median"], max = row["time_ms"]["max"];
    EXPECT_LT(max, 3 * median + 20.0) << row.dump();
  }
}

// dist-hp with values on two ranks splits first by default (issue 50): the peer's piece crosses
// unsorted beside the kept piece's sort. Both exchanges, on inputs whose boundaries fall inside
// a bin (few distinct keys, all equal) or not, with 4- and 8-byte values, verified stable; the
// row names its exchange. More ranks sort first whatever is asked. A bad exchange is exit 2.
// dist-hp with values and a --param value it does not take: exit 2, the message naming it.
void expect_dist_hp_pairs_refuse(const std::string& param, const std::string& message) {
  const std::string args = "--quiet --reps 1 --budget 0 --algo dist-hp -n 1000 --payload u32 --param " + param;
  const CommandResult bad = run_command(exe() + " run" + gpus_option() + args, true);
  EXPECT_EQ(bad.exit_code, 2) << bad.output << bad.err;
  EXPECT_NE(bad.err.find(message), std::string::npos) << bad.err;
}

TEST(DistGpu, DistHpPairsSplitFirstOrSortFirst) {
  for (const std::string exchange : {"partition", "sort"}) {
    for (const std::string input :
         {"-n 3000017 --delta 4 --sigma 2 --payload u32", "-n 2000003 --len 3 --payload u64",
          "-n 1000001 --len 1 --payload index", "-n 2000003 --dist zipf --payload u32",
          "-n 777777 --key i64 --delta 8 --min-val -3000 --payload u64", "-n 3 --payload u32"}) {
      const auto doc = run_ranks("--algo dist-hp " + input + " --param exchange=" + exchange);
      expect_all_ok(doc, input + ", exchange=" + exchange);
      for (const auto& row : doc["results"]) {
        EXPECT_EQ(row["stable"], true) << row.dump();
        EXPECT_EQ(detail(row, "exchange"), test_ranks() == 2 ? exchange : "sort") << row.dump();
      }
    }
  }
  expect_dist_hp_pairs_refuse("exchange=fast", "exchange=fast is not sort or partition");
}

// Split first on the present keys' ranks (issue 50): inputs whose ranks take fewer radix passes
// than the range (signed, 64-bit and unsigned keys; u32, u64 and index values; zipf), as 2-byte
// ranks and, past 16 bits, in the key's type, sorted on the ranks (sort_on=auto) and on the
// range's bits, each verified and stable.
TEST(DistGpu, DistHpPairsOnPresentKeyRanks) {
  for (const std::string sort_on : {"auto", "range"}) {
    for (const std::string input : {"-n 4000037 --key i32 --delta 50 --sigma 50 --min-val -50000 --payload u32",
                                    "-n 4000037 --key i64 --delta 40 --sigma 300 --min-val -2^40 --payload u64",
                                    "-n 4000037 --delta 50 --sigma 50 --payload index",
                                    "-n 4000037 --dist zipf --delta 50 --sigma 50 --payload u32",
                                    // 2^25 bins (four passes), 131,072 keys present: 17-bit ranks
                                    // (three passes), too wide for two bytes.
                                    "-n 2^26 --delta 2 --sigma 256 --payload u32"}) {
      const auto doc = run_ranks("--algo dist-hp " + input + " --param sort_on=" + sort_on);
      expect_all_ok(doc, input + ", sort_on=" + sort_on);
      for (const auto& row : doc["results"]) {
        EXPECT_EQ(row["stable"], true) << row.dump();
        if (test_ranks() == 2)
          EXPECT_EQ(detail(row, "sort_on").rfind(sort_on == "auto" ? "present-key ranks" : "range bits", 0), 0u)
              << row.dump();
      }
    }
  }
  expect_dist_hp_pairs_refuse("sort_on=keys", "sort_on=keys is not auto or range");
}

// dist-hp's 8-byte global counts (what n >= 2^32 needs), forced at a size the test affords.
TEST(DistGpu, DistHpWideCounts) {
  const auto doc = run_ranks("--algo dist-hp -n 3000017 --delta 4 --sigma 2 --param count_bits=64");
  expect_all_ok(doc, "count_bits=64");
  for (const auto& row : doc["results"]) EXPECT_EQ(detail(row, "count_bits"), "64") << row.dump();
}

// Both links of the exchange (issue 51) move the same elements: every exchange the family has
// (sort-first with and without values, partition-first, dist-hp's pairs, dist-auto's gather to
// one GPU) verified over peer copies and over NCCL, each row naming its link; threads of one
// process take copies unless told otherwise.
TEST(DistGpu, PeerCopiesAndNcclMoveTheSameElements) {
  const std::string input = " -n 3000017 --delta 4 --sigma 2";
  for (const std::string link : {"copy", "nccl", "auto"}) {
    const std::string param = link == "auto" ? std::string() : " --param link=" + link;
    const std::string expected = link == "nccl" ? "nccl" : "copy";
    std::vector<nlohmann::json> docs{
        run_ranks("--algo dist-sample-sort,dist-hp --payload index" + input + param),
        run_ranks("--algo dist-sample-sort --key u64 --payload u32 -n 777777" + param),
        run_ranks("--algo dist-sample-sort --param exchange=partition" + input + param),
        // Three keys: dist-auto keeps one GPU and gathers the slices to rank 0.
        run_ranks("--algo dist-auto -n 3 --payload u64" + param)};
    for (const auto& doc : docs) {
      expect_all_ok(doc, "link " + link);
      for (const auto& row : doc["results"]) EXPECT_EQ(detail(row, "link"), expected) << row.dump();
    }
    EXPECT_EQ(detail(docs.back()["results"][0], "variant"), "one-gpu") << docs.back().dump();
  }
}

// dist-hp's keys alone reduce-scatter the histogram on two ranks (issue 51): each rank expands the positions
// of its share of the bins, and those other slices hold cross once. Inputs where they do not
// cross, where a share holds most keys (zipf: at more than two ranks more than a buffer, so the
// ranks all-gather instead), where the range has fewer bins than there are ranks (one key),
// 64-bit keys and 8-byte counts; each against the all-reduce (reduce=all), over both links.
TEST(DistGpu, DistHpReduceScatterPlacesEveryShare) {
  for (const std::string link : {"copy", "nccl"}) {
    for (const std::string input : {"-n 3000017 --delta 4 --sigma 2", "-n 2000003 --dist zipf --delta 2",
                                    "-n 1000003 --len 1", "-n 1000003 --key i64 --delta 3 --min-val -5000",
                                    "-n 1000003 --delta 8 --param count_bits=64", "-n 3",
                                    // the hybrid's shares counted and sent in turn, 4- and 8-byte counts;
                                    // more bins than keys: NCCL's reduce-scatter after counting
                                    "-n 3000017 --delta 3 --sigma 2 --param histogram=hybrid",
                                    "-n 2000003 --delta 5 --param histogram=hybrid --param count_bits=64",
                                    "-n 1000003 --delta 0.5"}) {
      for (const std::string reduce : {"scatter", "all"}) {
        const std::string args = "--algo dist-hp --param link=" + link + " --param reduce=" + reduce + " " + input;
        if (reduce == "scatter" && test_ranks() > 2) {  // verified on two ranks only (dist_hp.cu scatter_reduce)
          const CommandResult r = run_command(exe() + " run" + gpus_option() + "--reps 1 --quiet " + args, true);
          EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
          EXPECT_NE(r.err.find("reduce=scatter is verified on two ranks"), std::string::npos) << r.err;
          continue;
        }
        const auto doc = run_ranks(args);
        expect_all_ok(doc, input + " reduce=" + reduce + " over " + link);
        for (const auto& row : doc["results"]) {
          EXPECT_EQ(detail(row, "reduce"), reduce) << row.dump();
          if (reduce == "scatter") {
            const bool more_bins_than_keys = input.find("--delta 0.5") != std::string::npos;
            EXPECT_EQ(detail(row, "shares"), more_bins_than_keys ? "nccl" : "in-turn") << row.dump();
          }
        }
      }
    }
  }
  const CommandResult bad = run_command(
      exe() + " run" + gpus_option() + "--reps 1 --quiet --algo dist-hp --param reduce=some -n 1000", true);
  EXPECT_EQ(bad.exit_code, 2) << bad.output << bad.err;
  EXPECT_NE(bad.err.find("--param reduce=some is not scatter or all"), std::string::npos) << bad.err;
}

// Sort-first's exchange in chunks on two ranks (dist_exchange.cuh chunked_exchange_and_merge),
// forced at sizes the test affords, over both links: keys alone, values (stable: lower ranks
// first among equal keys in each chunk's merge), few distinct keys (chunks cut at equal keys),
// float keys with -0.0 and +0.0, and fewer keys than chunks. On more ranks it is a usage error.
TEST(DistGpu, ChunkedExchangeOnTwoRanks) {
  if (test_ranks() != 2) {
    const CommandResult r = run_command(exe() + " run" + gpus_option() +
                                            "--reps 1 --quiet --algo dist-sample-sort --param chunks=4 -n 1000",
                                        true);
    EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
    EXPECT_NE(r.err.find("takes two ranks"), std::string::npos) << r.err;
    return;
  }
  for (const std::string link : {"copy", "nccl"}) {
    for (const std::string input : {"-n 3000017", "-n 3000017 --payload index --delta 4 --sigma 2",
                                    "-n 2000003 --key u64 --payload u32 --dist zipf", "-n 1000003 --len 3",
                                    "-n 777777 --key f32 --dist real", "-n 5"}) {
      const auto doc = run_ranks("--algo dist-sample-sort --param chunks=8 --param link=" + link + " " + input);
      expect_all_ok(doc, input + " over " + link);
      for (const auto& row : doc["results"]) EXPECT_EQ(detail(row, "chunks"), "8") << row.dump();
    }
  }
  const CommandResult bad = run_command(
      exe() + " run" + gpus_option() + "--reps 1 --quiet --algo dist-sample-sort --param chunks=9 -n 1000", true);
  EXPECT_EQ(bad.exit_code, 2) << bad.output << bad.err;
  EXPECT_NE(bad.err.find("--param chunks=9 is not a whole number from 1 to 8"), std::string::npos) << bad.err;
}

// Ranks in separate processes cannot copy into one another's memory: asking them to is a
// one-line usage error naming the fix, before any rank waits for another.
TEST(DistGpu, PeerCopiesBetweenProcessesAreAUsageError) {
  TempDir dir;
  const CommandResult r = run_command(exe() + " run --algo dist-sample-sort -n 1000 --rank 0 --world 2 --param link=copy "
                                              "--rendezvous " + dir.path(),
                                      true);
  EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
  EXPECT_NE(r.err.find("link=copy needs the ranks as threads of one process"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("its ranks are separate processes"), std::string::npos) << r.err;
}

// The same ranks as two processes (one per GPU) meeting in a shared directory: both print
// the same verified row.
TEST(DistGpu, TwoProcessesMeetThroughTheRendezvous) {
  TempDir dir;
  const std::string meet = dir.file("meet");
  ASSERT_EQ(run_command("mkdir " + meet).exit_code, 0);
  const std::string common = " run --algo dist-hp,dist-sample-sort -n 1000003 --delta 4 --reps 2 --budget 0 --quiet "
                             "--world 2 --rendezvous " + meet;
  const CommandResult r = run_command(exe() + common + " --rank 1 --device 1 --json " + dir.file("r1.json") + " > " +
                                      dir.file("r1.txt") + " 2>&1 & " + exe() + common + " --rank 0 --device 0 --json " +
                                      dir.file("r0.json") + "; e=$?; wait $! || e=$?; exit $e");
  ASSERT_EQ(r.exit_code, 0) << r.output << read_text(dir.file("r1.txt"));
  const auto r0 = nlohmann::json::parse(read_text(dir.file("r0.json")));
  const auto r1 = nlohmann::json::parse(read_text(dir.file("r1.json")));
  expect_all_ok(r0, "rank 0");
  expect_all_ok(r1, "rank 1");
  // Processes exchange over NCCL (peer copies need one process).
  EXPECT_EQ(detail(r0["results"][1], "link"), "nccl") << r0.dump();
  // The samples are agreed by an all-reduce: both processes report the same times.
  EXPECT_EQ(r0["results"][0]["time_ms"]["median"], r1["results"][0]["time_ms"]["median"]);
}

// A rank that never starts: the other stops at the rendezvous timeout with a one-line error
// naming the missing rank, instead of waiting forever.
TEST(DistGpu, MissingRankTimesOut) {
  TempDir dir;
  const CommandResult r = run_command("SORTBENCH_RENDEZVOUS_TIMEOUT=5 " + exe() +
                                          " run --algo dist-hp -n 1000 --rank 0 --world 2 --rendezvous " + dir.path(),
                                      true);
  EXPECT_EQ(r.exit_code, 2) << r.output << r.err;
  EXPECT_NE(r.err.find("rank 1 is not ready"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sb::test
