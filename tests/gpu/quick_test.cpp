// The quick tier (ctest label gpu-quick, scripts/gpu-check.sh quick; issue 48 item 2): every
// registered single-GPU algorithm on every key type it declares, once, at a small n; every payload
// kind once on every algorithm that carries it; each distributed algorithm on one rank; the
// command line's exit paths that need one GPU.
// (The streamed placement's quick case is OutOfCoreQuick in outofcore_gpu_test.cpp.) A suite
// belongs to this tier by its name ending in Quick: tests/CMakeLists.txt labels by that.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sortbench/algo/registry.hpp"
#include "support/command.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

constexpr std::uint64_t kQuickN = 5003;  // past a block, not a power of two

// The inputs a quick case tries, in order, until the algorithm takes one: dense duplicates over a
// narrow range (every H-P variant's case), then distinct keys (1-H-P and the other distinct-only
// sorts), then a wide range. Signed and float keys straddle zero.
std::vector<InputSpec> quick_inputs(KeyType key, Payload payload) {
  const bool is_signed = key == KeyType::i32 || key == KeyType::f32 || key == KeyType::i64 || key == KeyType::f64;
  const std::optional<wide_t> below_zero =
      is_signed ? std::optional<wide_t>(-static_cast<wide_t>(kQuickN)) : std::nullopt;
  return {make_spec(kQuickN, Distribution::uniform, key, payload, 4.0, std::nullopt, below_zero),
          make_spec(kQuickN, Distribution::distinct, key, payload, std::nullopt, std::nullopt, below_zero),
          make_spec(kQuickN, Distribution::uniform, key, payload, 0.001, std::nullopt, below_zero)};
}

// A streamed (out-of-core) algorithm gets the input in host memory, where it streams from, under
// a GPU memory limit: unlimited, it sizes its chunks from the free memory, which the tests beside
// it on the same GPU take too (seen: out of memory with 8 quick tests on one H200).
Outcome run_quick(const Algorithm& algo, const InputSpec& spec) {
  if (!algo.streamed()) return run_device_once(algo, spec);
  SessionOptions options = generated_options(PlacementKind::streamed);
  options.gpu_memory_limit = std::uint64_t{256} << 20;
  return run_generated_once(options, algo, spec);
}

// Runs algo on the first quick input it takes and checks it against std::stable_sort; fails when
// it takes none (a registered algorithm that no quick input exercises is coverage missing).
void expect_quick_sort(const Algorithm& algo, KeyType key, Payload payload) {
  std::string declined;
  for (const InputSpec& spec : quick_inputs(key, payload)) {
    const Outcome out = run_quick(algo, spec);
    if (out.unsupported) {
      declined += fmt::format(" [{}: {}]", describe(spec), *out.unsupported);
      continue;
    }
    expect_matches_reference(algo, spec, make_reference(spec), out);
    return;
  }
  ADD_FAILURE() << algo.name << " declined every quick input:" << declined;
}

struct AlgorithmKey {
  std::string algorithm;
  KeyType key;
};

std::vector<AlgorithmKey> algorithm_keys() {
  std::vector<AlgorithmKey> cases;
  for (const Algorithm& a : registry().all())
    if (a.backend == Backend::gpu && !a.distributed())
      for (KeyType k : a.key_types) cases.push_back({a.name, k});
  return cases;
}

class EveryAlgorithmQuick : public testing::TestWithParam<AlgorithmKey> {};

TEST_P(EveryAlgorithmQuick, SortsTheKeyType) {
  expect_quick_sort(registry().named(GetParam().algorithm), GetParam().key, Payload::none);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryAlgorithmQuick, testing::ValuesIn(algorithm_keys()),
                         [](const testing::TestParamInfo<AlgorithmKey>& info) {
                           return test_name(info.param.algorithm + "_" + std::string(to_string(info.param.key)));
                         });

