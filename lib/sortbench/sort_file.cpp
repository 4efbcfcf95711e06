#include "sortbench/sort_file.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/device_info.hpp"
#include "sortbench/element.hpp"
#include "sortbench/errors.hpp"
#include "sortbench/generator.hpp"
#include "sortbench/input_source.hpp"
#include "sortbench/key_facts.hpp"
#include "sortbench/registry.hpp"
#include "sortbench/report.hpp"
#include "sortbench/values.hpp"
#include "sortbench/verify.hpp"

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

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

std::string bytes_text(std::uint64_t b) {
  return b >= (1ull << 30) ? fmt::format("{:.2f} GiB", b / double(1ull << 30))
                           : fmt::format("{:.1f} MiB", b / double(1ull << 20));
}

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;
  return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
}

// A file written under a temporary name and renamed into place by commit(); removed if not.
class PendingOutput {
 public:
  explicit PendingOutput(std::string path)
      : path_(std::move(path)), temp_(path_ + fmt::format(".sortbench-{}.tmp", ::getpid())) {}
  ~PendingOutput() {
    if (!committed_) std::remove(temp_.c_str());
  }
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  std::uint64_t write(FileFormat format, KeyType key, const void* data, std::uint64_t n) {
    try {
      write_column(temp_, format, key, data, n);
    } catch (const Error& e) {
      std::remove(temp_.c_str());
      throw UsageError(e.what());  // sort: an unwritable output is a usage problem (exit 2)
    }
    std::error_code ec;
    return std::filesystem::file_size(temp_, ec);
  }
  void commit() {
    if (std::rename(temp_.c_str(), path_.c_str()) != 0)
      throw UsageError(fmt::format("cannot rename {} to {}: {}; choose another output path", temp_, path_,
                                   std::strerror(errno)));
    committed_ = true;
  }

 private:
  std::string path_, temp_;
  bool committed_ = false;
};

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

