// A user's files as an input source (input_source.hpp): the key column, an optional value
// column, and generated positions where a payload is asked for without a value file. Read
// once into host memory (a benchmark), or streamed from the file on every fill (sort: through
// a small pinned ring into the GPU, never a host buffer of the file's size). A slice reads
// just its rows (npy, raw) or lines (text) where the file is streamed: issue 38, a rank of a
// distributed sort reads its shard so (text from the probe's line index).
#include <cstring>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/pinned_ring.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_source.hpp"

namespace sb {
namespace {

static_assert(ColumnSink::kMaxChunk <= PinnedRing::kSlotBytes, "a file chunk must fit a ring slot");

ColumnInfo info_of(const FileColumn& c) { return {c.path, c.format, c.key, c.dtype, c.n, c.file_bytes, nullptr}; }

// The hash is over the column as read (native byte order), so the same keys saved big-endian
// or as another file name are recognized as the same input; a streamed file is not hashed.
nlohmann::json describe(const ColumnInfo& c, std::optional<std::uint64_t> hash) {
  nlohmann::json j = {{"path", c.path},
                      {"bytes", c.file_bytes},
                      {"format", to_string(c.format)},
                      {"dtype", c.dtype},
                      {"key", to_string(c.key)}};
  if (hash) j["hash"] = fmt::format("fast64:{:016x}", *hash);
  return j;
}

// A column read straight into host memory the caller holds.
class HostTarget final : public ColumnSink {
 public:
  explicit HostTarget(void* dst) : dst_(static_cast<unsigned char*>(dst)) {}
  void sized(KeyType, std::uint64_t) override {}
  unsigned char* room(std::uint64_t first_byte, std::uint64_t) override { return dst_ + first_byte; }
  void filled(std::uint64_t, std::uint64_t) override {}

 private:
  unsigned char* dst_;
};

// A column read into device memory through the pinned ring: each chunk's copy runs while the
// next chunk is read.
class DeviceTarget final : public ColumnSink {
 public:
  DeviceTarget(PinnedRing& ring, void* d_dst, cudaStream_t stream)
      : ring_(ring), dst_(static_cast<unsigned char*>(d_dst)), stream_(stream) {}
  void sized(KeyType, std::uint64_t) override {}
  unsigned char* room(std::uint64_t, std::uint64_t) override {
    ring_.wait(chunk_);
    return ring_.slot(chunk_);
  }
  void filled(std::uint64_t first_byte, std::uint64_t bytes) override {
    ring_.copy(chunk_, dst_ + first_byte, ring_.slot(chunk_), bytes, cudaMemcpyHostToDevice, stream_);
    ++chunk_;
  }

