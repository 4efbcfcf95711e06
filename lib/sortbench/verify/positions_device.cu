// Argsort's positions on the device (positions_device.hpp; issue 39).
#include "sortbench/verify/positions_device.hpp"

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/values.hpp"

namespace sb {
namespace {

constexpr unsigned kThreads = 256;

template <typename V>
__global__ void decode_positions_kernel(Payload payload, const V* in, std::uint64_t n, std::int64_t* out) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t position = 0;
    decode_value<V>(payload, in[i], position);
    out[i] = static_cast<std::int64_t>(position);
  }
}

unsigned blocks_for(std::uint64_t n) {
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 ? (b ? b : 1) : 65535);  // grid-stride past that
}

}  // namespace

void decode_positions_device(Payload payload, const void* encoded, std::uint64_t n, std::int64_t* out,
                             cudaStream_t stream) {
  if (!n) return;
  if (payload_bytes(payload) == 8)
    decode_positions_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        payload, static_cast<const std::uint64_t*>(encoded), n, out);
  else
    decode_positions_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        payload, static_cast<const std::uint32_t*>(encoded), n, out);
  SB_CUDA_CHECK_LAUNCH();
}

}  // namespace sb
