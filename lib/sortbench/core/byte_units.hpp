// Byte counts as people read them in messages and progress lines (issue 37: out-of-core sizes are
// GiB, and "64.0 GiB needed, 31.2 GiB available" must read the same wherever it is printed).
// Binary units for sizes (what memory is sold and reported in), decimal GB/s for rates (what links
// and disks are rated in); the two never mix in one number.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace sb {

inline std::string gib_text(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / double(std::uint64_t{1} << 30));
}

// GiB from 1 GiB up, MiB from 1 MiB, KiB below it, so a small size does not read as "0.0 GiB".
inline std::string bytes_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30)) return gib_text(bytes);
  if (bytes < (std::uint64_t{1} << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / double(std::uint64_t{1} << 20));
}

}  // namespace sb
