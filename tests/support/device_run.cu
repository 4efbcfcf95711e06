// run_device_once: the harness's protocol for one sample, without timing.
#include "sortbench/cuda_check.hpp"
#include "sortbench/device_buffer.hpp"
#include "sortbench/generator.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {

Outcome run_device_once(const Algorithm& algo, const InputSpec& spec, const Params& params) {
  Outcome out;
  const std::size_t kb = spec.n * key_bytes(spec.key);
  const std::size_t vb = spec.payload == Payload::index ? spec.n * sizeof(index_t) : 0;
  DeviceBuffer input(kb), keys0(kb), keys1(kb), vals0(vb), vals1(vb);
  generate_device(spec, input.get(), vals0.as<index_t>(), nullptr);
  const InputStats stats = input_stats_device(spec, input.get(), nullptr);
  SortProblem problem{spec, stats, params};
  if (auto why = algo.why_unsupported(problem)) {
    out.unsupported = *why;
    return out;
  }
  if (kb) SB_CUDA_CHECK(cudaMemcpy(keys0.get(), input.get(), kb, cudaMemcpyDeviceToDevice));
  // Poison the scratch buffers so an unwritten output cannot pass as sorted.
  if (kb) SB_CUDA_CHECK(cudaMemset(keys1.get(), 0xA5, kb));
  if (vb) SB_CUDA_CHECK(cudaMemset(vals1.get(), 0xA5, vb));
  DeviceBuffer workspace(algo.workspace_bytes(problem));
  DeviceBuffers b;
  b.keys[0] = keys0.get();
  b.keys[1] = keys1.get();
  b.vals[0] = vals0.as<index_t>();
  b.vals[1] = vals1.as<index_t>();
  b.workspace = workspace.get();
  b.workspace_bytes = workspace.bytes();
  const int result = algo.run_device(problem, b);
  SB_CUDA_CHECK(cudaGetLastError());
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  VerifyInput v;
  v.key = spec.key;
  v.n = spec.n;
  v.keys_in = input.get();
  v.keys_out = b.keys[result];
  v.vals_out = vb ? b.vals[result] : nullptr;
  v.check_stable = algo.stable;
  out.verify = verify_device(v, nullptr);
  out.keys.resize(kb);
  if (kb) SB_CUDA_CHECK(cudaMemcpy(out.keys.data(), b.keys[result], kb, cudaMemcpyDeviceToHost));
  out.vals.resize(spec.n * (vb ? 1 : 0));
  if (vb) SB_CUDA_CHECK(cudaMemcpy(out.vals.data(), b.vals[result], vb, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace sb::test
