// run_device_once and sort_host_keys_on_device: one sample of an algorithm through the same
// Session a benchmark uses (session/session.hpp: the input placed on the device, restored
// into the work buffers, scratch poisoned, the sort run once and verified), its output kept
// by an output sink (test_support.cpp's run_once).
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/session/session.hpp"
#include "support/sortbench_test.hpp"

namespace sb::test {

Outcome run_device_once(const Algorithm& algo, const InputSpec& spec, const Params& params) {
  return run_generated_once(PlacementKind::device, algo, spec, params);
}

DeviceInput::DeviceInput(const InputSpec& spec) {
  const TraceTimer timer;
  session_ = std::make_unique<Session>(make_generated_source(spec), generated_options(PlacementKind::device));
  timer.say("input placed on the GPU");
}

DeviceInput::~DeviceInput() = default;

Outcome DeviceInput::run(const Algorithm& algo, const Params& params) { return run_in(*session_, algo, params); }

void sort_host_keys_on_device(const Algorithm& algo, const SortProblem& problem, void* keys, void* vals) {
  InputShape shape = problem.shape;
  if (!vals) shape.payload = Payload::none;
  SessionOptions options;
  options.placement = PlacementKind::device;
  options.range = problem.range;
  options.given_facts = problem.facts;
  Session session(make_array_source(shape, keys, vals), options);
  std::vector<unsigned char> out_keys, out_vals;
  const ResultRow row = run_once(session, algo, problem.params, out_keys, out_vals);
  SB_CUDA_CHECK(cudaDeviceSynchronize());
  if (row.status == RowStatus::unsupported) throw std::runtime_error(algo.name + " declined: " + row.reason);
  std::copy(out_keys.begin(), out_keys.end(), static_cast<unsigned char*>(keys));
  if (vals) std::copy(out_vals.begin(), out_vals.end(), static_cast<unsigned char*>(vals));
}

}  // namespace sb::test
