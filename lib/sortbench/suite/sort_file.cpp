#include "sortbench/suite/sort_file.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "sortbench/algo/registry.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/core/byte_units.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/measure/device_info.hpp"
#include "sortbench/measure/file_sink.hpp"
#include "sortbench/measure/harness.hpp"
#include "sortbench/measure/session.hpp"
#include "sortbench/report/report.hpp"

namespace sb {

std::string choose_algorithm(Backend backend, KeyType key, bool with_values, bool argsort, double range,
                             std::uint64_t n, std::string& why) {
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

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;
  return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
}

void check_output(const std::string& out, const std::string& in, const char* option) {
  if (out.empty()) throw UsageError(fmt::format("{} is required: give {} FILE", option, option));
  if (same_file(out, in))
    throw UsageError(fmt::format("{} {} is the input file; write the sorted output elsewhere", option, out));
  try {
    check_writable(out);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

// --algo auto's choice, or the named algorithm, for the measured facts; an auto choice that
// declines the input falls back to a sort that takes everything.
const Algorithm* pick_algorithm(const SortFileRequest& q, const InputShape& shape, const KeyFacts& facts,
                                SortFileReport& rep, std::uint64_t streamed_device_bytes = 0) {
  const double range = shape.n ? static_cast<double>(facts.max_ordered - facts.min_ordered) + 1.0 : 1.0;
  const bool with_values = q.values.has_value();
  std::string name = q.algo;
  if (q.algo == "auto")
    name = streamed_device_bytes
               ? choose_streamed_algorithm(shape.key, with_values, q.argsort, range, streamed_device_bytes, shape.n,
                                           rep.why)
               : choose_algorithm(q.backend, shape.key, with_values, q.argsort, range, shape.n, rep.why);
  const Algorithm* a = registry().find(name);
  const SortProblem probe{shape, facts, {}, RangeMode::given};
  if (auto why = a->why_unsupported(probe)) {
    if (q.algo != "auto")
      throw UsageError(fmt::format("--algo {} cannot sort this input: {}; give --algo auto", name, *why));
    a = registry().find(streamed_device_bytes ? "ooc-sort" : q.backend == Backend::gpu ? "cub-radix" : "cpu-stable-sort");
    rep.why += fmt::format(" (its first choice {} declined: {})", name, *why);
  }
  rep.algorithm = a->name;
  return a;
}

}  // namespace

SortFileReport sort_file(const SortFileRequest& q) {
  SortFileReport rep;
  if (q.argsort && q.values)
    throw UsageError("--argsort writes positions, so --values has nothing to ride along with; drop one of them");
  check_output(q.output, q.input.path, "-o");
  if (q.values) {
    check_output(q.values_output, q.values->path, "--values-out");
    check_output(q.values_output, q.input.path, "--values-out");
    if (same_file(q.values_output, q.output)) throw UsageError("--values-out and -o name the same file; give two paths");
  } else if (!q.values_output.empty()) {
    throw UsageError("--values-out needs --values FILE (the column to carry along); give it or drop --values-out");
  }
  const bool gpu = q.backend == Backend::gpu;
  if (gpu)
    if (auto why = cuda_unavailable_reason())
      throw Error(ExitCode::no_device, *why + "; use --backend cpu to sort with the CPU");
  if (q.algo != "auto") {
    const Algorithm* a = registry().find(q.algo);
    if (!a) throw UsageError(fmt::format("--algo {} is not an algorithm; see 'sortbench list' or give --algo auto", q.algo));
    if (a->backend != q.backend)
      throw UsageError(fmt::format("{} runs on the {} but --backend {} was given; choose a {} algorithm or auto",
                                   a->name, to_string(a->backend), to_string(q.backend), to_string(q.backend)));
  }

  // source: the file, streamed into its placement (on the GPU path through a small pinned ring
  // while each chunk's copy to the device runs: read, host-to-device); the key facts are min and
  // max only (analyze).
  FileInputRequest source_request;
  source_request.keys = q.input;
  if (q.values) {
    source_request.values = *q.values;
    source_request.values->role = "--values";
  }
  source_request.positions = q.argsort;
  const auto source = make_file_source(source_request, {}, FileReading::streamed);
  const InputSpec& spec = source->spec();
  rep.n = spec.n;
  rep.key = spec.key;
  const ColumnInfo& keys = source->keys_column();
  const ColumnInfo* values = source->values_column();
  rep.bytes_read = keys.file_bytes + (values ? values->file_bytes : 0);
  // The sink exists before the sort: a file larger than the GPU and than host memory is written
  // as it is made.
  std::optional<FileSink::Target> keys_target, values_target;
  std::optional<Payload> positions;
  if (q.argsort) {
    positions = spec.payload;
    const KeyType position = spec.payload == Payload::index ? KeyType::u32 : KeyType::u64;
    values_target = FileSink::Target{q.output, keys.format, position};
  } else {
    keys_target = FileSink::Target{q.output, keys.format, spec.key};
  }
  if (values) values_target = FileSink::Target{q.values_output, values->format, values->key};
  FileSink sink(spec.n, keys_target, values_target, positions);

  SessionOptions options;
  options.placement = gpu ? PlacementKind::device : PlacementKind::host;
  options.repeated = false;
  options.count_distinct = false;
  options.range = RangeMode::given;
  options.phases = &rep.phases_ms;
  options.gpu_memory_limit = q.gpu_memory_limit;
  std::unique_ptr<Session> session;
  const Algorithm* algo = nullptr;
  try {
    session = std::make_unique<Session>(source, options);
    algo = pick_algorithm(q, spec.shape(), session->facts(), rep);
  } catch (const Error& e) {
    if (!gpu || e.code() != ExitCode::device_memory) throw;
    // Larger than the GPU (or the limit): the file streams through it. First straight from the
    // file to the output file; a sort that needs host copies of the input and the output gets
    // them where host memory holds both.
    rep.phases_ms.clear();
    options.placement = PlacementKind::streamed;
    options.stream_to = &sink;
    session = std::make_unique<Session>(source, options);
    rep.placement = "file";
    algo = pick_algorithm(q, spec.shape(), session->facts(), rep, session->device_allowance());
    if (algo->needs_host_columns) {
      const std::uint64_t needed = streamed_host_bytes(spec.shape()), available = host_available_bytes();
      if (needed > available)
        throw Error(ExitCode::device_memory,
                    fmt::format("{} keeps the input and its output in pinned host memory: {} needed, {} available; "
                                "sort a smaller file or free host memory",
                                algo->name, bytes_text(needed), bytes_text(available)));
      options.stream_to = nullptr;
      session = std::make_unique<Session>(source, options);
      rep.placement = "host";
    }
  }

  // timed: one run of the chosen algorithm; verify: sorted, the same multiset; positions name
  // each input once (stably when the algorithm is stable); a value column stays with its keys.
  const ResultRow row = session->run(*algo, single_sample_settings(), {});
  if (row.status == RowStatus::verify_failed)
    throw Error(ExitCode::verification_failed,
                fmt::format("{} produced a wrong result ({}); nothing was written; report it, or give another --algo",
                            algo->name, row.reason));
  if (row.status == RowStatus::unsupported)  // its workspace does not fit beside the columns
    throw Error(ExitCode::device_memory, fmt::format("{}: {}; use --backend cpu", algo->name, row.reason));
  if (row.status != RowStatus::ok)
    throw Error(gpu ? ExitCode::cuda : ExitCode::internal, fmt::format("{} failed: {}", algo->name, row.reason));
  rep.verified_on = session->verified_on_device() ? "gpu" : "host";

  // write: each column downloaded through the pinned ring while the chunk before it is written
  // (streamed from the file: already written as it was made), under temporary names renamed
  // into place at the end.
  const double t0 = steady_now_s();
  session->drain(sink);
  rep.bytes_written = sink.close();
  sink.commit();
  log_phase(&rep.phases_ms, "write", t0);
  rep.host_peak_bytes = host_peak_bytes();
  return rep;
}

}  // namespace sb
