// Argsort's positions on the device (issue 39: a device array's argsort never leaves the GPU):
// the sorted column of input positions (made by input/generator.hpp's generate_values_device)
// decoded into the int64 indices numpy.argsort returns. The encoding is core/values.hpp's, as
// the host twins in input/caller_array.hpp use it.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "sortbench/core/types.hpp"

namespace sb {

// out[i] = the position encoded[i] names, as int64; queued on stream.
void decode_positions_device(Payload payload, const void* encoded, std::uint64_t n, std::int64_t* out,
                             cudaStream_t stream);

}  // namespace sb
