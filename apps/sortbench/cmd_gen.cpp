// sortbench gen: generate one input, print its realized statistics, optionally save it. Issue 37
// item 5: the file is written in chunks through sink/chunked_write.hpp, under a temporary name
// renamed at the end, so an input larger than the host's (or the GPU's) memory can be saved; the
// bytes are those of a whole-column write.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/sink/chunked_write.hpp"
#include "sortbench/input/generator.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/input/input_source.hpp"

namespace sb::cli {
namespace {

struct GenOptions {
  InputOptions input;
  std::string output;
  DeviceOptions where;
};

// Key columns up to this size are also held whole on the host, where the statistics count the
// distinct keys by sorting a copy; larger ones are generated slice by slice as they are written
// (the distinct count then goes uncounted: it needs the whole column at once).
constexpr std::uint64_t kWholeHostBytes = std::uint64_t{256} << 20;

// The whole column on the GPU with the statistics' two scratch copies beside it, and a margin for
// CUB's temporary storage.
bool fits_on_device(std::uint64_t column_bytes) {
  std::size_t free_bytes = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return 3 * column_bytes + (std::uint64_t{64} << 20) <= free_bytes;
}

struct Generated {
  KeyFacts stats;  // len 0: not counted
  std::optional<std::uint64_t> file_bytes;
};

Generated generate_on_gpu(const InputSpec& spec, const std::string& output, const ChunkedWriteOptions& how) {
  const std::size_t width = key_bytes(spec.key);
  const std::uint64_t column_bytes = spec.n * width;
  Generated g;
  if (output.empty() || needs_sorting(spec.dist) || fits_on_device(column_bytes)) {
    DeviceBuffer d_keys(column_bytes);
    generate_device(spec, d_keys.get(), nullptr, nullptr);
    g.stats = input_stats_device(spec, d_keys.get(), nullptr);
    if (!output.empty()) {
      const auto* base = d_keys.as<const unsigned char>();
      g.file_bytes = write_keys_chunked(output, spec.key, spec.n,
                                        [&](std::uint64_t first, std::uint64_t count, void* keys) {
                                          SB_CUDA_CHECK(cudaMemcpy(keys, base + first * width, count * width,
                                                                   cudaMemcpyDeviceToHost));
                                        },
                                        how)
                         .file_bytes;
    }
    return g;
  }
  // Past the GPU's memory: each chunk generated on the GPU as its own slice.
  DeviceBuffer d_chunk(std::min(column_bytes, std::max<std::uint64_t>(how.chunk_bytes / width, 1) * width));
  const ChunkedWriteResult r = write_keys_chunked(
      output, spec.key, spec.n,
      [&](std::uint64_t first, std::uint64_t count, void* keys) {
        generate_device_slice(spec, first, count, d_chunk.get(), nullptr, nullptr);
        SB_CUDA_CHECK(cudaMemcpy(keys, d_chunk.get(), count * width, cudaMemcpyDeviceToHost));
      },
      how);
  g.stats = r.bounds;
  g.file_bytes = r.file_bytes;
  return g;
}

Generated generate_on_cpu(const InputSpec& spec, const std::string& output, const ChunkedWriteOptions& how) {
  const std::size_t width = key_bytes(spec.key);
  Generated g;
  // A sorted distribution is made by sorting the whole column: it is held whole at any size.
  if (output.empty() || needs_sorting(spec.dist) || spec.n * width <= kWholeHostBytes) {
    std::vector<unsigned char> keys(spec.n * width);
    generate_host(spec, keys.data(), nullptr);
    g.stats = input_stats_host(spec, keys.data());
    if (!output.empty())
      g.file_bytes = write_keys_chunked(output, spec.key, spec.n,
                                        [&](std::uint64_t first, std::uint64_t count, void* chunk) {
                                          std::memcpy(chunk, keys.data() + first * width, count * width);
                                        },
                                        how)
                         .file_bytes;
    return g;
  }
  const ChunkedWriteResult r = write_source_keys(*make_generated_source(spec), output, how);
  g.stats = r.bounds;
  g.file_bytes = r.file_bytes;
  return g;
}

int run_gen(const CLI::App& cmd, const GenOptions& o) {
  const InputSpec spec = derive_input_spec(to_request(cmd, o.input));
  const bool use_gpu = checked_backend(cmd, o.where) == Backend::gpu;
  if (!o.output.empty()) check_writable(o.output);
  if (use_gpu) use_device_option(o.where);
  // .npy (numpy.load reads it; run --input and sort take it back), else raw little-endian.
  const bool npy = guess_file_format(o.output) == FileFormat::npy;
  ChunkedWriteOptions how;
  how.format = npy ? FileFormat::npy : FileFormat::raw;
  how.progress_label = "gen";
  const Generated g = use_gpu ? generate_on_gpu(spec, o.output, how) : generate_on_cpu(spec, o.output, how);
  const KeyFacts& stats = g.stats;
  // Float keys print their extremes as keys (-inf, 0.75), not as the facts' clamped integers, and
  // where one is infinite the range, delta and sigma over [min, max] are not numbers at all.
  const auto extreme = [&](wide_t value, std::uint64_t ordered) -> std::pair<std::string, bool> {
    if (spec.n && spec.key == KeyType::f32) {
      const float k = KeyTraits<float>::from_ordered(static_cast<std::uint32_t>(ordered));
      return {fmt::format("{}", k), std::isfinite(k)};
    }
    if (spec.n && spec.key == KeyType::f64) {
      const double k = KeyTraits<double>::from_ordered(ordered);
      return {fmt::format("{}", k), std::isfinite(k)};
    }
    return {wide_text(value), true};
  };
  const auto [min_text, min_finite] = extreme(stats.min, stats.min_ordered);
  const auto [max_text, max_finite] = extreme(stats.max, stats.max_ordered);
  const double realized_range = static_cast<double>(stats.max - stats.min) + 1.0;
  std::cout << fmt::format(
      "generated on the {}\n"
      "n        {}\nkey      {}\ndist     {}\nseed     {}\n"
      "minVal   {}\nmaxVal   {}\nrange    {}\nlen      {}\ndelta    {:.6g}\nsigma    {:.6g}\n"
      "min      {}\nmax      {}\n",
      use_gpu ? "GPU" : "CPU", spec.n, to_string(spec.key), to_string(spec.dist), spec.seed, wide_text(spec.min_val),
      wide_text(spec.max_val), wide_text(spec.range), spec.len, spec.delta(), spec.sigma(), min_text, max_text);
  const double realized_delta = spec.n ? spec.n / realized_range : 0.0;
  if (!min_finite || !max_finite)
    std::cout << fmt::format("realized len {}; delta and sigma not defined: the keys reach an infinity\n",
                             stats.len ? fmt::format("{}", stats.len) : std::string("not counted"));
  else if (stats.len || spec.n == 0)
    std::cout << fmt::format("realized len {}, delta {:.6g}, sigma {:.6g} (over [min, max])\n", stats.len,
                             realized_delta, stats.len ? realized_range / stats.len : 0.0);
  else
    std::cout << fmt::format("realized delta {:.6g} (over [min, max]); len and sigma not counted: the keys were "
                             "written in chunks, never held whole\n",
                             realized_delta);
  if (g.file_bytes)
    std::cout << fmt::format("wrote {} bytes of {} {} keys to {}\n", *g.file_bytes, npy ? "npy" : "raw",
                             to_string(spec.key), o.output);
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
