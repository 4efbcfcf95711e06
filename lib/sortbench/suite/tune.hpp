// sortbench tune (issue 50 item 1; docs/architecture.md, "Choices and profiles"): measures on the
// GPU at hand the crossovers the automatic choices depend on and fits a profile
// (core/choice_profile.hpp) from them. Today it measures hp-auto's boundary between hp-tiled and
// CUB on the range's bits (cub-radix-bits, where hp-auto hands an input over), for u32 keys
// alone and for u32 keys with u32 values, each over a ladder of delta at several sigma, and
// `auto`'s boundary between CUB on the whole
// keys (cub-radix) and on offsets from the minimum (cub-radix-bits), for integer keys of each
// width and sign over ranges of 1 to all but one 8-bit digit;
// the streamed H-P (ooc-hp) at each of several chunk sizes, at two input sizes, for each
// size's fill and rate, from which ooc-hp takes the chunk that predicts its input's shortest
// run; with several GPUs (`--gpus N`),
// each of dist-auto's ways (dist-hp, dist-sample-sort, and one GPU where it may gather) against
// its cost model's prediction by n, keys alone and with u32 values, fitting one scale a way;
// `--check` re-measures the points beside each crossover (and the distributed points) and says
// whether the profile still predicts the winner.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sortbench/core/choice_profile.hpp"
#include "sortbench/timing/measure.hpp"

