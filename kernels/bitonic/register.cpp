// The bitonic family: the schedules of seed 003's table (compute-shader article, B2 ...
// B2B4B8B16C2C4, B2B4B8B16) and seed 000's bitonic split, one registered algorithm each.
#include "bitonic_sort.hpp"
#include "sortbench/registry.hpp"

namespace sb {

void register_bitonic(Registry& r) {
  for (const bitonic::Schedule& s : bitonic::schedules()) {
    Algorithm a;
    a.name = s.name;
    a.family = "bitonic";
    a.backend = Backend::gpu;
    declare_types<Keys32, TypeList<NoValue, std::uint32_t>>(a);
    a.stable = false;
    a.constraints = "f32 keys without NaN; n padded to a power of two with sentinels";
    a.source = s.split ? "seed 000 (OpenCL textbook 14.4, bitonic split kernel)"
                       : "seed 003 (compute-shader bitonic sort article), schedule " + s.name.substr(8);
    a.params = s.shared ? std::vector<std::string>{"tile", "block", "shared_block", "round"} : std::vector<std::string>{"block"};
    a.unsupported = [s](const SortProblem& p) { return bitonic::unsupported_reason(s, p); };
    a.workspace_bytes = [](const SortProblem& p) { return bitonic::workspace_bytes(p); };
    a.run_device = [s](const SortProblem& p, const DeviceBuffers& b) { return bitonic::sort_device(s, p, b); };
    a.details = [s](const SortProblem& p) { return bitonic::details(s, p); };
    r.add(a);
  }
}

}  // namespace sb
