// The radix family's registration: radix-lsd-seed and radix-lsd (issue 5; seed 001). Each
// run is written once over (K, V); set_device_run declares the same type lists that `list`
// shows and the harness checks.
#include "radix.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb {
namespace {

radix::PassPlan checked_plan(const SortProblem& p) { return radix::pass_plan(p); }  // throws on bad radix-bits

Details pass_details(const SortProblem& p) {
  const radix::PassPlan plan = checked_plan(p);
  return {{"radix_bits", std::to_string(plan.bits)},
          {"key_bits", std::to_string(plan.key_bits)},
          {"passes", std::to_string(plan.passes())}};
}

Algorithm radix_base(std::string name, std::string source) {
  Algorithm a;
  a.name = std::move(name);
  a.family = "radix";
  a.backend = Backend::gpu;
  a.stable = true;
  a.source = std::move(source);
  a.params = {"radix-bits"};
  a.reads_key_facts = true;  // the pass plan skips digits that are constant over [min, max]
  return a;
}

}  // namespace

void register_radix(Registry& r) {
  Algorithm seed = radix_base("radix-lsd-seed",
                              "seed 001 (22.8): atomic accumulator, Blelloch up_sweep/down_sweep launched per "
                              "stage, one-thread rearrange; per radix-bits digit");
  seed.role = AlgorithmRole::reproduction;
  seed.pick_when = "the seed's LSD radix sort as written (one thread rearranges): to set beside seed 001";
  seed.constraints = "n <= 2^20 (single-thread rearrange); the seed's 32-bit words and 32-bit payloads only";
  seed.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    checked_plan(p);
    if (p.n() > radix::kSeedMaxN) return std::string("n above 2^20: single-thread rearrange (slow by design)");
    return std::nullopt;
  };
  seed.workspace_bytes = radix::seed_workspace_bytes;
  set_device_run<radix::SeedKeys, radix::SeedValues>(
      seed, [](const auto& b, const SortProblem& p) { return radix::seed_sort(b, p); });
  seed.details = pass_details;
  r.add(seed);

  Algorithm lsd = radix_base("radix-lsd",
                             "seed 001 made parallel: per-block histograms, device-wide scan of (digit, block) "
                             "counts, stable warp-match ranking scatter");
  lsd.pick_when = "our stable LSD radix sort of the seed, made parallel: to compare with cub-radix, which is faster";
  lsd.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    checked_plan(p);
    return std::nullopt;
  };
  lsd.workspace_bytes = radix::lsd_workspace_bytes;
  set_device_run<radix::LsdKeys, radix::LsdValues>(
      lsd, [](const auto& b, const SortProblem& p) { return radix::lsd_sort(b, p); });
  lsd.details = [](const SortProblem& p) {
    Details d = pass_details(p);
    d.emplace_back("launch", radix::lsd_launch_summary(p));
    return d;
  };
  r.add(lsd);
}

}  // namespace sb
