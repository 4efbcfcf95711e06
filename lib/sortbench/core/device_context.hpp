// The device a run executes on, passed to every algorithm instead of device state kept in
// statics (docs/architecture.md, "Devices and contexts"): with several GPUs in one process each rank has
// its own context, and a fact cached for the first GPU would be wrong for the second.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include <cuda_runtime_api.h>

#include "sortbench/core/choice_profile.hpp"

namespace sb {

// Facts about kernels on one device, asked of CUDA once and kept with the device's context
// (issue 35 item 3): a launch shape read inside a timed region then costs a map lookup, not a
// CUDA query. Also the runtime limits an algorithm's prepare raised, with the values it found,
// for its release to put back. Every call acts on the current device, which the context's
// owner has made this one. Safe to share between threads.
class KernelFacts {
 public:
  // cudaFuncGetAttributes of `kernel`, asked once.
  cudaFuncAttributes attributes(const void* kernel);
  // Blocks of `kernel` one SM holds at once with `threads` threads a block and `dynamic_smem`
  // bytes of dynamic shared memory (cudaOccupancyMaxActiveBlocksPerMultiprocessor), asked once.
  int blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_smem);
  // Lets `kernel` take up to `bytes` of dynamic shared memory: sets the attribute only where no
  // larger value was set through this memo (the limit is only ever raised), and forgets the
  // kernel's attributes and occupancy when it does.
  void allow_dynamic_smem(const void* kernel, std::size_t bytes);
  // Keeps `found`, the value of `limit` before a prepare raised it, unless a value is kept
  // already (a second raise before the release would otherwise keep the first raise's value).
  void keep_limit(cudaLimit limit, std::size_t found);
  // The value kept for `limit`, forgotten here: what a release puts back (none: not raised).
  std::optional<std::size_t> take_limit(cudaLimit limit);

 private:
  std::mutex mutex_;
  std::map<const void*, cudaFuncAttributes> attributes_;
  std::map<std::tuple<const void*, int, std::size_t>, int> occupancy_;
  std::map<const void*, std::size_t> dynamic_smem_;
  std::map<cudaLimit, std::size_t> found_limits_;
};

struct DeviceContext {
  int ordinal = 0;          // the CUDA device; the caller has made it current
  cudaDeviceProp props{};   // its properties, queried once when the context is made
  cudaStream_t stream = nullptr;
  // A distributed run: this rank of `world` ranks and their NCCL communicator (an ncclComm_t,
  // kept opaque so that lib and the single-GPU families need no NCCL headers).
  int rank = 0;
  int world = 1;
  void* comm = nullptr;
  // The device's kernel facts: made with the context, shared by its copies, never by two
  // devices' contexts (null in a context not made by make_device_context).
  std::shared_ptr<KernelFacts> kernels;
  // The profile this device's automatic choices read (choice_profile.hpp), resolved once per GPU
  // model under the process's policy, and the rule its rows record: "profile:<file>" or "default".
  std::shared_ptr<const ChoiceProfile> profile;
  std::string rule = "default";
};

// The context of device `ordinal` on `stream`; queries its properties without making it the
// current device.
DeviceContext make_device_context(int ordinal, cudaStream_t stream);
// The context of the current device.
DeviceContext current_device_context(cudaStream_t stream);

// What a family reads about `device`, from its context's memo; where there is no context or no
// memo (a support check on the CPU side, a caller that passes none), asked of the current
// device now.
cudaFuncAttributes kernel_attributes(const DeviceContext* device, const void* kernel);
int kernel_blocks_per_sm(const DeviceContext* device, const void* kernel, int threads, std::size_t dynamic_smem);
void allow_kernel_dynamic_smem(const DeviceContext* device, const void* kernel, std::size_t bytes);
int multiprocessor_count(const DeviceContext* device);

}  // namespace sb
