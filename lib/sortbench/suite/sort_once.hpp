// One sort of one input, as a tool rather than a benchmark (issue 49 item 2; docs/architecture.md,
// "One pipeline"): the algorithm --algo auto chooses from the measured facts, the placement
// decided before anything is placed (one GPU where the input fits, else streamed through it),
// one verified run, and a failed run as the error it is. `sortbench sort` (sort_file.cpp) and the
// Python module's sort() both come here; each then drains the result into its own sink (a file,
// the caller's arrays), or, for the caller's device arrays, finds it already in them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/key_facts.hpp"
#include "sortbench/core/types.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/session/session.hpp"

namespace sb {

// How --algo auto chooses, from the key type, the payload and the measured range and n. With
// the measured extremes (facts) and the GPU's profile, a range CUB would sort as offsets from
// its minimum goes to the whole keys from the profile's measured digit count on
// (radix_whole_from_digits); without them, or without that crossover, the built-in rule.
std::string choose_algorithm(Backend backend, KeyType key, bool with_values, bool argsort, double range,
                             std::uint64_t n, std::string& why, const KeyFacts* facts = nullptr,
                             const ChoiceProfile* profile = nullptr);
// The same for an input that streams through the GPU: ooc-hp (integer keys alone, a histogram of
// at most 2^32 bins that fits in half the GPU memory the sort may use), else ooc-sort.
std::string choose_streamed_algorithm(KeyType key, bool with_values, bool argsort, double range,
                                      std::uint64_t device_bytes, std::uint64_t n, std::string& why);

// The row `auto` (issue 50 item 3): what choose_algorithm picks for the row's input, run as that
// algorithm, with the choice in details.variant; a chooser, so not part of --algo all.
void register_auto(Registry& r);

// How the caller's interface spells what its messages tell the user to give.
struct SortWords {
  std::string algo_named;       // an algorithm named by the option: "--algo {}" or "algo='{}'"
  std::string algo_option;      // "--algo" or "algo"
  std::string auto_choice;      // "--algo auto" or "algo='auto'"
  std::string cpu;              // "--backend cpu" or "backend='cpu'"
  std::string input;            // "file" or "array"
  std::string nothing_written;  // what a failed sort left behind: "nothing was written; " or ""
};
SortWords cli_sort_words();
SortWords python_sort_words();

struct SortOnceRequest {
  std::string algo = "auto";  // a registered algorithm of the backend, or auto
  Backend backend = Backend::gpu;
  bool argsort = false;       // the source's payload is the positions, not values
  // The GPU memory the sort may use (bytes; 0: what is free): an input that needs more streams.
  std::uint64_t gpu_memory_limit = 0;
  bool verify = true;
  // The caller's device buffers, sorted where they lie (no placement to decide).
  std::optional<AdoptedColumns> adopt;
  // A streamed result goes here as it is made, the input read from its source once; null:
  // streamed results stay in host columns.
  OutputSink* stream_to = nullptr;
  // Streamed to stream_to: SessionOptions::host_memory_limit and tmp_dir (issue 52).
  std::uint64_t host_memory_limit = 0;
  std::string tmp_dir = ".";
  PhaseLog* phases = nullptr;
  SortWords words = cli_sort_words();
};

struct SortOnce {
  std::unique_ptr<Session> session;  // drain() hands the result on
  const Algorithm* algorithm = nullptr;
  std::string why;                   // how auto chose
  // "gpu"; "cpu"; "file" (streamed from the source to stream_to, no host copy of either);
  // "host" (streamed from pinned host columns).
  std::string placement;
  std::string verified_on;           // "gpu", "host" or "none"
  ResultRow row;
};

// Throws UsageError for an algorithm that cannot take the input, Error(device_memory) where it
// does not fit, Error(verification_failed) for a wrong result, Error(cuda) for a failed run.
SortOnce sort_once(std::shared_ptr<const InputSource> source, const SortOnceRequest& request);

}  // namespace sb
