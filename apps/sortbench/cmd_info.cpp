// sortbench info: the GPU, its measured copy bandwidth and its conditions as NVML reports them
// (clocks, application clocks, persistence mode, temperature, power limit); every GPU with its
// host link's measured copy rates (issue 37: what bounds a sort streamed through it) and the links
// between them.
#include <iostream>

#include <fmt/format.h>

#include "cli.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/report/build_info.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/device/link_bandwidth.hpp"
#include "sortbench/device/nvml.hpp"
#include "sortbench/report/report.hpp"
#include "sortbench/algo/registry.hpp"

namespace sb::cli {
namespace {

// Measured on `ordinal`, the caller's current GPU restored after.
LinkRates link_rates_of(int ordinal) {
  int caller = 0;
  SB_CUDA_CHECK(cudaGetDevice(&caller));
  struct Restore {
    int ordinal;
    ~Restore() { cudaSetDevice(ordinal); }
  } restore{caller};
  SB_CUDA_CHECK(cudaSetDevice(ordinal));
  return measure_link_rates();
}

}  // namespace

Command add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "describe the GPU and measure its device-to-device copy bandwidth");
  auto where = std::make_shared<DeviceOptions>();
  add_device_option(*cmd, *where);
  return {cmd, [where] {
            const DeviceInfo d = query_device(where->device, true,
                                              "info describes a GPU, so run it on a machine with one (list, and "
                                              "run, sort and gen with --backend cpu, need none)");
            const double gib = double(1ull << 30);
            std::cout << fmt::format(
                "device {}: {}\n"
                "  compute capability  {}.{}\n"
                "  SMs                 {}\n"
                "  memory              {:.1f} GiB ({:.1f} GiB free), {}-bit bus\n"
                "  L2                  {:.1f} MiB\n"
                "  shared memory       {} KiB per block (opt-in), {} KiB per SM\n"
                "  clocks (peak)       SM {} MHz, memory {} MHz\n"
                "  driver / runtime    CUDA {} / {}\n"
                "  copy bandwidth      {:.0f} GB/s (device-to-device, read + write)\n",
                d.ordinal, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes / gib,
                d.memory_free_bytes / gib, d.mem_bus_bits, d.l2_bytes / double(1 << 20),
                d.shared_mem_per_block_optin / 1024, d.shared_mem_per_sm / 1024, d.sm_clock_mhz, d.mem_clock_mhz,
                format_cuda_version(d.driver_version), format_cuda_version(d.runtime_version),
                d.copy_bandwidth_gbs);
            std::string why_absent;
            if (auto nvml = NvmlDevice::open(d.ordinal, &why_absent))
              std::cout << format_conditions(nvml->conditions());
            else
              std::cout << format_conditions(GpuConditions{false, why_absent});
            // Every GPU and what CUDA says of each path between two of them (distributed runs).
            const std::vector<std::string> names = device_names();
            std::vector<int> all;
            for (int i = 0; i < static_cast<int>(names.size()); ++i) {
              all.push_back(i);
              std::cout << fmt::format("gpu {}: {}\n", i, names[i]);
              const LinkRates r = link_rates_of(i);
              std::cout << fmt::format(
                  "  host link           {:.1f} GB/s host-to-device, {:.1f} device-to-host, {:.1f} both at once "
                  "(pinned)\n",
                  r.h2d_gbs, r.d2h_gbs, r.both_gbs);
            }
            for (const PeerLink& l : query_peer_links(all))
              std::cout << fmt::format("  link {} -> {}: {}\n", l.from, l.to, describe(l));
            for (const auto& [family, why] : registry().unavailable())
              std::cout << fmt::format("{}: {}\n", family, why);
            const int cc = d.cc_major * 10 + d.cc_minor;
            if (cuda_archs_cover(build_cuda_architectures(), cc) == false) {
              std::cerr << fmt::format(
                  "warning: this sortbench holds no GPU code for compute capability {}.{} (built for CUDA "
                  "architectures {}); rebuild with CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES={}\n",
                  d.cc_major, d.cc_minor, build_cuda_architectures(), cc);
            }
            return 0;
          }};
}

}  // namespace sb::cli