// Every payload kind once: each algorithm that declares it carries it (stably where it says so),
// on the first key type it takes.
class EveryPayloadQuick : public testing::TestWithParam<Payload> {};

TEST_P(EveryPayloadQuick, CarriedByEveryAlgorithmThatDeclaresIt) {
  int carriers = 0;
  for (const Algorithm& a : registry().all()) {
    if (a.backend != Backend::gpu || a.distributed() || a.key_types.empty()) continue;
    if (std::find(a.payloads.begin(), a.payloads.end(), GetParam()) == a.payloads.end()) continue;
    ++carriers;
    SCOPED_TRACE(a.name);
    expect_quick_sort(a, a.key_types.front(), GetParam());
  }
  EXPECT_GT(carriers, 0) << "no GPU algorithm carries " << to_string(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryPayloadQuick, testing::ValuesIn(all_payloads()),
                         [](const testing::TestParamInfo<Payload>& info) {
                           return test_name(std::string(to_string(info.param)));
                         });

// The distributed algorithms `sortbench list` prints, each on one rank (one GPU: the quick tier's
// machine), through the executable as a user runs them: verified rows.
std::vector<std::string> distributed_names() {
  std::vector<std::string> names;
  for (const Algorithm& a : registry().all())
    if (a.distributed()) names.push_back(a.name);
  return names;
}

class DistributedQuick : public testing::TestWithParam<std::string> {};

TEST_P(DistributedQuick, OnOneRankVerifies) {
  TempDir dir;
  const CommandResult r = run_command(exe() + " run --algo " + GetParam() +
                                          " -n 2^20 --delta 50 --sigma 50 --reps 2 --quiet --json " + dir.file("r.json"),
                                      /*split_stderr=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = read_text(dir.file("r.json"));
  EXPECT_NE(json.find("\"verification\": \"passed\""), std::string::npos) << json;
}

// A build without NCCL registers no distributed algorithm.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DistributedQuick);
INSTANTIATE_TEST_SUITE_P(Listed, DistributedQuick, testing::ValuesIn(distributed_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return test_name(info.param); });

// The command line's exit paths that need a GPU (docs/usage.md's exit codes): each is one line
// on stderr with its code, and no output file.
std::size_t lines(const std::string& err) { return error_lines(err).size(); }

TEST(CliExitQuick, TheDefaultRunVerifiesAndIsExitZero) {
  const CommandResult r = sortbench("run --algo cub-radix,hp-auto --reps 2 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliExitQuick, AWrongDeviceNumberIsExitTwoNamingTheGpus) {
  const CommandResult r = sortbench("run --algo cub-radix -n 1000 --device 99");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("99"), std::string::npos) << r.err;
}

// --placement gpu: the automatic placement would first try the host (about two minutes at 2^35).
TEST(CliExitQuick, AnInputLargerThanTheGpuIsExitFourWithTheBytes) {
  const CommandResult r = sortbench("run -n 2^35 --delta 64 --algo cub-radix --placement gpu --quiet");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("GiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lower -n"), std::string::npos) << r.err;
}

TEST(CliExitQuick, AnAlgorithmThatCannotTakeTheFileIsExitTwoAndNoOutput) {
  TempDir dir;
  write_text(dir.file("dup.txt"), "3\n1\n3\n2\n");
  const CommandResult r = sortbench("sort --algo hp-1 " + dir.file("dup.txt") + " -o " + dir.file("out.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("cannot sort this input"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.txt")));
}

TEST(CliExitQuick, SortOnTheGpuWritesTheSortedFile) {
  TempDir dir;
  write_text(dir.file("in.txt"), "5\n-3\n9\n0\n-3\n");
  const CommandResult r = sortbench("sort --quiet " + dir.file("in.txt") + " -o " + dir.file("out.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir.file("out.txt")), "-3\n-3\n0\n5\n9\n");
}

}  // namespace
}  // namespace sb::test
