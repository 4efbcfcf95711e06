// A caller's arrays as an input source (caller_array.hpp; issue 39 item 1).
#include "sortbench/input/caller_array.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/stream_order.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/values.hpp"
#include "sortbench/input/input_file.hpp"

namespace sb {
namespace {

constexpr const char* kSupported = "int32, uint32, int64, uint64, float32, float64";

void encode_positions_into(Payload payload, std::uint64_t begin, std::uint64_t count, void* out) {
  dispatch_value(payload, [&](auto v) {
    using V = decltype(v);
    if constexpr (!std::is_same_v<V, NoValue>) {
      V* o = static_cast<V*>(out);
      for (std::uint64_t i = 0; i < count; ++i) o[i] = encode_value<V>(payload, begin + i);
    }
  });
}

// The fingerprint of a caller's column (issue 47 item 2): two rows are the same input only when
// their arrays hold the same bytes. Hashed in chunks, so a device array is read through a host
// buffer of one chunk and host and device arrays of the same content agree.
std::uint64_t column_fingerprint(const void* column, std::uint64_t bytes, int device, cudaStream_t producer) {
  constexpr std::uint64_t kChunk = std::uint64_t{64} << 20;
  std::vector<std::uint64_t> chunk_hashes{bytes};
  std::vector<unsigned char> staging(device < 0 ? 0 : static_cast<std::size_t>(std::min(bytes, kChunk)));
  if (device >= 0 && producer) SB_CUDA_CHECK(cudaStreamSynchronize(producer));
  const auto* b = static_cast<const unsigned char*>(column);
  for (std::uint64_t done = 0; done < bytes; done += kChunk) {
    const auto m = static_cast<std::size_t>(std::min(kChunk, bytes - done));
    const void* chunk = b + done;
    if (device >= 0) {
      SB_CUDA_CHECK(cudaMemcpy(staging.data(), chunk, m, cudaMemcpyDeviceToHost));
      chunk = staging.data();
    }
    chunk_hashes.push_back(content_hash64(chunk, m));
  }
  return content_hash64(chunk_hashes.data(), chunk_hashes.size() * sizeof(std::uint64_t));
}

class CallerArraySource final : public InputSource {
 public:
  CallerArraySource(const CallerArrays& a, std::uint64_t first_position) : a_(a), first_(first_position) {
    spec_.n = a.shape.n;
    spec_.key = a.shape.key;
    spec_.payload = a.shape.payload;
    spec_.len = 0;
  }
  const InputSpec& spec() const override { return spec_; }
  // Nobody hands a user's sort its range: as for a file.
  RangeMode default_range() const override { return RangeMode::measured; }
  bool values_are_data() const override { return a_.vals != nullptr && !a_.positions; }
  bool parameters_measured() const override { return true; }

  void fill_host(void* keys, void* vals) const override {
    const InputShape shape = spec_.shape();
    if (!spec_.n) return;
    if (a_.device < 0) {
      std::memcpy(keys, a_.keys, shape.key_column_bytes());
      if (vals && a_.vals) std::memcpy(vals, a_.vals, shape.payload_column_bytes());
    } else {
      if (a_.producer) SB_CUDA_CHECK(cudaStreamSynchronize(a_.producer));
      SB_CUDA_CHECK(cudaMemcpy(keys, a_.keys, shape.key_column_bytes(), cudaMemcpyDeviceToHost));
      if (vals && a_.vals)
        SB_CUDA_CHECK(cudaMemcpy(vals, a_.vals, shape.payload_column_bytes(), cudaMemcpyDeviceToHost));
    }
    if (vals && a_.positions) encode_positions_into(spec_.payload, first_, spec_.n, vals);
  }

