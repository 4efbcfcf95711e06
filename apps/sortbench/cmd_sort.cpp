// sortbench sort IN -o OUT: sort a user's file (GPU or CPU), verify, write in the input's format.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/suite/sort_file.hpp"

namespace sb::cli {
namespace {

struct SortOptions {
  std::string input, output, values_out, key, algo = "auto", backend = "gpu";
  FileOptions file;
  bool argsort = false, quiet = false;
};

int run_sort(const CLI::App& cmd, const SortOptions& o) {
  SortFileRequest q;
  q.input = to_file_request(cmd, o.file, o.input, o.key, "input");
  q.output = o.output;
  if (!o.file.values.empty()) {
    q.values = to_file_request(cmd, o.file, o.file.values, o.key, "--values");
    // --key, --format, --column and --offset describe the key file; the value file says
    // what it is by its extension and its own header (.npy or text).
    q.values->key.reset();
    q.values->format.reset();
    q.values->column.clear();
    q.values->offset = 0;
  }
  q.values_output = o.values_out;
  q.argsort = o.argsort;
  q.algo = o.algo;
  q.backend = *parse_backend(o.backend);
  const SortFileReport r = sort_file(q);
  if (!o.quiet) {
    std::cout << fmt::format("sorted {} {} keys with {}{}\n", r.n, to_string(r.key), r.algorithm,
                             r.why.empty() ? "" : " (auto: " + r.why + ")");
    double total = 0;
    for (const auto& [phase, ms] : r.phases_ms) {
      std::string rate;
      if (phase == "read" && ms > 0) rate = fmt::format("  {:.2f} GB/s", r.bytes_read / ms / 1e6);
      if (phase == "write" && ms > 0) rate = fmt::format("  {:.2f} GB/s", r.bytes_written / ms / 1e6);
      std::cout << fmt::format("  {:<15} {:>10.3f} ms{}\n", phase, ms, rate);
      total += ms;
    }
    std::cout << fmt::format("  {:<15} {:>10.3f} ms\nverified on the {} (sorted, same multiset); wrote {}{}\n", "total",
                             total, r.verified_on, o.output, o.values_out.empty() ? "" : " and " + o.values_out);
  }
  return 0;
}

}  // namespace

Command add_sort(CLI::App& app) {
  auto* cmd = app.add_subcommand("sort", "sort a file's keys (.npy, raw, text/CSV), verify, and write them");
  auto o = std::make_shared<SortOptions>();
  cmd->add_option("input", o->input, "the file to sort")->required();
  cmd->add_option("-o,--output", o->output, "where to write the sorted keys (the input's format)")->required();
  add_file_options(*cmd, o->file);
  cmd->add_option("--values-out", o->values_out, "with --values: where to write the values in the keys' new order");
  cmd->add_option("--key", o->key, "key type: " + key_type_choices() + " (raw: required; .npy: must agree)");
  cmd->add_option("--algo", o->algo, "an algorithm name, or auto (chosen from the measured input)")
      ->capture_default_str();
  cmd->add_option("--backend", o->backend, "gpu, or cpu (no GPU used at all)")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  cmd->add_flag("--argsort", o->argsort, "write the sorting permutation (u32, or u64 past 2^32 keys) instead of keys");
  cmd->add_flag("--quiet", o->quiet, "print nothing on success");
  return {cmd, [cmd, o] { return run_sort(*cmd, *o); }};
}

}  // namespace sb::cli
