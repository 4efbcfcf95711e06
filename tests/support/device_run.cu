// run_device_once: the harness's protocol for one sample, without timing; and the same run
// on keys made on the host.
#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/generator.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

// Runs algo on keys0 (and vals0) with poisoned scratch buffers, so an unwritten output
// cannot pass as sorted; b gets the buffers it ran on. Returns which of them holds the result.
int run_with_scratch(const Algorithm& algo, const SortProblem& problem, DeviceBuffer& keys0, DeviceBuffer& keys1,
                     DeviceBuffer& vals0, DeviceBuffer& vals1, DeviceBuffers& b) {
  if (keys1.bytes()) SB_CUDA_CHECK(cudaMemset(keys1.get(), 0xA5, keys1.bytes()));
  if (vals1.bytes()) SB_CUDA_CHECK(cudaMemset(vals1.get(), 0xA5, vals1.bytes()));
  const DeviceContext device = current_device_context(nullptr);
  SortProblem on_device = problem;
  on_device.device = &device;
  DeviceBuffer workspace(algo.workspace_bytes(on_device));
  algo.prepare_on(on_device, device);
  b.keys[0] = keys0.get();
  b.keys[1] = keys1.get();
  b.vals[0] = vals0.get();
  b.vals[1] = vals1.get();
  b.workspace = workspace.get();
  b.workspace_bytes = workspace.bytes();
  b.device = &device;
  const int result = algo.run_device(on_device, b);
  SB_CUDA_CHECK(cudaGetLastError());
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  return result;
}

}  // namespace

Outcome run_device_once(const Algorithm& algo, const InputSpec& spec, const Params& params) {
  Outcome out;
  const std::size_t kb = spec.n * key_bytes(spec.key);
  const std::size_t vb = spec.n * payload_bytes(spec.payload);
  DeviceBuffer input(kb), keys0(kb), keys1(kb), vals0(vb), vals1(vb);
  generate_device(spec, input.get(), vals0.get(), nullptr);
  const InputStats stats = input_stats_device(spec, input.get(), nullptr);
  SortProblem problem{spec, stats, params};
  if (auto why = algo.why_unsupported(problem)) {
    out.unsupported = *why;
    return out;
  }
  if (kb) SB_CUDA_CHECK(cudaMemcpy(keys0.get(), input.get(), kb, cudaMemcpyDeviceToDevice));
  DeviceBuffers b;
  const int result = run_with_scratch(algo, problem, keys0, keys1, vals0, vals1, b);
  VerifyInput v;
  v.key = spec.key;
  v.payload = spec.payload;
  v.n = spec.n;
  v.keys_in = input.get();
  v.keys_out = b.keys[result];
  v.vals_out = vb ? b.vals[result] : nullptr;
  v.check_stable = algo.stable;
  out.verify = verify_device(v, nullptr);
  out.keys.resize(kb);
  if (kb) SB_CUDA_CHECK(cudaMemcpy(out.keys.data(), b.keys[result], kb, cudaMemcpyDeviceToHost));
  out.vals.resize(vb);
  if (vb) SB_CUDA_CHECK(cudaMemcpy(out.vals.data(), b.vals[result], vb, cudaMemcpyDeviceToHost));
  return out;
}

void sort_host_keys_on_device(const Algorithm& algo, const SortProblem& problem, void* keys, void* vals) {
  const std::size_t kb = problem.spec.n * key_bytes(problem.spec.key);
  const std::size_t vb = vals ? problem.spec.n * payload_bytes(problem.spec.payload) : 0;
  DeviceBuffer keys0(kb), keys1(kb), vals0(vb), vals1(vb);
  if (kb) SB_CUDA_CHECK(cudaMemcpy(keys0.get(), keys, kb, cudaMemcpyHostToDevice));
  if (vb) SB_CUDA_CHECK(cudaMemcpy(vals0.get(), vals, vb, cudaMemcpyHostToDevice));
  DeviceBuffers b;
  const int result = run_with_scratch(algo, problem, keys0, keys1, vals0, vals1, b);
  if (kb) SB_CUDA_CHECK(cudaMemcpy(keys, b.keys[result], kb, cudaMemcpyDeviceToHost));
  if (vb) SB_CUDA_CHECK(cudaMemcpy(vals, b.vals[result], vb, cudaMemcpyDeviceToHost));
}

}  // namespace sb::test
