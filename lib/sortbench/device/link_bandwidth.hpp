// The host link's copy rates (issue 37): what bounds an out-of-core sort, whose every pass moves
// the input over the link and back. Host-to-device and device-to-host alone, and both at once
// (PCIe and NVLink-C2C are full duplex, so a streamed sort that overlaps upload and download sees
// nearly the sum, not either alone). Pinned host memory, as the streamed placement copies from.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace sb {

// GB/s = 1e9 bytes per second; both_gbs counts the bytes moved in both directions together.
struct LinkRates {
  double h2d_gbs = 0, d2h_gbs = 0, both_gbs = 0;
};

// On the current device, with copies of `bytes` each way (fewer where free GPU memory is short).
// About 0.3 s, most of it pinning the host buffers.
LinkRates measure_link_rates(std::size_t bytes = std::size_t{256} << 20);

// {"link_h2d_gbs", "link_d2h_gbs", "link_both_gbs"}, each rounded to 0.1 GB/s.
nlohmann::json to_json(const LinkRates& rates);

}  // namespace sb
