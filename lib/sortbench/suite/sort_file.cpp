#include "sortbench/suite/sort_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "sortbench/algo/registry.hpp"
#include "sortbench/algo/run_store.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/sink/file_sink.hpp"
#include "sortbench/timing/harness.hpp"
#include "sortbench/sink/rank_file_output.hpp"
#include "sortbench/report/report.hpp"
#include "sortbench/core/cuda_check.hpp"
#if SORTBENCH_HAVE_NCCL
#include "sortbench/place/rank_placement.hpp"
#endif

namespace sb {

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

// The disk's floor (issue 52 item 2) for files large enough that it says something: smaller ones
// move at the page cache's pace, and the probes would cost more than their sort.
constexpr std::uint64_t kDiskProbeMinBytes = std::uint64_t{1} << 30;
constexpr std::uint64_t kDiskProbeBytes = std::uint64_t{128} << 20;

std::string folder_of(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

bool same_disk(const std::string& a, const std::string& b) {
  struct stat at {}, bt {};
  return ::stat(a.c_str(), &at) == 0 && ::stat(b.c_str(), &bt) == 0 && at.st_dev == bt.st_dev;
}

// The rates where the sort's bytes go, probed before the sort (whose writes would disturb them).
void probe_disks(const SortFileRequest& q, const std::string& tmp, SortFileReport& rep) {
  if (rep.bytes_read < kDiskProbeMinBytes) return;
  const double t0 = steady_now_s();
  rep.input_disk.read_gbs = probe_file_read_gbs(q.input.path, kDiskProbeBytes);
  const std::string out = folder_of(q.output);
  rep.output_disk = probe_folder_rates(out, kDiskProbeBytes);
  rep.tmp_disk = same_disk(out, tmp) ? rep.output_disk : probe_folder_rates(tmp, kDiskProbeBytes);
  log_phase(&rep.phases_ms, "disk-probe", t0);
}

// The input read and the output written at the probed rates: what must cross the disks. The
// runs' files are apart: the page cache may hold them from their writing to their reading (16 GiB
// of runs on a 125 GiB host: the sort took 33.6 s against 42.8 s with them counted at disk rates).
void note_disk_floor(SortFileReport& rep) {
  if (rep.input_disk.read_gbs && rep.output_disk.write_gbs)
    rep.disk_floor_ms = transfer_ms(rep.bytes_read, rep.input_disk.read_gbs) +
                        transfer_ms(rep.bytes_written, rep.output_disk.write_gbs);
  if (rep.tmp_bytes && rep.tmp_disk.write_gbs && rep.tmp_disk.read_gbs)
    rep.runs_disk_ms = transfer_ms(rep.tmp_bytes, rep.tmp_disk.write_gbs) + transfer_ms(rep.tmp_bytes, rep.tmp_disk.read_gbs);
}

// Where the external sort's runs go past the host memory limit: --tmp-dir, else beside the output
// (the same disk, which holds the output anyway).
std::string tmp_folder(const SortFileRequest& q) {
  if (q.tmp_dir.empty()) return folder_of(q.output);
  check_tmp_dir(q.tmp_dir);
  return q.tmp_dir;
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
  request.launcher = q.launcher;
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

  // One GPU where the file fits there (else streamed through it, written as it is made), one
  // verified run of --algo's choice (sort_once.hpp).
  const std::string tmp = tmp_folder(q);
  probe_disks(q, tmp, rep);
  SortOnceRequest once;
  once.algo = q.algo;
  once.backend = q.backend;
  once.argsort = q.argsort;
  once.gpu_memory_limit = q.gpu_memory_limit;
  once.host_memory_limit = q.host_memory_limit;
  once.tmp_dir = tmp;
  once.stream_to = &sink;
  once.phases = &rep.phases_ms;
  const SortOnce done = sort_once(source, once);
  rep.algorithm = done.algorithm->name;
  rep.why = done.why;
  rep.placement = done.placement;
  rep.verified_on = done.verified_on;
  rep.details = done.row.details;
  for (const auto& [name, value] : done.row.details) {
    if (name == "rule") rep.rule = value;
    if (name == "runs_in" && value != "none") rep.runs_in = value;
    if (name == "tmp_bytes") rep.tmp_bytes = std::stoull(value);
  }

  // write: each column downloaded through the pinned ring while the chunk before it is written
  // (streamed from the file: already written as it was made), under temporary names renamed
  // into place at the end.
  const double t0 = steady_now_s();
  done.session->drain(sink);
  rep.bytes_written = sink.close();
  sink.commit();
  log_phase(&rep.phases_ms, "write", t0);
  rep.host_peak_bytes = host_peak_bytes();
  note_disk_floor(rep);
  return rep;
}

}  // namespace sb
