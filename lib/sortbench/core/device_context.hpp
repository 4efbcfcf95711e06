// The device a run executes on, passed to every algorithm instead of device state kept in
// statics (../shared/docs/design.md, item 3): with several GPUs in one process each rank has
// its own context, and a fact cached for the first GPU would be wrong for the second.
#pragma once

#include <cuda_runtime_api.h>

namespace sb {

struct DeviceContext {
  int ordinal = 0;          // the CUDA device; the caller has made it current
  cudaDeviceProp props{};   // its properties, queried once when the context is made
  cudaStream_t stream = nullptr;
  // A distributed run: this rank of `world` ranks and their NCCL communicator (an ncclComm_t,
  // kept opaque so that lib and the single-GPU families need no NCCL headers).
  int rank = 0;
  int world = 1;
  void* comm = nullptr;
};

// The context of device `ordinal` on `stream`; queries its properties without making it the
// current device.
DeviceContext make_device_context(int ordinal, cudaStream_t stream);
// The context of the current device.
DeviceContext current_device_context(cudaStream_t stream);

}  // namespace sb