namespace sb {

// One measured point: both sorts' medians on one generated input (every row verified).
struct TunePoint {
  Payload payload = Payload::none;  // u32: the pairs ladder
  double sigma = 1;
  double delta = 1;
  double tiled_ms = 0;  // 0: hp-tiled did not run there (unsupported), so CUB is the winner
  double cub_ms = 0;
  bool tiled_wins() const { return tiled_ms > 0 && tiled_ms < cub_ms; }
};

// A crossover past every measured delta: hp-tiled never won at that sigma.
constexpr double kNeverTiled = 1e30;

// The crossover of one sigma's points: the smallest measured delta from which hp-tiled beat CUB
// at every larger delta measured; kNeverTiled where it did not win at the largest.
double fit_tiled_crossover(std::vector<TunePoint> points);

// One measured point of the radix crossover: both CUB sorts of keys of one type whose range needs
// `digits` 8-bit digits, placed so that cub-radix-bits sorts offsets from the minimum.
struct RadixPoint {
  KeyType key = KeyType::u32;
  int digits = 1;
  double whole_ms = 0;  // cub-radix
  double bits_ms = 0;   // cub-radix-bits
  bool whole_wins() const { return whole_ms <= bits_ms; }
};

// The crossover of one key type's points: the fewest measured digits from which the whole keys
// sorted at least as fast at every larger digit count measured; key_digits where they did not
// at the largest (the built-in rule).
int fit_radix_crossover(std::vector<RadixPoint> points, int key_digits);

// One distributed point: one of dist-auto's ways on `world` GPUs at one n, measured and as its
// cost model predicted it (dist-auto's details.predicted_*_ms), every row verified.
struct DistPoint {
  int world = 2;
  Payload payload = Payload::none;
  std::uint64_t n = 0;
  std::string way;  // one-gpu, dist-hp, dist-sample-sort
  double measured_ms = 0;
  double predicted_ms = 0;
};

// One scale a (world, values, way): the median of measured / predicted over its points.
std::vector<DistScale> fit_dist_scales(const std::vector<DistPoint>& points);

// One measured point of the streamed H-P's chunk size: ooc-hp with chunks of at most
// chunk_bytes on u32 keys at two sizes, delta = 64 (every row verified).
struct StreamPoint {
  std::uint64_t chunk_bytes = 0;
  std::uint64_t small_bytes = 0, large_bytes = 0;  // the inputs' keys
  double small_ms = 0, large_ms = 0;
};

// A chunk size's fill and steady rate from its two runs: the rate the slope between them, the
// fill what the smaller run took beyond its bytes at that rate (not below 0).
StreamChunkCost fit_stream_chunk(const StreamPoint& p, const std::string& algorithm);

struct TuneRequest {
  std::uint64_t n = std::uint64_t{1} << 27;
  std::vector<double> sigmas{1, 5, 60, 900};
  std::vector<double> deltas{0.25, 0.5, 0.75, 1, 1.5, 2, 3, 6, 24};
  // The pairs ladder (u32 values): n and deltas where hp-tiled's pair path takes the range
  // (2^16..2^22 bins at n = 2^26).
  std::uint64_t pair_n = std::uint64_t{1} << 26;
  std::vector<double> pair_sigmas{1, 4, 16, 64, 1024};
  std::vector<double> pair_deltas{16, 32, 64, 128, 512};
  std::vector<KeyType> radix_keys{KeyType::u32, KeyType::i32, KeyType::u64, KeyType::i64};
  std::uint64_t radix_bytes = std::uint64_t{1} << 29;  // keys of each radix point: 2^27 of 4 bytes
  // The streamed H-P's chunk sizes (issue 50: the streamed paths' chunk sizes), each at two
  // sizes of u32 keys whose difference gives its rate and whose smaller its fill and drain.
  std::vector<std::uint64_t> stream_chunk_mib{16, 32, 64, 128, 256};
  std::uint64_t stream_small_n = std::uint64_t{1} << 27;
  std::uint64_t stream_large_n = std::uint64_t{1} << 29;
  // --gpus N: the distributed ways on these GPUs (none: not measured), over u32 keys with delta =
  // sigma = 50 (an input every way takes) at these sizes, keys alone and with u32 values.
  std::vector<int> devices;
  std::vector<std::uint64_t> dist_ns{std::uint64_t{1} << 22, std::uint64_t{1} << 25, std::uint64_t{1} << 28};
  MeasureSettings settings;
};

struct TuneOutcome {
  ChoiceProfile profile;  // the GPU and build fields are the caller's to fill
  std::vector<TunePoint> points;  // keys alone, then the pairs ladder
  std::vector<RadixPoint> radix_points;
  std::vector<DistPoint> dist_points;
  std::vector<StreamPoint> stream_points;
};

// Measures every (sigma, delta) of the request on the current GPU and fits one crossover a
// sigma, the same for the pairs ladder, then every radix point and one crossover a key type,
// then the streamed H-P at each chunk size and its costs, then the distributed ways. Each
// *progress(point) is called after its point.
TuneOutcome tune_crossovers(const TuneRequest& request, const std::function<void(const TunePoint&)>& progress,
                            const std::function<void(const RadixPoint&)>& radix_progress = nullptr,
                            const std::function<void(const DistPoint&)>& dist_progress = nullptr,
                            const std::function<void(const StreamPoint&)>& stream_progress = nullptr);

// --check for the distributed points: whether the way the scaled predictions pick measured
// fastest, or within `tie` of the fastest.
struct DistCheck {
  int world = 2;
  Payload payload = Payload::none;
  std::uint64_t n = 0;
  std::string predicted, fastest;
  bool agrees = false;
};
DistCheck judge_dist_points(const std::vector<DistPoint>& points, const ChoiceProfile& profile, double tie);
// Every distributed input of the request re-measured on its devices (none with fewer than two)
// and judged against the profile; progress(point) after each way.
std::vector<DistCheck> check_dist_points(const ChoiceProfile& profile, const TuneRequest& request, double tie,
                                         const std::function<void(const DistPoint&)>& progress);

// --check: the measured points beside each finite crossover of `profile`, keys alone and pairs
// (the largest ladder delta below it and the smallest at or above it), and whether the profile
// predicted each winner.
struct TuneCheckPoint {
  TunePoint point;
  bool predicted_tiled = false;
  // The profile's winner won, or the two were within `tie` of each other (a tie predicts nothing).
  bool agrees = false;
};
std::vector<TuneCheckPoint> check_crossovers(const ChoiceProfile& profile, const TuneRequest& request, double tie,
                                             const std::function<void(const TunePoint&)>& progress);
// The check's verdict for one point (used by check_crossovers; CPU-tested).
TuneCheckPoint judge_point(const TunePoint& p, double min_delta, double tie);

// The same for the radix crossovers: the digit counts beside each one measured crossover below
// the key's own digit count.
struct RadixCheckPoint {
  RadixPoint point;
  bool predicted_whole = false;
  bool agrees = false;
};
std::vector<RadixCheckPoint> check_radix_crossovers(const ChoiceProfile& profile, const TuneRequest& request,
                                                    double tie,
                                                    const std::function<void(const RadixPoint&)>& progress);
RadixCheckPoint judge_radix_point(const RadixPoint& p, int whole_from_digits, double tie);

}  // namespace sb
