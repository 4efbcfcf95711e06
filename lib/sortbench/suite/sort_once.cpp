// One sort of one input (sort_once.hpp): the choice, the plan, the run and its outcome, shared
// by `sortbench sort` and the Python module.
#include "sortbench/suite/sort_once.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sortbench/algo/range_radix_sort.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/timing/harness.hpp"

namespace sb {

std::string choose_algorithm(Backend backend, KeyType key, bool with_values, bool argsort, double range,
                             std::uint64_t n, std::string& why, const KeyFacts* facts, const ChoiceProfile* profile) {
  const bool small_int = key == KeyType::u32 || key == KeyType::i32;
  const bool dense = range <= 4.0 * static_cast<double>(n) && range <= 4294967296.0;
  if (backend == Backend::cpu) {
    if (small_int && dense && !with_values && !argsort) {
      why = fmt::format("32-bit integer keys whose measured range ({:.0f}) is at most 4 n: the CPU histogram (H-P) "
                        "sort",
                        range);
      return "cpu-hp";
    }
    if (with_values || argsort) {
      why = "a value column or positions ride along: the stable CPU sort keeps equal keys in input order";
      return "cpu-stable-sort";
    }
    why = "keys only: the parallel CPU sort";
    return "cpu-parallel-sort";
  }
  if (key == KeyType::u32x4) {
    why = "rows of four words: CUB's radix sort over all 128 bits";
    return "cub-radix";
  }
  if (small_int && dense && !with_values && !argsort) {
    why = fmt::format("32-bit integer keys whose measured range ({:.0f}) is at most 4 n: a histogram (H-P) sort "
                      "touches each key twice",
                      range);
    return "hp-auto";
  }
  // The range as ordered bounds [0, range - 1]: the same rule cub-radix-bits sorts by.
  const double last = std::max(range, 1.0) - 1.0;
  const std::uint64_t span = last >= 18446744073709551615.0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(last);
  if (range_radix_plan(key, 0, span).way == RangeRadixWay::whole_keys) {
    why = "the measured range needs every 8-bit digit of the key: CUB's radix sort of the whole keys (mapping them to "
          "offsets would cost two passes and save none; stable: carries values and positions)";
    return "cub-radix";
  }
  if (facts && profile && n) {
    const RangeRadixPlan plan = range_radix_plan(key, facts->min_ordered, facts->max_ordered);
    const std::optional<int> from = radix_whole_from_digits(*profile, key);
    const int digits = (plan.end_bit + 7) / 8;
    if (plan.way == RangeRadixWay::offsets && from && digits >= *from) {
      why = fmt::format("the measured range needs {} of the key's {} 8-bit digits, and on this GPU CUB sorted such "
                        "ranges' whole keys at least as fast as their offsets from {} digits on (profile {}; stable: "
                        "carries values and positions)",
                        digits, key_bytes(key), *from, profile->path.empty() ? std::string("in memory") : profile->path);
      return "cub-radix";
    }
  }
  why = "CUB's radix sort on only the bits the measured range needs (stable: carries values and positions)";
  return "cub-radix-bits";
}

std::string choose_streamed_algorithm(KeyType key, bool with_values, bool argsort, double range,
                                      std::uint64_t device_bytes, std::uint64_t n, std::string& why) {
  const bool integer = key == KeyType::u32 || key == KeyType::i32 || key == KeyType::u64 || key == KeyType::i64;
  const double count_bytes = n >> 32 ? 8.0 : 4.0;
  if (integer && !with_values && !argsort && range <= 4294967296.0 && range * count_bytes <= device_bytes / 2.0) {
    why = fmt::format("larger than the GPU: integer keys whose histogram ({:.0f} bins) fits on it, so each key "
                      "crosses the link once each way (streamed H-P)",
                      range);
    return "ooc-hp";
  }
  why = "larger than the GPU: sorted runs cut into buckets by selection (stable; every element crosses the link "
        "twice each way)";
  return "ooc-sort";
}

namespace {

// The measured range the choices read: ordered max - min + 1 (1 for no keys).
double measured_range(std::uint64_t n, const KeyFacts& facts) {
  return n ? static_cast<double>(facts.max_ordered - facts.min_ordered) + 1.0 : 1.0;
}

// What auto runs for a row's input: the GPU choice of `sort --algo auto` for the same facts.
const Algorithm& auto_choice(const SortProblem& p, std::string* why = nullptr) {
  std::string because;
  const std::string name =
      choose_algorithm(Backend::gpu, p.shape.key, p.has_payload(), false, measured_range(p.n(), p.facts), p.n(),
                       because, &p.facts, p.device && p.device->profile ? p.device->profile.get() : nullptr);
  if (why) *why = because;
  return registry().named(name);
}

}  // namespace

void register_auto(Registry& r) {
  Algorithm a;
  a.name = "auto";
  a.family = "auto";
  a.role = AlgorithmRole::chooser;
  a.pick_when = "what `sort --algo auto` and Python's sort() run for this input (details.variant names it)";
  a.source = "sortbench's own rule (suite/sort_once.cpp, choose_algorithm)";
  declare_types<AllKeys, AllValues>(a);
  // With a payload it always picks a stable CUB sort; keys alone have no order to keep.
  a.stable = true;
  a.reads_key_facts = true;
  a.unsupported = [](const SortProblem& p) { return auto_choice(p).why_unsupported(p); };
  a.workspace_bytes = [](const SortProblem& p) {
    const Algorithm& c = auto_choice(p);
    return c.workspace_bytes ? c.workspace_bytes(p) : std::size_t{0};
  };
  a.prepare = [](const SortProblem& p, const DeviceContext& d) { auto_choice(p).prepare_on(p, d); };
  a.release = [](const SortProblem& p, const DeviceContext& d) { auto_choice(p).release_on(p, d); };
  a.run_device = [](const SortProblem& p, const DeviceBuffers& b) { return auto_choice(p).run_device(p, b); };
  a.details = [](const SortProblem& p) {
    std::string why;
    const Algorithm& c = auto_choice(p, &why);
    Details d{{"variant", c.name}, {"why", why}};
    if (c.details)
      for (auto& kv : c.details(p)) d.emplace_back(kv.first == "variant" ? c.name + "_variant" : kv.first, kv.second);
    return d;
  };
  a.observed = [](const SortProblem& p, const DeviceBuffers& b) {
    const Algorithm& c = auto_choice(p);
    return c.observed ? c.observed(p, b) : Details{};
  };
  r.add(std::move(a));
}

SortWords cli_sort_words() { return {"--algo {}", "--algo", "--algo auto", "--backend cpu", "file", "nothing was written; "}; }
SortWords python_sort_words() { return {"algo='{}'", "algo", "algo='auto'", "backend='cpu'", "array", ""}; }

namespace {

// The GPU sort that takes every input in core, with the least workspace: what auto falls back to.
constexpr const char* kFallbackSort = "cub-radix";

// auto's choice, or the named algorithm, for the measured facts; an auto choice that declines
// the input falls back to a sort that takes everything. streamed_device_bytes: the GPU memory a
// streamed sort may use (0: not streamed).
const Algorithm* pick_algorithm(const SortOnceRequest& q, const InputShape& shape, const KeyFacts& facts,
                                const DeviceContext* device, std::string& why, std::uint64_t streamed_device_bytes) {
  const double range = measured_range(shape.n, facts);
  const bool with_values = shape.payload != Payload::none && !q.argsort;
  std::string name = q.algo;
  if (q.algo == "auto" && streamed_device_bytes) {
    name = choose_streamed_algorithm(shape.key, with_values, q.argsort, range, streamed_device_bytes, shape.n, why);
  } else if (q.algo == "auto") {
    // The profile of the GPU the input was placed on, where one is bound.
    const ChoiceProfile* profile = device && device->profile ? device->profile.get() : nullptr;
    name = choose_algorithm(q.backend, shape.key, with_values, q.argsort, range, shape.n, why, &facts, profile);
  }
  const Algorithm* a = &registry().named(name);
  const SortProblem probe{shape, facts, {}, RangeMode::given};
  if (auto declined = a->why_unsupported(probe)) {
    if (q.algo != "auto")
      throw UsageError(fmt::format("{} cannot sort this input: {}; give {}",
                                   fmt::format(fmt::runtime(q.words.algo_named), name), *declined, q.words.auto_choice));
    a = &registry().named(streamed_device_bytes          ? "ooc-sort"
                          : q.backend == Backend::gpu ? kFallbackSort
                                                      : "cpu-stable-sort");
    why += fmt::format(" (its first choice {} declined: {})", name, *declined);
  }
  return a;
}

// A failed run as the error it is.
void require_ok(const SortOnceRequest& q, const Algorithm& a, const ResultRow& row) {
  if (row.status == RowStatus::verify_failed)
    throw Error(ExitCode::verification_failed,
                fmt::format("{} produced a wrong result ({}); {}report it, or give another {}", a.name, row.reason,
                            q.words.nothing_written, q.words.algo_option));
  if (row.status == RowStatus::unsupported)  // its workspace does not fit beside the columns
    throw Error(ExitCode::device_memory,
                fmt::format("{}: {}; {}", a.name, row.reason,
                            q.adopt ? fmt::format("free GPU memory or sort a smaller {}", q.words.input)
                                    : fmt::format("use {}", q.words.cpu)));
  if (row.status != RowStatus::ok)
    throw Error(q.backend == Backend::gpu ? ExitCode::cuda : ExitCode::internal,
                fmt::format("{} failed: {}", a.name, row.reason));
}

}  // namespace

SortOnce sort_once(std::shared_ptr<const InputSource> source, const SortOnceRequest& q) {
  SortOnce r;
  const bool gpu = q.backend == Backend::gpu;
  const InputShape shape = source->spec().shape();
  SessionOptions options;
  // One GPU where the input fits there, else streamed through it: decided by the session before
  // it places anything (place/placement_plan.hpp). The caller's device buffers stay where they are.
  options.placement = !gpu ? PlacementKind::host : q.adopt ? PlacementKind::device : PlacementKind::automatic;
  options.repeated = false;
  options.count_distinct = false;
  options.range = RangeMode::given;
  options.phases = q.phases;
  options.gpu_memory_limit = q.gpu_memory_limit;
  options.verify = q.verify;
  options.adopt = q.adopt;
  options.stream_to = q.stream_to;
  options.host_memory_limit = q.host_memory_limit;
  options.tmp_dir = q.tmp_dir;
  if (q.stream_to && (q.algo == "auto" || q.algo == "ooc-sort")) {
    // Streamed to a file, the input is read once unless the sort needs its range first: auto's
    // choice at the least range the file's first keys allow is already ooc-sort, which learns
    // the facts in its first pass, so it is at any larger range too (issue 52).
    options.facts_first = [named = q.algo != "auto", argsort = q.argsort, shape](double least_range,
                                                                                std::uint64_t allowance) {
      if (named) return false;  // ooc-sort
      std::string why;
      return choose_streamed_algorithm(shape.key, shape.payload != Payload::none && !argsort, argsort, least_range,
                                       allowance, shape.n, why) != "ooc-sort";
    };
  }
  // On one GPU the input fits only with room for a sort beside it: the workspace of the sort
  // that takes every input (the fallback below).
  const SortProblem any_keys{shape, KeyFacts{}, {}, RangeMode::given};
  if (gpu && !q.adopt) options.fit_workspace_bytes = registry().named(kFallbackSort).workspace_bytes(any_keys);
  r.session = std::make_unique<Session>(source, options);
  if (!r.session->streamed()) {
    r.placement = gpu ? "gpu" : "cpu";
    r.algorithm = pick_algorithm(q, shape, r.session->facts(), r.session->device_context(), r.why, 0);
    if (gpu && q.algo == "auto") {
      // auto's choice needs more workspace than is left beside the input: the fallback fits.
      const SortProblem probe{shape, r.session->facts(), {}, RangeMode::given};
      const std::uint64_t room = r.session->device_allowance();
      const std::uint64_t needs = r.algorithm->workspace_bytes ? r.algorithm->workspace_bytes(probe) : 0;
      if (needs > room && r.algorithm->name != kFallbackSort) {
        r.why += fmt::format(" (its first choice {} needs a workspace of {} but {} is left beside the input)",
                             r.algorithm->name, bytes_text(needs), bytes_text(room));
        r.algorithm = &registry().named(kFallbackSort);
      }
    }
  } else {
    r.placement = q.stream_to ? "file" : "host";
    r.algorithm =
        pick_algorithm(q, shape, r.session->facts(), r.session->device_context(), r.why, r.session->device_allowance());
  }
  if (r.session->streamed() && r.algorithm->min_device_bytes) {
    // A limit below the chosen sort's smallest chunks is the caller's to raise (exit 2).
    const SortProblem probe{shape, r.session->facts(), {}, RangeMode::given};
    const std::uint64_t least = r.algorithm->min_device_bytes(probe);
    if (least > r.session->device_allowance())
      throw UsageError(fmt::format("{} needs {} of GPU memory for its smallest chunks but may use {}; raise the GPU "
                                   "memory limit to at least {}",
                                   r.algorithm->name, bytes_text(least), bytes_text(r.session->device_allowance()),
                                   bytes_text(least)));
  }
  // One run; verify: sorted, the same multiset; positions name each input once (stably when the
  // algorithm is stable); a value column stays with its keys.
  r.row = r.session->run(*r.algorithm, single_sample_settings(), {});
  require_ok(q, *r.algorithm, r.row);
  r.verified_on = !q.verify ? "none" : r.session->verified_on_device() ? "gpu" : "host";
  return r;
}

}  // namespace sb