 private:
  PinnedRing& ring_;
  unsigned char* dst_;
  cudaStream_t stream_;
  std::uint64_t chunk_ = 0;
};

// Positions [begin, begin + count) encoded as the payload (values.hpp), as the generator makes them.
void encode_positions(Payload payload, std::uint64_t begin, std::uint64_t count, void* out) {
  dispatch_value(payload, [&](auto v) {
    using V = decltype(v);
    if constexpr (!std::is_same_v<V, NoValue>) {
      V* o = static_cast<V*>(out);
      for (std::uint64_t i = 0; i < count; ++i) o[i] = encode_value<V>(payload, begin + i);
    }
  });
}

class FileSource final : public FileInputSource, public std::enable_shared_from_this<FileSource> {
 public:
  FileSource(const FileInputRequest& r, HostAllocator alloc, FileReading reading) : request_(r) {
    if (request_.values) request_.values->role = "--values";
    if (reading == FileReading::into_memory) {
      keys_ = read_column(r.keys, alloc);
      refuse_nan_keys(*keys_, r.keys.role);
      keys_info_ = info_of(*keys_);
      if (request_.values) {
        values_ = read_column(*request_.values, alloc);
        values_info_ = info_of(*values_);
      }
    } else {
      keys_info_ = probe_column(r.keys);
      // Every later read of a range (a rank's shard, a streamed chunk) starts from the probe's
      // index of a text file's lines instead of reading the lines before it again.
      request_.keys.lines = keys_info_.lines;
      if (request_.values) {
        values_info_ = probe_column(*request_.values);
        request_.values->lines = values_info_->lines;
      }
    }
    spec_.n = keys_info_.n;
    spec_.key = keys_info_.key;
    spec_.payload = r.payload.value_or(Payload::none);
    if (r.positions) spec_.payload = spec_.n <= (std::uint64_t{1} << 32) ? Payload::index : Payload::u64;
    if (values_info_) {
      if (values_info_->n != keys_info_.n)
        throw UsageError(
            fmt::format("--values {} holds {} values but {} {} holds {} keys; give files of the same "
                        "length",
                        values_info_->path, values_info_->n, r.keys.role, r.keys.path, keys_info_.n));
      const Payload width = key_bytes(values_info_->key) == 4 ? Payload::u32 : Payload::u64;
      if (r.payload && *r.payload != width)
        throw UsageError(fmt::format("--values {} holds {}-byte values but --payload {} was given; drop --payload",
                                     values_info_->path, key_bytes(values_info_->key), to_string(*r.payload)));
      spec_.payload = width;
    } else if (spec_.payload == Payload::index && spec_.n > (std::uint64_t{1} << 32)) {
      throw UsageError(
          fmt::format("--payload index holds 32-bit positions but the file has {} keys; give --payload u64", spec_.n));
    }
    spec_.len = 0;
    if (keys_) {
      sortedness_ = sortedness_of(keys_->key, keys_->data.data(), keys_->n);
      keys_hash_ = content_hash64(keys_->data.data(), keys_->data.bytes());
      if (values_) values_hash_ = content_hash64(values_->data.data(), values_->data.bytes());
    }
  }

  const InputSpec& spec() const override { return spec_; }
  RangeMode default_range() const override { return RangeMode::measured; }
  bool values_are_data() const override { return values_info_.has_value(); }
  bool parameters_measured() const override { return true; }
  const ColumnInfo& keys_column() const override { return keys_info_; }
  const ColumnInfo* values_column() const override { return values_info_ ? &*values_info_ : nullptr; }
  std::optional<double> sortedness() const override {
    return keys_ ? std::optional<double>(sortedness_) : std::nullopt;
  }
  nlohmann::json provenance() const override {
    nlohmann::json j = describe(keys_info_, keys_ ? std::optional<std::uint64_t>(keys_hash_) : std::nullopt);
    j["kind"] = "file";
    if (values_info_)
      j["values"] = describe(*values_info_, values_ ? std::optional<std::uint64_t>(values_hash_) : std::nullopt);
    return j;
  }

  void fill_host(void* keys, void* vals) const override { fill_host_range(0, spec_.n, keys, vals); }
  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    fill_device_range(0, spec_.n, d_keys, d_vals, stream);
  }
  std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const override;