  void fill_device(void* d_keys, void* d_vals, cudaStream_t stream) const override {
    const InputShape shape = spec_.shape();
    if (!spec_.n) return;
    const cudaMemcpyKind kind = a_.device < 0 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice;
    // The producer's queued work comes first, without stopping the rest of the device.
    if (a_.device >= 0 && a_.producer) stream_waits_for(stream, a_.producer);
    SB_CUDA_CHECK(cudaMemcpyAsync(d_keys, a_.keys, shape.key_column_bytes(), kind, stream));
    if (d_vals && a_.vals && !a_.positions)
      SB_CUDA_CHECK(cudaMemcpyAsync(d_vals, a_.vals, shape.payload_column_bytes(), kind, stream));
    if (d_vals && a_.positions) {
      std::vector<unsigned char> host(shape.payload_column_bytes());
      encode_positions_into(spec_.payload, first_, spec_.n, host.data());
      SB_CUDA_CHECK(cudaMemcpyAsync(d_vals, host.data(), host.size(), cudaMemcpyHostToDevice, stream));
      SB_CUDA_CHECK(cudaStreamSynchronize(stream));  // host is freed on return
    }
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  nlohmann::json provenance() const override {
    nlohmann::json j = {{"kind", "array"}, {"key", to_string(spec_.key)}, {"n", spec_.n},
                        {"memory", a_.device < 0 ? "host" : "device"}};
    if (a_.device >= 0) j["device"] = a_.device;
    if (!fingerprint_) {
      const InputShape shape = spec_.shape();
      fingerprint_ = fmt::format("fast64:{:016x}",
                                 column_fingerprint(a_.keys, shape.key_column_bytes(), a_.device, a_.producer));
      if (values_are_data())
        values_fingerprint_ = fmt::format(
            "fast64:{:016x}", column_fingerprint(a_.vals, shape.payload_column_bytes(), a_.device, a_.producer));
    }
    j["fingerprint"] = *fingerprint_;
    if (values_fingerprint_) j["values_fingerprint"] = *values_fingerprint_;
    return j;
  }

  std::shared_ptr<const InputSource> slice(std::uint64_t begin, std::uint64_t count) const override {
    check_slice(begin, count, spec_.n);
    CallerArrays part = a_;
    part.shape.n = count;
    part.keys = static_cast<const unsigned char*>(a_.keys) + begin * key_bytes(spec_.key);
    if (a_.vals && !a_.positions)
      part.vals = static_cast<const unsigned char*>(a_.vals) + begin * payload_bytes(spec_.payload);
    // Positions stay those of the whole array.
    return std::make_shared<CallerArraySource>(part, first_ + begin);
  }

 private:
  CallerArrays a_;
  std::uint64_t first_;
  InputSpec spec_;
  // Hashed once, when the first row describes its input.
  mutable std::optional<std::string> fingerprint_, values_fingerprint_;
};

}  // namespace

KeyType key_type_of_array(ArrayKind kind, unsigned bits, const std::string& dtype) {
  if (bits == 32 || bits == 64) {
    const bool wide = bits == 64;
    switch (kind) {
      case ArrayKind::signed_int: return wide ? KeyType::i64 : KeyType::i32;
      case ArrayKind::unsigned_int: return wide ? KeyType::u64 : KeyType::u32;
      case ArrayKind::floating: return wide ? KeyType::f64 : KeyType::f32;
      case ArrayKind::other: break;
    }
  }
  throw ArrayTypeError(fmt::format("keys of dtype {} cannot be sorted; give one of {}", dtype, kSupported));
}

Payload payload_of_values(unsigned bits, const std::string& dtype) {
  if (bits == 32) return Payload::u32;
  if (bits == 64) return Payload::u64;
  throw ArrayTypeError(fmt::format("values of dtype {} cannot ride along; give a 4- or 8-byte dtype (e.g. int32, "
                                   "int64, float64)",
                                   dtype));
}

Payload positions_payload(std::uint64_t n) { return n <= (std::uint64_t{1} << 32) ? Payload::index : Payload::u64; }

void decode_positions(Payload payload, const void* encoded, std::uint64_t count, std::int64_t* out) {
  dispatch_value(payload, [&](auto v) {
    using V = decltype(v);
    if constexpr (!std::is_same_v<V, NoValue>) {
      const V* in = static_cast<const V*>(encoded);
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t position = 0;
        decode_value<V>(payload, in[i], position);
        out[i] = static_cast<std::int64_t>(position);
      }
    }
  });
}

void refuse_nan_keys_in(KeyType key, const void* keys, std::uint64_t n, const std::string& role) {
  const NanReport nans = find_nans(key, keys, n);
  if (nans.count)
    throw UsageError(fmt::format("{}: {} NaN keys, the first at position {}; NaN has no place in an order: remove "
                                 "them or replace them",
                                 role, nans.count, nans.first));
}

std::shared_ptr<const InputSource> make_caller_array_source(const CallerArrays& arrays) {
  return std::make_shared<CallerArraySource>(arrays, 0);
}

}  // namespace sb
