#include "sortbench/input/input_source.hpp"

#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/values.hpp"

namespace sb {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  if constexpr (std::is_same_v<T, wide_t>) return v ? wide_json(*v) : nlohmann::json(nullptr);
  else return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

class GeneratedSource : public InputSource {
 public:
  GeneratedSource(const InputSpec& spec, const InputRequest& request) : spec_(spec), request_(request) {}
  const InputSpec& spec() const override { return spec_; }
  RangeMode default_range() const override { return RangeMode::given; }
  void fill_host(void* keys, void* vals) const override { generate_host(spec_, keys, vals); }
  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    generate_device(spec_, d_keys, d_vals, stream);
  }
  // What reproduces its keys, and as "parameters" the whole description the report writes
  // into a row's input (requested and derived: docs/schema.md).
  nlohmann::json provenance() const override {
    nlohmann::json j = {{"kind", "generator"}, {"dist", to_string(spec_.dist)}, {"seed", spec_.seed},
                        {"key", to_string(spec_.key)}};
    const InputRequest& q = request_;
    nlohmann::json parameters = {
        {"requested",
         {{"n", optional_json(q.n)},
          {"delta", optional_json(q.delta)},
          {"sigma", optional_json(q.sigma)},
          {"len", optional_json(q.len)},
          {"min_val", optional_json(q.min_val)},
          {"max_val", optional_json(q.max_val)}}},
        {"min_val", wide_json(spec_.min_val)},
        {"max_val", wide_json(spec_.max_val)},
        {"range", wide_json(spec_.range)},
        {"len", spec_.len},
        {"delta", spec_.delta()},
        {"sigma", spec_.sigma()},
        {"dist", to_string(spec_.dist)},
        {"seed", spec_.seed}};
    if (spec_.dist == Distribution::entropy) {
      j["entropy"] = spec_.entropy;
      parameters["entropy"] = spec_.entropy;
    }
    j["parameters"] = parameters;
    return j;
  }

 private:
  InputSpec spec_;
  InputRequest request_;
};

class FileSource : public InputSource {
 public:
  FileSource(const FileInputRequest& r, HostAllocator alloc) : keys_(read_column(r.keys, alloc)) {
    refuse_nan_keys(keys_, r.keys.role);
    spec_.n = keys_.n;
    spec_.key = keys_.key;
    spec_.payload = r.payload.value_or(Payload::none);
    if (r.values) {
      FileRequest vr = *r.values;
      vr.role = "--values";
      values_ = read_column(vr, alloc);
      if (values_->n != keys_.n)
        throw UsageError(fmt::format("--values {} holds {} values but --input {} holds {} keys; give files of the "
                                     "same length",
                                     vr.path, values_->n, r.keys.path, keys_.n));
      const Payload width = key_bytes(values_->key) == 4 ? Payload::u32 : Payload::u64;
      if (r.payload && *r.payload != width)
        throw UsageError(fmt::format("--values {} holds {}-byte values but --payload {} was given; drop --payload",
                                     vr.path, key_bytes(values_->key), to_string(*r.payload)));
      spec_.payload = width;
    } else if (spec_.payload == Payload::index && keys_.n > (std::uint64_t{1} << 32)) {
      throw UsageError(fmt::format("--payload index holds 32-bit positions but the file has {} keys; give --payload u64",
                                   keys_.n));
    }
    sortedness_ = sortedness_of(keys_.key, keys_.data.data(), keys_.n);
    keys_hash_ = content_hash64(keys_.data.data(), keys_.data.bytes());
    if (values_) values_hash_ = content_hash64(values_->data.data(), values_->data.bytes());
    spec_.len = 0;
  }
  const InputSpec& spec() const override { return spec_; }
  RangeMode default_range() const override { return RangeMode::measured; }
  bool values_are_data() const override { return values_.has_value(); }
  void fill_host(void* keys, void* vals) const override {
    if (keys_.data.bytes()) std::memcpy(keys, keys_.data.data(), keys_.data.bytes());
    fill_values_host(vals);
  }
  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    if (keys_.data.bytes())
      SB_CUDA_CHECK(cudaMemcpyAsync(d_keys, keys_.data.data(), keys_.data.bytes(), cudaMemcpyHostToDevice, stream));
    if (d_vals && spec_.payload != Payload::none && spec_.n) {
      if (values_) {
        SB_CUDA_CHECK(
            cudaMemcpyAsync(d_vals, values_->data.data(), values_->data.bytes(), cudaMemcpyHostToDevice, stream));
      } else {
        std::vector<unsigned char> host(spec_.n * payload_bytes(spec_.payload));
        fill_values_host(host.data());
        SB_CUDA_CHECK(cudaMemcpyAsync(d_vals, host.data(), host.size(), cudaMemcpyHostToDevice, stream));
      }
    }
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  nlohmann::json provenance() const override {
    nlohmann::json j = describe(keys_, keys_hash_);
    j["kind"] = "file";
    if (values_) j["values"] = describe(*values_, values_hash_);
    return j;
  }
  std::optional<double> sortedness() const override { return sortedness_; }

