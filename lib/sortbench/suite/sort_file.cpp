#include "sortbench/suite/sort_file.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/measure/device_info.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/measure/key_discovery.hpp"
#include "sortbench/algo/registry.hpp"
#include "sortbench/report/report.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/measure/verify.hpp"

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

// sort: an unwritable output or a full disk is a usage problem (exit 2).
template <typename F>
auto as_usage_error(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

// A column written under a temporary name, in pieces, and renamed into place by commit();
// removed if not committed.
class PendingOutput {
 public:
  PendingOutput(std::string path, FileFormat format, KeyType key, std::uint64_t n)
      : path_(std::move(path)), temp_(path_ + fmt::format(".sortbench-{}.tmp", ::getpid())) {
    writer_ = as_usage_error([&] { return std::make_unique<ColumnWriter>(temp_, format, key, n); });
  }
  ~PendingOutput() {
    writer_.reset();
    if (!committed_) std::remove(temp_.c_str());
  }
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  void append(const void* data, std::uint64_t count) {
    as_usage_error([&] { writer_->append(data, count); });
  }
  // Closes the file: the bytes written. Then commit() renames it into place.
  std::uint64_t close() {
    return as_usage_error([&] { return writer_->close(); });
  }
  void commit() {
    if (std::rename(temp_.c_str(), path_.c_str()) != 0)
      throw UsageError(fmt::format("cannot rename {} to {}: {}; choose another output path", temp_, path_,
                                   std::strerror(errno)));
    committed_ = true;
  }

 private:
  std::string path_, temp_;
  std::unique_ptr<ColumnWriter> writer_;
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

// A few pinned chunks that columns pass through between the file and the GPU: the copy of
// one chunk runs while the next is read (or the previous one written). Allocated once, a few
// MiB: pinning the file's size would cost more than the read itself. The i-th chunk of a
// stream uses slot i % kSlots.
class PinnedRing {
 public:
  static constexpr int kSlots = 4;
  static constexpr std::uint64_t kSlotBytes = ColumnSink::kMaxChunk;
  PinnedRing() {
    if (cudaMallocHost(&base_, kSlots * kSlotBytes) != cudaSuccess)
      throw Error(ExitCode::internal, "cannot allocate pinned host memory for the copies to and from the GPU");
    for (auto& e : copied_) SB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~PinnedRing() {
    for (auto& e : copied_)
      if (e) cudaEventDestroy(e);
    cudaFreeHost(base_);
  }
  PinnedRing(const PinnedRing&) = delete;
  PinnedRing& operator=(const PinnedRing&) = delete;
  unsigned char* slot(std::uint64_t i) const { return static_cast<unsigned char*>(base_) + (i % kSlots) * kSlotBytes; }
  // Waits for the copy last queued through slot i.
  void wait(std::uint64_t i) { SB_CUDA_CHECK(cudaEventSynchronize(copied_[i % kSlots])); }
  // Queues a copy through slot i and marks when it is done.
  void copy(std::uint64_t i, void* dst, const void* src, std::uint64_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
    SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    SB_CUDA_CHECK(cudaEventRecord(copied_[i % kSlots], s));
  }

 private:
  void* base_ = nullptr;
  cudaEvent_t copied_[kSlots] = {};
};

// Reads a column into one device buffer through the pinned ring. copies: how many buffers of
// the column's size the sort will hold on the GPU, for the memory check made before anything
// is allocated.
class DeviceUpload : public ColumnSink {
 public:
  DeviceUpload(PinnedRing& ring, cudaStream_t stream, std::string path, int copies, std::uint64_t already)
      : ring_(ring), stream_(stream), path_(std::move(path)), copies_(copies), already_(already) {}
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
  unsigned char* room(std::uint64_t, std::uint64_t) override {
    ring_.wait(chunk_);
    return ring_.slot(chunk_);
  }
  void filled(std::uint64_t first_byte, std::uint64_t bytes) override {
    ring_.copy(chunk_, buffer.as<unsigned char>() + first_byte, ring_.slot(chunk_), bytes, cudaMemcpyHostToDevice,
               stream_);
    ++chunk_;
  }
  DeviceBuffer buffer;

 private:
  PinnedRing& ring_;
  cudaStream_t stream_;
  std::string path_;
  int copies_;
  std::uint64_t already_;
  std::uint64_t chunk_ = 0;
};

// Hands a device column to consume(host_chunk, first_byte, bytes) in order, through the pinned
// ring: the download of the next chunks runs while the consumer writes this one.
template <typename Consume>
void download(PinnedRing& ring, const void* d_src, std::uint64_t bytes, cudaStream_t stream, Consume&& consume) {
  constexpr std::uint64_t kChunk = PinnedRing::kSlotBytes;
  const std::uint64_t chunks = (bytes + kChunk - 1) / kChunk;
  auto queue = [&](std::uint64_t c) {
    ring.wait(c);
    ring.copy(c, ring.slot(c), static_cast<const unsigned char*>(d_src) + c * kChunk,
              std::min(kChunk, bytes - c * kChunk), cudaMemcpyDeviceToHost, stream);
  };
  for (std::uint64_t c = 0; c < chunks && c < PinnedRing::kSlots; ++c) queue(c);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    ring.wait(c);
    consume(ring.slot(c), c * kChunk, std::min(kChunk, bytes - c * kChunk));
    if (c + PinnedRing::kSlots < chunks) queue(c + PinnedRing::kSlots);
  }
}

// The input as the verifier reads it after the sort (the sort may overwrite its input
// buffers): a device copy where it fits beside the sort's buffers, else a host copy.
struct VerifyCopy {
  bool on_device = false;
  DeviceBuffer d_keys, d_vals;
  HostArray h_keys, h_vals;
  const void* keys() const { return on_device ? d_keys.get() : static_cast<const void*>(h_keys.data()); }
  const void* vals() const { return on_device ? d_vals.get() : static_cast<const void*>(h_vals.data()); }
};

VerifyCopy copy_for_verification(const void* d_keys, std::uint64_t kb, const void* d_vals, std::uint64_t vb,
                                 std::uint64_t bitmap_bytes, cudaStream_t stream) {
  VerifyCopy c;
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  // Headroom for the verifier's counters and allocator granularity.
  c.on_device = kb + vb + bitmap_bytes + (std::uint64_t{64} << 20) <= free_bytes;
  if (c.on_device) {
    c.d_keys = DeviceBuffer(kb);
    c.d_vals = DeviceBuffer(vb);
    if (kb) SB_CUDA_CHECK(cudaMemcpyAsync(c.d_keys.get(), d_keys, kb, cudaMemcpyDeviceToDevice, stream));
    if (vb) SB_CUDA_CHECK(cudaMemcpyAsync(c.d_vals.get(), d_vals, vb, cudaMemcpyDeviceToDevice, stream));
  } else {
    c.h_keys = HostArray(kb);
    c.h_vals = HostArray(vb);
    if (kb) SB_CUDA_CHECK(cudaMemcpyAsync(c.h_keys.data(), d_keys, kb, cudaMemcpyDeviceToHost, stream));
    if (vb) SB_CUDA_CHECK(cudaMemcpyAsync(c.h_vals.data(), d_vals, vb, cudaMemcpyDeviceToHost, stream));
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return c;
}

// What sort measures before sorting: min and max in one pass (the range-aware algorithms
// and --algo auto read them). The distinct count would need a sort of its own, so it stays
// unknown (0): an algorithm that needs distinct keys declines.
KeyFacts unknown_len_stats(const InputSpec& spec) {
  KeyFacts s;
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
  Stream stream(gpu);
  std::optional<PinnedRing> ring;
  if (gpu) ring.emplace();

  // read (on the GPU path each chunk goes through the pinned ring and its copy to the device
  // runs while the next chunk is read): the memory check counts the keys twice (input and
  // scratch).
  auto t0 = clock_type::now();
  std::optional<DeviceUpload> key_upload, value_upload;
  FileColumn keys;
  if (gpu) {
    key_upload.emplace(*ring, stream.handle, q.input.path, 2, 0);
    keys = read_column(q.input, *key_upload);
  } else {
    keys = read_column(q.input);
  }
  refuse_nan_keys(keys, q.input.role);
  std::optional<FileColumn> values;
  if (q.values) {
    FileRequest vr = *q.values;
    vr.role = "--values";
    if (gpu) {
      value_upload.emplace(*ring, stream.handle, vr.path, 2, key_upload->buffer.bytes() * 2);
      values = read_column(vr, *value_upload);
    } else {
      values = read_column(vr);
    }
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
  // The sorted columns, on the GPU or the host, until they are written; the host arrays hold
  // them where they are sorted or verified there.
  DeviceBuffer d_keys[2], d_vals[2];
  HostArray keys_out, vals_out;
  const void* sorted_keys = nullptr;
  const void* sorted_vals = nullptr;
  bool sorted_on_device = false;

  auto pick = [&](const KeyFacts& stats) -> const Algorithm* {
    const double range = spec.n ? static_cast<double>(stats.max_ordered - stats.min_ordered) + 1.0 : 1.0;
    const std::string name =
        q.algo == "auto" ? choose_algorithm(q.backend, spec.key, values.has_value(), q.argsort, range, spec.n, rep.why)
                         : q.algo;
    const Algorithm* a = registry().find(name);
    SortProblem probe{spec.shape(), stats, {}, RangeMode::given};
    if (auto why = a->why_unsupported(probe)) {
      if (q.algo != "auto")
        throw UsageError(fmt::format("--algo {} cannot sort this input: {}; give --algo auto", name, *why));
      a = registry().find(gpu ? "cub-radix" : "cpu-stable-sort");
      rep.why += fmt::format(" (its first choice {} declined: {})", name, *why);
    }
    rep.algorithm = a->name;
    return a;
  };

  // verify: sorted, the same multiset; positions name each input once (stably when the
  // algorithm is stable); a value column stays with its keys.
  VerifyInput v;
  v.key = spec.key;
  v.payload = spec.payload;
  v.n = spec.n;
  auto check = [&](const Algorithm* algo, const VerifyReport& report) {
    if (!report.ok)
      throw Error(ExitCode::verification_failed,
                  fmt::format("{} produced a wrong result ({}); nothing was written; report it, or give another --algo",
                              algo->name, report.message));
  };

  if (gpu) {
    // The copies still in flight after the last read; --argsort's positions are made on the GPU.
    t0 = clock_type::now();
    d_keys[0] = std::move(key_upload->buffer);
    d_vals[0] = values ? std::move(value_upload->buffer) : DeviceBuffer(vb);
    if (!values) generate_values_device(spec.payload, spec.n, d_vals[0].get(), stream.handle);
    SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
    rep.phases_ms.emplace_back("host-to-device", ms_since(t0));
    std::size_t free_bytes = 0, total = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (kb + vb > free_bytes)
      throw Error(ExitCode::device_memory,
                  fmt::format("sorting {} needs {} more on the GPU but {} are free; sort a smaller file or use "
                              "--backend cpu",
                              q.input.path, bytes_text(kb + vb), bytes_text(free_bytes)));
    d_keys[1] = DeviceBuffer(kb);
    d_vals[1] = DeviceBuffer(vb);
    t0 = clock_type::now();
    KeyFacts stats = unknown_len_stats(spec);
    {
      DeviceBuffer d_facts(2 * sizeof(std::uint64_t));
      std::uint64_t words[2] = {};
      discover_key_facts_device(spec.key, d_keys[0].get(), spec.n, d_facts.as<std::uint64_t>(), words, stream.handle);
      apply_key_facts(stats, spec.key, OrderedBounds{words[0], words[1]});
    }
    rep.phases_ms.emplace_back("analyze", ms_since(t0));
    const Algorithm* algo = pick(stats);
    const DeviceContext device = current_device_context(stream.handle);
    const SortProblem problem{spec.shape(), stats, {}, RangeMode::given, &device};
    const std::size_t ws_bytes = algo->workspace_bytes(problem);
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (ws_bytes > free_bytes)
      throw Error(ExitCode::device_memory, fmt::format("{} needs {} of workspace but {} are free; use --backend cpu",
                                                       algo->name, bytes_text(ws_bytes), bytes_text(free_bytes)));
    DeviceBuffer workspace(ws_bytes);
    // Untimed: the input as the verifier will read it. Positions need no copy (they are
    // decoded), a --values column does (its pairs are fingerprinted).
    const std::uint64_t bitmap_bytes = values || !vb ? 0 : (spec.n + 31) / 32 * 4;
    const VerifyCopy input = copy_for_verification(d_keys[0].get(), kb, values ? d_vals[0].get() : nullptr,
                                                   values ? vb : 0, bitmap_bytes, stream.handle);
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
    v.check_stable = q.argsort && algo->stable;
    v.keys_in = input.keys();
    v.vals_in = values ? input.vals() : nullptr;
    sorted_keys = b.keys[result];
    sorted_vals = vb ? b.vals[result] : nullptr;
    if (input.on_device) {
      t0 = clock_type::now();
      v.keys_out = sorted_keys;
      v.vals_out = sorted_vals;
      check(algo, verify_device(v, stream.handle));
      rep.phases_ms.emplace_back("verify", ms_since(t0));
      rep.verified_on = "gpu";
      sorted_on_device = true;
    } else {
      t0 = clock_type::now();
      keys_out = HostArray(kb);
      vals_out = HostArray(vb);
      if (kb) SB_CUDA_CHECK(cudaMemcpyAsync(keys_out.data(), sorted_keys, kb, cudaMemcpyDeviceToHost, stream.handle));
      if (vb) SB_CUDA_CHECK(cudaMemcpyAsync(vals_out.data(), sorted_vals, vb, cudaMemcpyDeviceToHost, stream.handle));
      SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
      rep.phases_ms.emplace_back("device-to-host", ms_since(t0));
      t0 = clock_type::now();
      v.keys_out = sorted_keys = keys_out.data();
      v.vals_out = sorted_vals = vb ? vals_out.data() : nullptr;
      check(algo, verify_host(v));
      rep.phases_ms.emplace_back("verify", ms_since(t0));
      rep.verified_on = "host";
    }
  } else {
    t0 = clock_type::now();
    KeyFacts stats = unknown_len_stats(spec);
    apply_key_facts(stats, spec.key, discover_key_facts_host(spec.key, keys.data.data(), spec.n));
    rep.phases_ms.emplace_back("analyze", ms_since(t0));
    const Algorithm* algo = pick(stats);
    const SortProblem problem{spec.shape(), stats, {}, RangeMode::given};
    keys_out = HostArray(kb);
    vals_out = HostArray(vb);
    if (kb) std::memcpy(keys_out.data(), keys.data.data(), kb);
    if (values) {
      std::memcpy(vals_out.data(), values->data.data(), vb);
    } else if (vb) {
      dispatch_value(spec.payload, [&](auto tag) {
        using V = decltype(tag);
        if constexpr (!std::is_same_v<V, NoValue>) {
          V* out = reinterpret_cast<V*>(vals_out.data());
          for (std::uint64_t i = 0; i < spec.n; ++i) out[i] = encode_value<V>(spec.payload, i);
        }
      });
    }
    t0 = clock_type::now();
    algo->run_host(problem, HostBuffers{keys_out.data(), vb ? vals_out.data() : nullptr});
    rep.phases_ms.emplace_back("sort", ms_since(t0));
    t0 = clock_type::now();
    v.keys_in = keys.data.data();
    v.keys_out = keys_out.data();
    v.vals_out = vb ? vals_out.data() : nullptr;
    v.vals_in = values ? values->data.data() : nullptr;
    v.check_stable = q.argsort && algo->stable;
    check(algo, verify_host(v));
    rep.phases_ms.emplace_back("verify", ms_since(t0));
    rep.verified_on = "host";
    sorted_keys = keys_out.data();
    sorted_vals = vb ? vals_out.data() : nullptr;
  }

  // write (on the GPU path each chunk is downloaded through the pinned ring while the one
  // before it is written)
  t0 = clock_type::now();
  auto emit = [&](const void* column, std::uint64_t bytes, auto&& consume) {
    if (sorted_on_device) {
      download(*ring, column, bytes, stream.handle, consume);
      return;
    }
    for (std::uint64_t first = 0; first < bytes; first += ColumnSink::kMaxChunk)
      consume(static_cast<const unsigned char*>(column) + first, first, std::min(ColumnSink::kMaxChunk, bytes - first));
  };
  auto append_to = [](PendingOutput& out, std::size_t width) {
    return [&out, width](const unsigned char* chunk, std::uint64_t, std::uint64_t bytes) {
      out.append(chunk, bytes / width);
    };
  };
  const FileFormat out_format = keys.format;
  std::optional<PendingOutput> out, vout;
  if (q.argsort && spec.payload == Payload::index) {
    out.emplace(q.output, out_format, KeyType::u32, spec.n);
    emit(sorted_vals, vb, append_to(*out, 4));
  } else if (q.argsort) {
    // Positions past 2^32 keys: u64, decoded from the u64 payload's check bits.
    out.emplace(q.output, out_format, KeyType::u64, spec.n);
    std::vector<std::uint64_t> positions;
    emit(sorted_vals, vb, [&](const unsigned char* chunk, std::uint64_t, std::uint64_t bytes) {
      positions.resize(bytes / 8);
      const auto* encoded = reinterpret_cast<const std::uint64_t*>(chunk);
      for (std::size_t i = 0; i < positions.size(); ++i)
        decode_value<std::uint64_t>(spec.payload, encoded[i], positions[i]);
      out->append(positions.data(), positions.size());
    });
  } else {
    out.emplace(q.output, out_format, spec.key, spec.n);
    emit(sorted_keys, kb, append_to(*out, key_bytes(spec.key)));
  }
  if (values) {
    vout.emplace(q.values_output, values->format, values->key, spec.n);
    emit(sorted_vals, vb, append_to(*vout, key_bytes(values->key)));
  }
  rep.bytes_written = out->close() + (vout ? vout->close() : 0);
  out->commit();
  if (vout) vout->commit();
  rep.phases_ms.emplace_back("write", ms_since(t0));
  return rep;
}

}  // namespace sb
