// The bitonic family: the schedules of seed 003's table (compute-shader article, B2 ...
// B2B4B8B16C2C4, B2B4B8B16) and seed 000's bitonic split, one registered algorithm each, with
// the seeds' 32-bit keys and index payload; and ours (bitonic-b32c16, bitonic-b32c4), which
// take every scalar key type and value column.
#include <cctype>
#include <string>

#include "bitonic_sort.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb {
namespace {

// "b2b4c2" as the article writes it: B2B4C2.
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void register_bitonic(Registry& r) {
  for (const bitonic::Schedule& s : bitonic::schedules()) {
    Algorithm a;
    a.name = s.name;
    a.family = "bitonic";
    a.backend = Backend::gpu;
    a.stable = false;
    a.constraints = s.all_types ? "f32 and f64 keys without NaN; n padded to a power of two with the largest key "
                                  "(floats: +inf)"
                                : "f32 keys without NaN; n padded to a power of two with the largest key (f32: +inf)";
    a.role = s.all_types ? AlgorithmRole::fast_variant : AlgorithmRole::reproduction;
    if (!s.all_types)
      a.pick_when = s.split ? "seed 000's bitonic split kernel for every step: to set beside the textbook"
                            : "the article's schedule " + upper(s.name.substr(8)) + ": to reproduce its timing table";
    else if (s.shared_round == 4)
      a.pick_when = "a sorting network (its time does not depend on the data): our fastest bitonic schedule";
    else
      a.pick_when = "beside bitonic-b32c16, to see what its 4-step shared-memory rounds gain";
    a.source = s.split ? "seed 000 (OpenCL textbook 14.4, bitonic split kernel)"
                       : "seed 003 (compute-shader bitonic sort article), schedule " + s.name.substr(8);
    a.params = s.shared ? std::vector<std::string>{"tile", "block", "shared_block", "round"} : std::vector<std::string>{"block"};
    a.unsupported = [s](const SortProblem& p) { return bitonic::unsupported_reason(s, p); };
    a.workspace_bytes = [](const SortProblem& p) { return bitonic::workspace_bytes(p); };
    const auto run = [s](auto b, const SortProblem& p) { return bitonic::sort_device(s, p, b); };
    if (s.all_types)
      set_device_run<bitonic::AllTypesKeys, bitonic::AllTypesValues>(a, run);
    else
      set_device_run<bitonic::SeedKeys, bitonic::SeedValues>(a, run);
    a.details = [s](const SortProblem& p) { return bitonic::details(s, p); };
    r.add(a);
  }
}

}  // namespace sb