 private:
  // The hash is over the column as read (native byte order), so the same keys saved
  // big-endian or as another file name are recognized as the same input.
  static nlohmann::json describe(const FileColumn& c, std::uint64_t hash) {
    return {{"path", c.path},           {"bytes", c.file_bytes},  {"hash", fmt::format("fast64:{:016x}", hash)},
            {"format", to_string(c.format)}, {"dtype", c.dtype}, {"key", to_string(c.key)}};
  }
  void fill_values_host(void* vals) const {
    if (!vals || spec_.payload == Payload::none) return;
    if (values_) {
      if (values_->data.bytes()) std::memcpy(vals, values_->data.data(), values_->data.bytes());
      return;
    }
    // No value file: the generated column (positions), checked by decoding as for generated inputs.
    dispatch_value(spec_.payload, [&](auto v) {
      using V = decltype(v);
      if constexpr (!std::is_same_v<V, NoValue>) {
        V* out = static_cast<V*>(vals);
        for (std::uint64_t i = 0; i < spec_.n; ++i) out[i] = encode_value<V>(spec_.payload, i);
      }
    });
  }

  FileColumn keys_;
  std::optional<FileColumn> values_;
  InputSpec spec_;
  double sortedness_ = 1;
  std::uint64_t keys_hash_ = 0, values_hash_ = 0;
};

void* pinned_allocate(std::size_t bytes) {
  void* p = nullptr;
  return cudaMallocHost(&p, bytes) == cudaSuccess ? p : nullptr;
}
void pinned_release(void* p) { cudaFreeHost(p); }

}  // namespace

nlohmann::json wide_json(wide_t v) {
  if (v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max())
    return nlohmann::json(static_cast<std::int64_t>(v));
  if (v >= 0 && v <= std::numeric_limits<std::uint64_t>::max()) return nlohmann::json(static_cast<std::uint64_t>(v));
  return nlohmann::json(static_cast<double>(v));
}

wide_t wide_from_json(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer()) return j.get<std::int64_t>();
  return static_cast<wide_t>(j.get<double>());
}

std::shared_ptr<const InputSource> make_generated_source(const InputSpec& spec, const InputRequest& request) {
  return std::make_shared<GeneratedSource>(spec, request);
}

std::shared_ptr<const InputSource> make_file_source(const FileInputRequest& request, HostAllocator alloc) {
  return std::make_shared<FileSource>(request, alloc);
}

HostAllocator pinned_host_allocator() { return {pinned_allocate, pinned_release}; }

double sortedness_of(KeyType key, const void* keys, std::uint64_t n) {
  if (n < 2) return 1.0;
  std::uint64_t ascending = 0;
  if (key == KeyType::u32x4) {
    const Row4* k = static_cast<const Row4*>(keys);
    for (std::uint64_t i = 0; i + 1 < n; ++i) ascending += !KeyTraits<Row4>::less(k[i + 1], k[i]);
  } else {
    dispatch_key<ScalarKeys>(key, [&](auto t) {
      using K = decltype(t);
      const K* k = static_cast<const K*>(keys);
      for (std::uint64_t i = 0; i + 1 < n; ++i) ascending += !(k[i + 1] < k[i]);
    });
  }
  return static_cast<double>(ascending) / static_cast<double>(n - 1);
}

}  // namespace sb
