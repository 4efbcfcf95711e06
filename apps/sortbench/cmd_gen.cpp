// sortbench gen: generate one input, print its realized statistics, optionally save it.
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/measure/device_info.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_file.hpp"

namespace sb::cli {
namespace {

struct GenOptions {
  InputOptions input;
  std::string output;
  DeviceOptions where;
};

int run_gen(const CLI::App& cmd, const GenOptions& o) {
  const InputSpec spec = derive_input_spec(to_request(cmd, o.input));
  const bool use_gpu = checked_backend(cmd, o.where) == Backend::gpu;
  if (!o.output.empty()) check_writable(o.output);
  if (use_gpu) use_device_option(o.where);
  std::vector<unsigned char> keys(spec.n * key_bytes(spec.key));
  KeyFacts stats;
  if (use_gpu) {
    DeviceBuffer d_keys(keys.size());
    generate_device(spec, d_keys.get(), nullptr, nullptr);
    stats = input_stats_device(spec, d_keys.get(), nullptr);
    if (!keys.empty()) SB_CUDA_CHECK(cudaMemcpy(keys.data(), d_keys.get(), keys.size(), cudaMemcpyDeviceToHost));
  } else {
    generate_host(spec, keys.data(), nullptr);
    stats = input_stats_host(spec, keys.data());
  }
  const double realized_range = static_cast<double>(stats.max - stats.min) + 1.0;
  std::cout << fmt::format(
      "generated on the {}\n"
      "n        {}\nkey      {}\ndist     {}\nseed     {}\n"
      "minVal   {}\nmaxVal   {}\nrange    {}\nlen      {}\ndelta    {:.6g}\nsigma    {:.6g}\n"
      "min      {}\nmax      {}\nrealized len {}, delta {:.6g}, sigma {:.6g} (over [min, max])\n",
      use_gpu ? "GPU" : "CPU", spec.n, to_string(spec.key), to_string(spec.dist), spec.seed, wide_text(spec.min_val),
      wide_text(spec.max_val), wide_text(spec.range), spec.len, spec.delta(), spec.sigma(), wide_text(stats.min),
      wide_text(stats.max), stats.len,
      spec.n ? spec.n / realized_range : 0.0, stats.len ? realized_range / stats.len : 0.0);
  if (!o.output.empty()) {
    // .npy (numpy.load reads it; run --input and sort take it back), else raw little-endian.
    const bool npy = guess_file_format(o.output) == FileFormat::npy;
    const std::string header = npy ? npy_header(spec.key, spec.n) : std::string();
    write_file_atomically(o.output, header + std::string(keys.begin(), keys.end()));
    std::cout << fmt::format("wrote {} bytes of {} {} keys to {}\n", header.size() + keys.size(),
                             npy ? "npy" : "raw", to_string(spec.key), o.output);
  }
  return 0;
}

}  // namespace

Command add_gen(CLI::App& app) {
  auto* cmd = app.add_subcommand("gen", "generate one input and print its realized statistics");
  auto o = std::make_shared<GenOptions>();
  add_input_options(*cmd, o->input);
  cmd->add_option("-o,--output", o->output,
                  "write the keys to FILE: .npy (NumPy) by extension, else raw little-endian binary");
  add_renamed_option(*cmd, "--out", "-o/--output");
  add_backend_option(*cmd, o->where);
  add_device_option(*cmd, o->where);
  return {cmd, [cmd, o] { return run_gen(*cmd, *o); }};
}

}  // namespace sb::cli
