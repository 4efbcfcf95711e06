// Test helpers: run one algorithm once on a generated input and hand back its output, and
// the std::sort reference for the same input.
#pragma once

#include <cctype>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/input/input_params.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/session/session.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb::test {

struct Outcome {
  std::optional<std::string> unsupported;  // set: the algorithm declined the input (nothing ran)
  std::vector<unsigned char> keys;         // n * key_bytes, sorted output
  std::vector<unsigned char> vals;         // n * payload_bytes, payload output (empty without payload)
  VerifyReport verify;                     // the harness's verifier on this output
};

// A spec from a few fields, through the same derivation as the command line.
InputSpec make_spec(std::uint64_t n, Distribution dist = Distribution::uniform, KeyType key = KeyType::u32,
                    Payload payload = Payload::none, std::optional<double> delta = std::nullopt,
                    std::optional<std::uint64_t> len = std::nullopt, std::optional<wide_t> min_val = std::nullopt,
                    std::uint64_t seed = 7);

// Keys over a type's whole value domain (f32/f64: the integers they hold exactly), so every
// bit of the key's word varies.
InputSpec full_domain_spec(std::uint64_t n, KeyType key, Payload payload = Payload::none);

// Every distribution x key type it applies to, with payloads none and index, and the u32
// and u64 value columns on the uniform, equal and real distributions, for each size; signed
// keys straddle zero (minVal = -n/2).
std::vector<InputSpec> input_matrix(const std::vector<std::uint64_t>& sizes);

// Host input and the reference output (std::stable_sort of (key, position) records by key).
struct Reference {
  std::vector<unsigned char> input_keys;
  std::vector<index_t> input_vals;         // input positions 0..n-1
  std::vector<unsigned char> input_values; // the spec's payload column (empty without one)
  std::vector<unsigned char> sorted_keys;
  std::vector<index_t> stable_vals;        // input positions in stable order
  std::vector<unsigned char> stable_values;  // the payload column in stable order
};
Reference make_reference(const InputSpec& spec);

// One sample of an algorithm in a session (the one pipeline: session/session.hpp), its sorted
// columns drained into keys and vals; a row in error throws.
ResultRow run_once(Session& session, const Algorithm& algo, const Params& params, std::vector<unsigned char>& keys,
                   std::vector<unsigned char>& vals);
// One sample of an algorithm in a session, as an outcome: its sorted columns and its row's verdict.
Outcome run_in(Session& session, const Algorithm& algo, const Params& params = {});
// The options of a test's session on a generated input: the placement, min/max handed over.
SessionOptions generated_options(PlacementKind placement);
// An algorithm once on a generated input in a session of these options, verified there.
Outcome run_generated_once(const SessionOptions& options, const Algorithm& algo, const InputSpec& spec,
                           const Params& params = {});
// An algorithm once on a generated input in a session of the placement, verified there.
Outcome run_generated_once(PlacementKind placement, const Algorithm& algo, const InputSpec& spec,
                           const Params& params = {});

// CPU backend algorithm, once, verified by verify_host.
Outcome run_host_once(const Algorithm& algo, const InputSpec& spec, const Params& params = {});
// GPU backend algorithm, once, on a device-generated input, verified by verify_device.
// Returns a gtest-skippable outcome when the algorithm declines the input.
Outcome run_device_once(const Algorithm& algo, const InputSpec& spec, const Params& params = {});
// One input generated on the device once and shared by every algorithm a test runs on it: a
// session's set-up (the input, its facts, the device's state) costs more than a small sort, so a
// test of many algorithms on one input pays it once (issue 48 item 4).
// SORTBENCH_TEST_TRACE=1: each algorithm run, input placement and the CUDA context's start print
// their wall time ("[trace]" lines), to find where a slow test spends it.
bool tracing();
class TraceTimer {
 public:
  void say(std::string_view what) const;

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

class DeviceInput {
 public:
  explicit DeviceInput(const InputSpec& spec);
  ~DeviceInput();
  DeviceInput(const DeviceInput&) = delete;
  DeviceInput& operator=(const DeviceInput&) = delete;
  Outcome run(const Algorithm& algo, const Params& params = {});

 private:
  std::unique_ptr<Session> session_;
};
// GPU backend algorithm, once, on keys made on the host (problem.shape.n keys of
// problem.shape.key, and their problem.shape.payload values when vals is set), sorted in place: for input
// shapes the generator cannot make. The caller fills problem.facts and checks support.
void sort_host_keys_on_device(const Algorithm& algo, const SortProblem& problem, void* keys,
                              void* vals = nullptr);

// Expects outcome.keys to equal reference.sorted_keys (float zeros of either sign count as
// equal: '<' does not order them), a passed verification, and with a payload for a stable
// algorithm the exact stable order. Returns false (with gtest failures).
bool expect_matches_reference(const Algorithm& algo, const InputSpec& spec, const Reference& ref,
                              const Outcome& outcome);

std::string describe(const InputSpec& spec);

// Text as a gtest name (parameterized cases): every character but letters and digits as '_'.
inline std::string test_name(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
}

}  // namespace sb::test
