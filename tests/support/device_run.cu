// run_device_once: one sample of the harness's session loop (time_device); and the same run
// on keys made on the host.
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/measure/harness.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {
namespace {

// One sample of the harness's own session loop (time_device: input restored into keys0/vals0,
// scratch poisoned, the sort run once) on the pristine input, on the current device (prepared
// first, as the harness does); b gets the buffers it ran on. Returns which of them holds the
// result.
int run_with_scratch(const Algorithm& algo, const SortProblem& problem, const DeviceInput& pristine,
                     DeviceBuffer& keys0, DeviceBuffer& keys1, DeviceBuffer& vals0, DeviceBuffer& vals1,
                     DeviceBuffers& b) {
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
  const SortTiming timing = time_device(algo, on_device, pristine, b, single_sample_settings());
  SB_CUDA_CHECK(cudaGetLastError());
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  return timing.result;
}

}  // namespace

Outcome run_device_once(const Algorithm& algo, const InputSpec& spec, const Params& params) {
  Outcome out;
  const std::size_t kb = spec.n * key_bytes(spec.key);
  const std::size_t vb = spec.n * payload_bytes(spec.payload);
  DeviceBuffer input(kb), input_vals(vb), keys0(kb), keys1(kb), vals0(vb), vals1(vb);
  generate_device(spec, input.get(), input_vals.get(), nullptr);
  const KeyFacts stats = input_stats_device(spec, input.get(), nullptr);
  SortProblem problem{spec.shape(), stats, params};
  if (auto why = algo.why_unsupported(problem)) {
    out.unsupported = *why;
    return out;
  }
  DeviceBuffers b;
  const int result =
      run_with_scratch(algo, problem, {input.get(), vb ? input_vals.get() : nullptr}, keys0, keys1, vals0, vals1, b);
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
  const std::size_t kb = problem.shape.n * key_bytes(problem.shape.key);
  const std::size_t vb = vals ? problem.shape.n * payload_bytes(problem.shape.payload) : 0;
  DeviceBuffer input(kb), input_vals(vb), keys0(kb), keys1(kb), vals0(vb), vals1(vb);
  if (kb) SB_CUDA_CHECK(cudaMemcpy(input.get(), keys, kb, cudaMemcpyHostToDevice));
  if (vb) SB_CUDA_CHECK(cudaMemcpy(input_vals.get(), vals, vb, cudaMemcpyHostToDevice));
  DeviceBuffers b;
  const int result =
      run_with_scratch(algo, problem, {input.get(), vb ? input_vals.get() : nullptr}, keys0, keys1, vals0, vals1, b);
  if (kb) SB_CUDA_CHECK(cudaMemcpy(keys, b.keys[result], kb, cudaMemcpyDeviceToHost));
  if (vb) SB_CUDA_CHECK(cudaMemcpy(vals, b.vals[result], vb, cudaMemcpyDeviceToHost));
}

}  // namespace sb::test