  // Elements [begin, begin + count) of the columns into host or device memory.
  void fill_host_range(std::uint64_t begin, std::uint64_t count, void* keys, void* vals) const {
    const std::size_t kb = key_bytes(spec_.key);
    if (keys_) {
      if (count) std::memcpy(keys, keys_->data.data() + begin * kb, count * kb);
    } else {
      HostTarget target(keys);
      refuse_nan_keys(read_column_range(request_.keys, begin, count, target), request_.keys.role);
    }
    if (!vals || spec_.payload == Payload::none || !count) return;
    const std::size_t vb = payload_bytes(spec_.payload);
    if (values_) {
      std::memcpy(vals, values_->data.data() + begin * vb, count * vb);
    } else if (request_.values) {
      HostTarget target(vals);
      read_column_range(*request_.values, begin, count, target);
    } else {
      encode_positions(spec_.payload, begin, count, vals);
    }
  }
  void fill_device_range(std::uint64_t begin, std::uint64_t count, void* d_keys, void* d_vals,
                         cudaStream_t stream) const {
    const std::size_t kb = key_bytes(spec_.key);
    const std::size_t vb = payload_bytes(spec_.payload);
    const bool with_values = d_vals && spec_.payload != Payload::none && count;
    std::vector<unsigned char> staging;
    if (keys_) {
      if (count)
        SB_CUDA_CHECK(
            cudaMemcpyAsync(d_keys, keys_->data.data() + begin * kb, count * kb, cudaMemcpyHostToDevice, stream));
      if (with_values && values_)
        SB_CUDA_CHECK(
            cudaMemcpyAsync(d_vals, values_->data.data() + begin * vb, count * vb, cudaMemcpyHostToDevice, stream));
    } else {
      PinnedRing ring;
      DeviceTarget keys_target(ring, d_keys, stream);
      refuse_nan_keys(read_column_range(request_.keys, begin, count, keys_target), request_.keys.role);
      if (with_values && request_.values) {
        DeviceTarget values_target(ring, d_vals, stream);
        read_column_range(*request_.values, begin, count, values_target);
      }
      // The ring's slots are reused by the next fill: its copies end here.
      SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (with_values && !request_.values) {
      if (begin == 0) {
        generate_values_device(spec_.payload, count, d_vals, stream);
      } else {
        staging.resize(count * vb);
        encode_positions(spec_.payload, begin, count, staging.data());
        SB_CUDA_CHECK(cudaMemcpyAsync(d_vals, staging.data(), staging.size(), cudaMemcpyHostToDevice, stream));
      }
    }
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  FileInputRequest request_;
  std::optional<FileColumn> keys_, values_;  // into_memory: the columns as read
  ColumnInfo keys_info_;
  std::optional<ColumnInfo> values_info_;
  InputSpec spec_;
  double sortedness_ = 1;
  std::uint64_t keys_hash_ = 0, values_hash_ = 0;
};

// Elements [begin, begin + count) of a file source: copied from the columns in memory, or read
// from just that part of the file; generated positions stay those of the whole file.
class FileSlice final : public InputSource {
 public:
  FileSlice(std::shared_ptr<const FileSource> file, std::uint64_t begin, std::uint64_t count)
      : file_(std::move(file)), spec_(file_->spec()), begin_(begin) {
    spec_.n = count;
  }
  const InputSpec& spec() const override { return spec_; }
  RangeMode default_range() const override { return RangeMode::measured; }
  bool values_are_data() const override { return file_->values_are_data(); }
  bool parameters_measured() const override { return true; }
  void fill_host(void* keys, void* vals) const override { file_->fill_host_range(begin_, spec_.n, keys, vals); }
  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    file_->fill_device_range(begin_, spec_.n, d_keys, d_vals, stream);
  }
  nlohmann::json provenance() const override {
    nlohmann::json j = file_->provenance();
    j["slice"] = {{"begin", begin_}, {"count", spec_.n}};
    return j;
  }
  std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const override {
    check_slice(begin, count, spec_.n);
    return std::make_shared<FileSlice>(file_, begin_ + begin, count);
  }

 private:
  std::shared_ptr<const FileSource> file_;
  InputSpec spec_;
  std::uint64_t begin_;
};

std::shared_ptr<const InputSource> FileSource::slice(std::uint64_t begin, std::uint64_t count) const {
  if (begin == 0 && count == spec_.n) return shared_from_this();
  check_slice(begin, count, spec_.n);
  return std::make_shared<FileSlice>(shared_from_this(), begin, count);
}

}  // namespace

std::shared_ptr<const FileInputSource> make_file_source(const FileInputRequest& request, HostAllocator alloc,
                                                        FileReading reading) {
  return std::make_shared<FileSource>(request, alloc, reading);
}

}  // namespace sb
