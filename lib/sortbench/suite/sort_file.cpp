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
#include "sortbench/device/device_info.hpp"
#include "sortbench/sink/file_sink.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/sink/rank_file_output.hpp"
#include "sortbench/session/session.hpp"
#include "sortbench/report/report.hpp"
#include "sortbench/core/cuda_check.hpp"
#if SORTBENCH_HAVE_NCCL
#include "sortbench/place/rank_placement.hpp"
#endif

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

// The file, streamed into its placement, and what the report says of it: n, key type, bytes read.
std::shared_ptr<const FileInputSource> open_streamed(const FileInputRequest& request, SortFileReport& rep) {
  auto source = make_file_source(request, {}, FileReading::streamed);
  rep.n = source->spec().n;
  rep.key = source->spec().key;
  rep.bytes_read = source->keys_column().file_bytes +
                   (source->values_column() ? source->values_column()->file_bytes : 0);
  return source;
}

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

#if SORTBENCH_HAVE_NCCL
// A rank's sorted column downloaded in pieces and written as its part of the output.
void write_rank_part(const RankOutput& o, const void* d_column, std::size_t width, RankFileOutput& out) {
  const auto part = out.part(o.rank, o.offset, o.count);
  const std::uint64_t piece = std::max<std::uint64_t>(1, (std::uint64_t{8} << 20) / width);
  std::vector<unsigned char> host(std::min(o.count, piece) * width);
  const auto* d = static_cast<const unsigned char*>(d_column);
  for (std::uint64_t done = 0; done < o.count;) {
    const std::uint64_t m = std::min(piece, o.count - done);
    SB_CUDA_CHECK(cudaMemcpyAsync(host.data(), d + done * width, m * width, cudaMemcpyDeviceToHost, o.stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(o.stream));
    part->append(host.data(), m);
    done += m;
  }
  part->close();
}

std::string distributed_names() {
  std::string names;
  for (const Algorithm& a : registry().all())
    if (a.distributed()) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}
#endif

// The file sorted by ranks (issue 38): each rank reads its shard (InputSource::shard, in the ranks
// placement), the ranks sort and verify together, and each writes its part at its global offset
// into one output file, renamed into place once every rank wrote (in process mode by rank 0).
SortFileReport sort_on_ranks(const SortFileRequest& q, FileInputRequest source_request, SortFileReport rep) {
#if SORTBENCH_HAVE_NCCL
  const Algorithm* algo = registry().find(q.algo == "auto" ? kDefaultDistributedSort : q.algo);
  rep.algorithm = algo->name;
  if (q.algo == "auto") rep.why = fmt::format("on ranks: {}, which chooses the distributed sort", algo->name);
  const auto source = open_streamed(source_request, rep);
  const InputSpec& spec = source->spec();
  const ColumnInfo& keys = source->keys_column();
  const ColumnInfo* values = source->values_column();
  // The key facts (min, max) are measured by the ranks on their shards; the shape decides here.
  const SortProblem probe{spec.shape(), KeyFacts{}, {}, RangeMode::given};
  if (auto why = algo->why_unsupported(probe))
    throw UsageError(fmt::format("{} cannot sort this input on ranks: {}; sort it on one GPU (drop --gpus) or give "
                                 "another --algo",
                                 algo->name, *why));

  const bool processes = q.process_rank >= 0;
  const int world = processes ? q.process_world : static_cast<int>(q.devices.size());
  RankFileOutput keys_out({q.output, keys.format, spec.key}, spec.n, world,
                          processes ? shared_aside_path(q.output, q.rendezvous) : std::string());
  std::optional<RankFileOutput> values_out;
  if (values)
    values_out.emplace(RankFileOutput::Target{q.values_output, values->format, values->key}, spec.n, world,
                       processes ? shared_aside_path(q.values_output, q.rendezvous) : std::string());

  DistributedRequest request;
  request.source = source.get();
  request.devices = q.devices;
  request.settings = single_sample_settings();
  request.process_rank = q.process_rank;
  request.process_world = q.process_world;
  request.rendezvous = q.rendezvous;
  request.output = [&](const RankOutput& o) {
    write_rank_part(o, o.keys, key_bytes(spec.key), keys_out);
    if (values_out) {
      if (!o.values) throw std::logic_error("the ranks placement handed over no values for --values-out");
      write_rank_part(o, o.values, key_bytes(values->key), *values_out);
    }
  };
  const double t0 = steady_now_s();
  const DistributedOutcome out = run_on_ranks(*algo->ranks, probe, request);
  const double wall_ms = (steady_now_s() - t0) * 1e3;
  if (!out.verification.ok)
    throw Error(ExitCode::verification_failed,
                fmt::format("{} produced a wrong result ({}); nothing was written; report it, or give another --algo",
                            algo->name, out.verification.message));
  const double sort_ms = out.samples_ms.empty() ? 0.0 : out.samples_ms.front();
  rep.phases_ms.emplace_back("sort", sort_ms);
  // Each rank reads its shard, verifies and writes its part on its own; the slowest rank's sort is
  // the one phase the ranks time together.
  rep.phases_ms.emplace_back("read-verify-write", std::max(0.0, wall_ms - sort_ms));
  // Past run_on_ranks every rank's part is written: the committing process renames.
  if (!processes || q.process_rank == 0) {
    rep.bytes_written = keys_out.commit();
    if (values_out) rep.bytes_written += values_out->commit();
  } else {
    keys_out.leave_to_committer();
    if (values_out) values_out->leave_to_committer();
  }
  rep.verified_on = "gpu";
  rep.placement = "ranks";
  rep.world = world;
  rep.devices = q.devices;
  rep.process_rank = q.process_rank;
  rep.rank_details = out.details;
  rep.host_peak_bytes = host_peak_bytes();
  return rep;
#else
  (void)q, (void)source_request;
  return rep;
#endif
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
  if (q.on_ranks()) {
    if (!gpu) throw UsageError("ranks sort on GPUs but --backend cpu was given; drop one of them");
#if SORTBENCH_HAVE_NCCL
    const Algorithm* a = registry().find(q.algo == "auto" ? kDefaultDistributedSort : q.algo);
    if (a && !a->distributed())
      throw UsageError(fmt::format("--algo {} sorts on one GPU but ranks were asked for (--gpus, --devices or "
                                   "--rank); give a distributed algorithm ({}) or auto",
                                   a->name, distributed_names()));
#else
    throw UsageError(fmt::format("ranks were asked for but this build has no NCCL (distributed sorts); sort {} on "
                                 "one GPU (drop --gpus)",
                                 q.input.path));
#endif
  }
  if (q.algo != "auto") {
    const Algorithm* a = &registry().named(q.algo);
    if (a->backend != q.backend)
      throw UsageError(fmt::format("{} runs on the {} but --backend {} was given; choose a {} algorithm or auto",
                                   a->name, to_string(a->backend), to_string(q.backend), to_string(q.backend)));
  }
  if (gpu)
    if (auto why = cuda_unavailable_reason())
      throw Error(ExitCode::no_device, *why + "; use --backend cpu to sort with the CPU");

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
  if (q.on_ranks()) return sort_on_ranks(q, source_request, rep);
  if (q.algo != "auto" && registry().find(q.algo)->distributed()) {
    // A distributed algorithm named without ranks: one rank, on the current GPU.
    SortFileRequest one_rank = q;
    int device = 0;
    SB_CUDA_CHECK(cudaGetDevice(&device));
    one_rank.devices = {device};
    return sort_on_ranks(one_rank, source_request, rep);
  }
  const auto source = open_streamed(source_request, rep);
  const InputSpec& spec = source->spec();
  const ColumnInfo& keys = source->keys_column();
  const ColumnInfo* values = source->values_column();
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
  rep.placement = gpu ? "gpu" : "cpu";
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
