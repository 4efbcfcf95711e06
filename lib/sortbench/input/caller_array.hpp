// A caller's arrays as an input source (docs/architecture.md, "One pipeline": the generator, a file
// and a caller's array are three sources; issue 39 item 1, the Python face). The arrays stay
// where the caller holds them, host or GPU memory, and are read only when a placement fills
// from them; what an array library calls an element type is mapped to a key type here, so the
// mapping and its messages are tested on the CPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/types.hpp"
#include "sortbench/input/input_source.hpp"

namespace sb {

// DLPack's element kinds (kDLInt, kDLUInt, kDLFloat; the rest: bool, complex, bfloat...).
enum class ArrayKind { signed_int, unsigned_int, floating, other };

// An array whose element type no key type is (the Python face raises TypeError for it).
struct ArrayTypeError : UsageError {
  using UsageError::UsageError;
};

// The key type of an array's elements; ArrayTypeError naming the supported dtypes otherwise.
// dtype: the element type as the caller's library spells it ("float16").
KeyType key_type_of_array(ArrayKind kind, unsigned bits, const std::string& dtype);
// The payload that carries a value column of 4- or 8-byte elements (any dtype, as bits).
Payload payload_of_values(unsigned bits, const std::string& dtype);
// argsort's positions for n keys: 32-bit up to 2^32 keys, the 64-bit encoding past them.
Payload positions_payload(std::uint64_t n);
// Positions as the payload encodes them (core/values.hpp) -> the int64 indices numpy.argsort returns.
void decode_positions(Payload payload, const void* encoded, std::uint64_t count, std::int64_t* out);
// UsageError naming the count and first position of NaN keys in host memory.
void refuse_nan_keys_in(KeyType key, const void* keys, std::uint64_t n, const std::string& role);

struct CallerArrays {
  InputShape shape;
  const void* keys = nullptr;
  const void* vals = nullptr;     // a value column (data: the verifier checks pairs), or null
  bool positions = false;         // argsort: the payload names input positions, made when filled
  int device = -1;                // the CUDA ordinal holding keys and vals; -1: host memory
  cudaStream_t producer = nullptr;  // the stream the caller's work on the arrays was queued on
};

// The memory must outlive the source. A device array's fill waits for its producer's stream
// (an event, not a device-wide sync) and copies device to device.
std::shared_ptr<const InputSource> make_caller_array_source(const CallerArrays& arrays);

}  // namespace sb
