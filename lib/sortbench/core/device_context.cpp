// Device contexts (device_context.hpp).
#include "sortbench/core/device_context.hpp"

#include "sortbench/core/cuda_check.hpp"

namespace sb {

DeviceContext make_device_context(int ordinal, cudaStream_t stream) {
  DeviceContext c;
  c.ordinal = ordinal;
  SB_CUDA_CHECK(cudaGetDeviceProperties(&c.props, ordinal));
  c.stream = stream;
  return c;
}

DeviceContext current_device_context(cudaStream_t stream) {
  int ordinal = 0;
  SB_CUDA_CHECK(cudaGetDevice(&ordinal));
  return make_device_context(ordinal, stream);
}

}  // namespace sb