struct Stream {
  cudaStream_t handle{};
  explicit Stream(bool wanted) {
    if (wanted) SB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking));
  }
  ~Stream() {
    if (handle) cudaStreamDestroy(handle);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Copies a column to the GPU chunk by chunk as it is read (from pinned memory, so each
// copy runs while the next chunk is read). copies: how many buffers of the column's size
// the sort will hold on the GPU, for the memory check made before anything is allocated.
class DeviceUpload : public ColumnObserver {
 public:
  DeviceUpload(cudaStream_t stream, std::string path, int copies, std::uint64_t already)
      : stream_(stream), path_(std::move(path)), copies_(copies), already_(already) {}
  void sized(KeyType key, std::uint64_t n) override {
    const std::uint64_t bytes = n * key_bytes(key);
    std::size_t free_bytes = 0, total = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    const std::uint64_t needed = copies_ * bytes;
    if (needed > free_bytes)
      throw Error(ExitCode::device_memory,
                  fmt::format("sorting {} needs about {} on the GPU ({} copies of {}) besides the {} held already, but "
                              "{} are free; sort a smaller file or use --backend cpu",
                              path_, bytes_text(needed), copies_, bytes_text(bytes), bytes_text(already_),
                              bytes_text(free_bytes)));
    buffer = DeviceBuffer(bytes);
  }
  void chunk_ready(const unsigned char* column, std::uint64_t first, std::uint64_t bytes) override {
    SB_CUDA_CHECK(cudaMemcpyAsync(buffer.as<unsigned char>() + first, column + first, bytes, cudaMemcpyHostToDevice,
                                  stream_));
  }
  DeviceBuffer buffer;

 private:
  cudaStream_t stream_;
  std::string path_;
  int copies_;
  std::uint64_t already_;
};

// What sort measures before sorting: min and max in one pass (the range-aware algorithms
// and --algo auto read them). The distinct count would need a sort of its own, so it stays
// unknown (0): an algorithm that needs distinct keys declines.
InputStats unknown_len_stats(const InputSpec& spec) {
  InputStats s;
  s.n = spec.n;
  s.len = 0;
  return s;
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
  const HostAllocator alloc = gpu ? pinned_host_allocator() : HostAllocator{};
  Stream stream(gpu);

  // read (on the GPU path each chunk's copy to the device starts as soon as it is read):
  // the memory check counts the keys twice (input and scratch).
  auto t0 = clock_type::now();
  DeviceUpload key_upload(stream.handle, q.input.path, 2, 0);
  FileColumn keys = read_column(q.input, alloc, gpu ? &key_upload : nullptr);
  const NanReport nans = find_nans(keys.key, keys.data.data(), keys.n);
  if (nans.count)
    throw UsageError(fmt::format("{} {}: {} NaN keys, the first at position {}; NaN has no place in an order: remove "
                                 "them (e.g. a[~numpy.isnan(a)])",
                                 q.input.role, q.input.path, nans.count, nans.first));
  std::optional<FileColumn> values;
  DeviceBuffer d_vals_in;
  if (q.values) {
    FileRequest vr = *q.values;
    vr.role = "--values";
    DeviceUpload value_upload(stream.handle, vr.path, 2, key_upload.buffer.bytes() * 2);
    values = read_column(vr, alloc, gpu ? &value_upload : nullptr);
    d_vals_in = std::move(value_upload.buffer);
    if (values->n != keys.n)
      throw UsageError(fmt::format("--values {} holds {} values but {} holds {} keys; give files of the same length",
                                   vr.path, values->n, q.input.path, keys.n));
  }
  rep.phases_ms.emplace_back("read", ms_since(t0));
  rep.bytes_read = keys.file_bytes + (values ? values->file_bytes : 0);
  rep.n = keys.n;
  rep.key = keys.key;

  InputSpec spec;
  spec.n = keys.n;
  spec.key = keys.key;
  spec.payload = values ? (key_bytes(values->key) == 4 ? Payload::u32 : Payload::u64)
                 : q.argsort ? (keys.n <= (std::uint64_t{1} << 32) ? Payload::index : Payload::u64)
                             : Payload::none;
  const std::size_t kb = spec.n * key_bytes(spec.key);
  const std::size_t vb = spec.n * payload_bytes(spec.payload);
  // The value column the sort starts from: the file's, or positions for --argsort.
  HostArray vals_in;
  if (values) {
    vals_in = std::move(values->data);
  } else if (q.argsort) {
    vals_in = HostArray(vb, alloc);
    dispatch_value(spec.payload, [&](auto v) {
      using V = decltype(v);
      if constexpr (!std::is_same_v<V, NoValue>) {
        V* out = reinterpret_cast<V*>(vals_in.data());
        for (std::uint64_t i = 0; i < spec.n; ++i) out[i] = encode_value<V>(spec.payload, i);
      }
    });
  }
  HostArray keys_out(kb, alloc), vals_out(vb, alloc);

  auto pick = [&](const InputStats& stats) -> const Algorithm* {
    const double range = spec.n ? static_cast<double>(stats.max_ordered - stats.min_ordered) + 1.0 : 1.0;
    const std::string name =
        q.algo == "auto" ? choose_algorithm(q.backend, spec.key, values.has_value(), q.argsort, range, spec.n, rep.why)
                         : q.algo;
    const Algorithm* a = registry().find(name);
    SortProblem probe{spec, stats, {}, RangeMode::given};
    if (auto why = a->why_unsupported(probe)) {
      if (q.algo != "auto")
        throw UsageError(fmt::format("--algo {} cannot sort this input: {}; give --algo auto", name, *why));
      a = registry().find(gpu ? "cub-radix" : "cpu-stable-sort");
      rep.why += fmt::format(" (its first choice {} declined: {})", name, *why);
    }
    rep.algorithm = a->name;
    return a;
  };

  const Algorithm* algo = nullptr;
  if (gpu) {
    std::size_t free_bytes = 0, total = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    const std::uint64_t more = kb + (values ? vb : 2 * vb);  // scratch keys; argsort positions twice
    if (more > free_bytes)
      throw Error(ExitCode::device_memory,
                  fmt::format("sorting {} needs {} more on the GPU but {} are free; sort a smaller file or use "
                              "--backend cpu",
                              q.input.path, bytes_text(more), bytes_text(free_bytes)));
    DeviceBuffer d_keys[2] = {std::move(key_upload.buffer), DeviceBuffer(kb)};
    DeviceBuffer d_vals[2] = {values ? std::move(d_vals_in) : DeviceBuffer(vb), DeviceBuffer(vb)};
    // The copies still in flight after the last read, and the argsort positions.
    t0 = clock_type::now();
    if (vb && !values)
      SB_CUDA_CHECK(cudaMemcpyAsync(d_vals[0].get(), vals_in.data(), vb, cudaMemcpyHostToDevice, stream.handle));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
    rep.phases_ms.emplace_back("host-to-device", ms_since(t0));
    t0 = clock_type::now();
    InputStats stats = unknown_len_stats(spec);
    {
      DeviceBuffer d_facts(2 * sizeof(std::uint64_t));
      HostArray h_facts(2 * sizeof(std::uint64_t), alloc);
      auto* words = reinterpret_cast<std::uint64_t*>(h_facts.data());
      discover_key_facts_device(spec.key, d_keys[0].get(), spec.n, d_facts.as<std::uint64_t>(), words, stream.handle);
      apply_key_facts(stats, spec.key, KeyFacts{words[0], words[1]});
    }
    rep.phases_ms.emplace_back("analyze", ms_since(t0));
    algo = pick(stats);
    const DeviceContext device = current_device_context(stream.handle);
    const SortProblem problem{spec, stats, {}, RangeMode::given, &device};
    const std::size_t ws_bytes = algo->workspace_bytes(problem);
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (ws_bytes > free_bytes)
      throw Error(ExitCode::device_memory, fmt::format("{} needs {} of workspace but {} are free; use --backend cpu",
                                                       algo->name, bytes_text(ws_bytes), bytes_text(free_bytes)));
    DeviceBuffer workspace(ws_bytes);
    DeviceBuffers b;
    for (int i = 0; i < 2; ++i) b.keys[i] = d_keys[i].get(), b.vals[i] = vb ? d_vals[i].get() : nullptr;
    b.workspace = workspace.get();
    b.workspace_bytes = ws_bytes;
    b.stream = stream.handle;
    b.device = &device;
    algo->prepare_on(problem, device);
    t0 = clock_type::now();
    const int result = algo->run_device(problem, b);
    SB_CUDA_CHECK_LAUNCH();
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
    rep.phases_ms.emplace_back("sort", ms_since(t0));
    t0 = clock_type::now();
    if (kb) SB_CUDA_CHECK(cudaMemcpyAsync(keys_out.data(), b.keys[result], kb, cudaMemcpyDeviceToHost, stream.handle));
    if (vb) SB_CUDA_CHECK(cudaMemcpyAsync(vals_out.data(), b.vals[result], vb, cudaMemcpyDeviceToHost, stream.handle));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
    rep.phases_ms.emplace_back("device-to-host", ms_since(t0));
  } else {
    t0 = clock_type::now();
    InputStats stats = unknown_len_stats(spec);
    apply_key_facts(stats, spec.key, discover_key_facts_host(spec.key, keys.data.data(), spec.n));
    rep.phases_ms.emplace_back("analyze", ms_since(t0));
    algo = pick(stats);
    const SortProblem problem{spec, stats, {}, RangeMode::given};
    if (kb) std::memcpy(keys_out.data(), keys.data.data(), kb);
    if (vb) std::memcpy(vals_out.data(), vals_in.data(), vb);
    t0 = clock_type::now();
    algo->run_host(problem, HostBuffers{keys_out.data(), vb ? vals_out.data() : nullptr});
    rep.phases_ms.emplace_back("sort", ms_since(t0));
  }

  // verify: sorted, the same multiset; positions name each input once (stably when the
  // algorithm is stable); a value column stays with its keys.
  t0 = clock_type::now();
  VerifyInput v;
  v.key = spec.key;
  v.payload = spec.payload;
  v.n = spec.n;
  v.keys_in = keys.data.data();
  v.keys_out = keys_out.data();
  v.vals_out = vb ? vals_out.data() : nullptr;
  v.vals_in = values ? vals_in.data() : nullptr;
  v.check_stable = q.argsort && algo->stable;
  const VerifyReport check = verify_host(v);
  if (!check.ok)
    throw Error(ExitCode::verification_failed,
                fmt::format("{} produced a wrong result ({}); nothing was written; report it, or give another --algo",
                            algo->name, check.message));
  rep.phases_ms.emplace_back("verify", ms_since(t0));

  // write
  t0 = clock_type::now();
  const FileFormat out_format = keys.format;
  PendingOutput out(q.output);
  if (q.argsort) {
    // Positions: u32 when n fits, else u64 (decoded from the u64 payload's check bits).
    if (spec.payload == Payload::index) {
      rep.bytes_written += out.write(out_format, KeyType::u32, vals_out.data(), spec.n);
    } else {
      std::vector<std::uint64_t> pos(spec.n);
      const auto* enc = reinterpret_cast<const std::uint64_t*>(vals_out.data());
      for (std::uint64_t i = 0; i < spec.n; ++i) decode_value<std::uint64_t>(spec.payload, enc[i], pos[i]);
      rep.bytes_written += out.write(out_format, KeyType::u64, pos.data(), spec.n);
    }
  } else {
    rep.bytes_written += out.write(out_format, spec.key, keys_out.data(), spec.n);
  }
  std::optional<PendingOutput> vout;
  if (values) {
    vout.emplace(q.values_output);
    rep.bytes_written += vout->write(values->format, values->key, vals_out.data(), spec.n);
  }
  out.commit();
  if (vout) vout->commit();
  rep.phases_ms.emplace_back("write", ms_since(t0));
  return rep;
}

}  // namespace sb
