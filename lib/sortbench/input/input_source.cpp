#include "sortbench/input/input_source.hpp"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/host_memory.hpp"
#include "sortbench/core/slices.hpp"
#include "sortbench/core/values.hpp"

namespace sb {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  if constexpr (std::is_same_v<T, wide_t>) return v ? wide_json(*v) : nlohmann::json(nullptr);
  else return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string sorted_distribution_reason(Distribution d) {
  return fmt::format("the {} distribution is made by sorting the whole input, which no rank holds; use uniform, zipf "
                     "or entropy",
                     to_string(d));
}

// Elements [begin, begin + count) of a generated input, made where they are needed (a rank
// of a distributed sort makes its own slice, a streamed pass its own chunk).
class GeneratedSlice : public InputSource {
 public:
  GeneratedSlice(const InputSpec& whole, nlohmann::json provenance, std::uint64_t begin, std::uint64_t count)
      : whole_(whole), spec_(whole), provenance_(std::move(provenance)), begin_(begin) {
    spec_.n = count;
    provenance_["slice"] = {{"begin", begin}, {"count", count}};
  }
  const InputSpec& spec() const override { return spec_; }
  RangeMode default_range() const override { return RangeMode::given; }
  void fill_host(void* keys, void* vals) const override { generate_host_slice(whole_, begin_, spec_.n, keys, vals); }
  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    generate_device_slice(whole_, begin_, spec_.n, d_keys, d_vals, stream);
  }
  nlohmann::json provenance() const override { return provenance_; }
  std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const override {
    return std::make_shared<GeneratedSlice>(whole_, provenance_, begin_ + begin, count);
  }

 private:
  InputSpec whole_, spec_;
  nlohmann::json provenance_;
  std::uint64_t begin_;
};

class GeneratedSource : public InputSource, public std::enable_shared_from_this<GeneratedSource> {
 public:
  GeneratedSource(const InputSpec& spec, const InputRequest& request) : spec_(spec), request_(request) {}
  std::optional<std::string> why_no_shards() const override {
    if (needs_sorting(spec_.dist)) return sorted_distribution_reason(spec_.dist);
    return std::nullopt;
  }
  std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const override {
    if (begin == 0 && count == spec_.n) return shared_from_this();
    if (needs_sorting(spec_.dist)) throw UsageError(sorted_distribution_reason(spec_.dist));
    check_slice(begin, count, spec_.n);
    return std::make_shared<GeneratedSlice>(spec_, provenance(), begin, count);
  }
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

class ArraySource final : public InputSource {
 public:
  ArraySource(const InputShape& shape, const unsigned char* keys, const unsigned char* vals)
      : keys_(keys), vals_(vals) {
    spec_.n = shape.n;
    spec_.key = shape.key;
    spec_.payload = shape.payload;
    spec_.len = 0;
  }
  const InputSpec& spec() const override { return spec_; }
  RangeMode default_range() const override { return RangeMode::measured; }
  bool values_are_data() const override { return vals_ != nullptr; }
  bool parameters_measured() const override { return true; }
  void fill_host(void* keys, void* vals) const override {
    if (spec_.n) std::memcpy(keys, keys_, spec_.shape().key_column_bytes());
    if (vals && vals_ && spec_.n) std::memcpy(vals, vals_, spec_.shape().payload_column_bytes());
  }
  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    const InputShape shape = spec_.shape();
    if (spec_.n) SB_CUDA_CHECK(cudaMemcpyAsync(d_keys, keys_, shape.key_column_bytes(), cudaMemcpyHostToDevice, stream));
    if (d_vals && vals_ && spec_.n)
      SB_CUDA_CHECK(cudaMemcpyAsync(d_vals, vals_, shape.payload_column_bytes(), cudaMemcpyHostToDevice, stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  nlohmann::json provenance() const override {
    return {{"kind", "array"}, {"key", to_string(spec_.key)}, {"n", spec_.n}};
  }
  std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const override {
    check_slice(begin, count, spec_.n);
    return std::make_shared<ArraySource>(InputShape{count, spec_.key, spec_.payload},
                                         keys_ + begin * key_bytes(spec_.key),
                                         vals_ ? vals_ + begin * payload_bytes(spec_.payload) : nullptr);
  }

 private:
  InputSpec spec_;
  const unsigned char* keys_;
  const unsigned char* vals_;
};

// Issue 37: a column too large to pin is the user's size problem (exit 4, with the bytes), not an
// internal error.
void* pinned_allocate(std::size_t bytes) { return pinned_alloc(bytes, "the input file's columns"); }
void pinned_release(void* p) { pinned_free(p); }

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

void InputSource::check_slice(std::uint64_t begin, std::uint64_t count, std::uint64_t n) {
  if (begin > n || count > n - begin)
    throw std::logic_error(fmt::format("InputSource::slice: [{}, {}) is not inside the input's {} elements", begin,
                                       begin + count, n));
}

std::shared_ptr<const InputSource> InputSource::shard(int rank, int world) const {
  const std::uint64_t n = spec().n;
  return slice(slice_begin(rank, n, world), slice_size(rank, n, world));
}

void InputSource::read_range(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const {
  slice(first, count)->fill_host(keys, vals);
}

std::shared_ptr<const InputSource> make_array_source(const InputShape& shape, const void* keys, const void* vals) {
  return std::make_shared<ArraySource>(shape, static_cast<const unsigned char*>(keys),
                                       static_cast<const unsigned char*>(vals));
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
