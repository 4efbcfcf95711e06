// A GPU's profile for the automatic choices (issue 50; docs/architecture.md, "Choices and
// profiles"): what `sortbench tune` measured on one GPU model, and the crossovers fitted from it,
// which hp-auto and the other choosers read in place of their built-in thresholds. The idea is
// FFTW's wisdom: measured once per machine, kept in $XDG_CACHE_HOME/sortbench/, used by every
// later run on the same model and sortbench version.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sortbench/core/types.hpp"

namespace sb {

// The smallest delta (keys per bin, n / range) at which hp-tiled sorted u32 keys alone faster
// than CUB, measured at one sigma (range / distinct values).
struct TiledCrossover {
  double sigma = 1;
  double min_delta = 0;
};

// CUB's radix sort of the whole keys (cub-radix) against the sort of offsets from the range's
// minimum on fewer 8-bit digits (cub-radix-bits' `offsets` way: two more passes to map the keys
// and back), for one key type: the fewest digits of the range from which the whole keys sorted
// at least as fast. The key's own digit count: the whole keys only where the range needs them
// all (the built-in rule).
struct RadixCrossover {
  KeyType key = KeyType::u32;
  int whole_from_digits = 4;
};

// dist-auto's measure of one way of sorting on `world` GPUs, with or without values (`tune
// --gpus N`): the median over the sizes measured of the way's time over its prediction.
struct DistScale {
  int world = 2;
  bool values = false;
  std::string way;  // dist-auto's name for it: one-gpu, dist-hp, dist-sample-sort
  double scale = 1;
};

// A streamed member's cost with one chunk size (`tune`): a run of B bytes of keys took about
// fill_ms + B / 2^30 * ms_per_gib, the pipeline's fill and drain, then its steady rate; both from
// runs at two sizes.
struct StreamChunkCost {
  std::string algorithm;  // ooc-hp
  std::uint64_t chunk_bytes = 0;
  double fill_ms = 0;
  double ms_per_gib = 0;
};

struct ChoiceProfile {
  std::string path;  // where it was read ("" for one made in memory)
  // The GPU and the build that measured it.
  std::string gpu_name;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::string driver;
  std::string version;  // sortbench's
  std::string commit;
  // hp-auto, keys alone: the tiled-against-CUB crossover by sigma, in ascending sigma; empty:
  // the built-in rule decides.
  std::vector<TiledCrossover> hp_tiled_min_delta;
  // hp-auto with 4-byte values (u32 or index): the same crossover for pairs, measured with u32
  // values; empty: the built-in rule.
  std::vector<TiledCrossover> hp_pairs_min_delta;
  // sort --algo auto, run --algo auto and Python's sort(): whole keys or offsets, by key type;
  // empty: the built-in rule.
  std::vector<RadixCrossover> radix_whole_from_digits;
  // dist-auto: its predictions' scales by world, values and way; empty: the predictions as they are.
  std::vector<DistScale> dist_scales;
  // The streamed members' chunk sizes: each measured size's cost; empty: the built-in size.
  std::vector<StreamChunkCost> stream_chunks;
  // The measured points behind the thresholds, as JSON text (kept as read, written as given).
  std::string measured = "[]";
  double tune_wall_s = 0;  // how long the tune that wrote it took (0: unknown)
};

// The profile in JSON `text` (read from `path`); throws std::runtime_error naming what is wrong
// (not JSON, no gpu name, a crossover that is not a number...).
ChoiceProfile parse_choice_profile(const std::string& text, const std::string& path);
// The profile as JSON text (what `tune` writes; parse_choice_profile reads it back).
std::string choice_profile_text(const ChoiceProfile& p);

// The measured crossover that governs `sigma`: the one measured at the sigma nearest it on a log
// scale (the lower of two as near); nullopt where none was measured.
std::optional<double> tiled_min_delta(const ChoiceProfile& p, double sigma);
// The same for pairs with 4-byte values.
std::optional<double> pairs_min_delta(const ChoiceProfile& p, double sigma);

// The measured radix crossover of a key type; nullopt where none was measured.
std::optional<int> radix_whole_from_digits(const ChoiceProfile& p, KeyType key);

// The measured scale of one of dist-auto's ways; nullopt where none was measured.
std::optional<double> dist_scale(const ChoiceProfile& p, int world, bool values, const std::string& way);

// The measured chunk size of a streamed member that predicts the shortest run of `input_bytes`
// of keys (the smaller of two as short); nullopt where none was measured.
std::optional<std::uint64_t> stream_chunk_bytes(const ChoiceProfile& p, const std::string& algorithm,
                                                std::uint64_t input_bytes);

// Which profile the runs of this process read.
struct ProfilePolicy {
  enum class Kind { automatic, file, none } kind = Kind::automatic;
  std::string path;     // Kind::file: the pinned profile (--profile FILE or SORTBENCH_PROFILE)
  std::string version;  // this sortbench's version: a cached profile of another is ignored

  // Pins what --profile or SORTBENCH_PROFILE says: "none" (the built-in rules) or a file.
  void pin(const std::string& text) {
    kind = text == "none" ? Kind::none : Kind::file;
    path = text == "none" ? std::string() : text;
  }
};

// What a device's runs read: the profile, and the rule a row records ("profile:<file>" or
// "default").
struct ProfileBinding {
  std::shared_ptr<const ChoiceProfile> profile;
  std::string rule = "default";
};

// $XDG_CACHE_HOME/sortbench (else $HOME/.cache/sortbench): where tune keeps profiles.
std::string profile_cache_dir();
// The cached profile's file for a GPU model: profile_cache_dir()/<model, lowercased, non-
// alphanumerics as '-'>.json.
std::string cached_profile_path(const std::string& gpu_name);

// Reads a pinned profile: UsageError (exit 2) naming the file and the fix when it is missing or
// corrupt, as every bad input file is.
std::shared_ptr<const ChoiceProfile> load_pinned_profile(const std::string& path);

// The binding for a GPU model under `policy`. A cached profile that is corrupt, or that another
// model or sortbench version measured, is ignored: `why_ignored` says so in one line (the caller
// prints it once). Throws UsageError for a pinned profile that cannot be read.
ProfileBinding resolve_profile(const ProfilePolicy& policy, const std::string& gpu_name, std::string* why_ignored);

// The process's policy (the CLI and the Python module set it once, before any device is used);
// automatic until set, with SORTBENCH_PROFILE pinning a file and "none" the defaults.
void set_profile_policy(ProfilePolicy policy);
ProfilePolicy profile_policy();
// The binding of a GPU model under the process's policy, resolved once per model (one line on
// stderr the first time a cached profile is ignored).
ProfileBinding profile_for_gpu(const std::string& gpu_name);

}  // namespace sb
