// The disk's floor for a sort of a file (issue 52 item 2; docs/outofcore.md, "The disk's floor"):
// what the bytes a sort must read and write would take at the rates of the disks they live on, as
// link_limit_ms is for the link. The rates are probed where the sort's bytes go, the way the sort
// moves them (through the page cache, in pieces of MiBs): the input file's first bytes read after
// their pages are dropped from the cache, and a probe file in each folder written and synced, then
// dropped and read back, and removed (registered as a live temporary, so Ctrl-C removes it).
#pragma once

#include <cstdint>
#include <string>

namespace sb {

struct DiskRates {
  double read_gbs = 0;   // 0: not probed
  double write_gbs = 0;  // written and synced
};

// Up to `bytes` of `file` read from its start, cold (0: it could not be read, or is too short).
double probe_file_read_gbs(const std::string& file, std::uint64_t bytes);
// `bytes` written to a probe file in `folder` and synced, then read back; the file is removed.
// Throws UsageError naming the folder when it cannot be written.
DiskRates probe_folder_rates(const std::string& folder, std::uint64_t bytes);

// Milliseconds to move `bytes` at `gbs` (0 bytes: 0 whatever the rate).
inline double transfer_ms(std::uint64_t bytes, double gbs) { return bytes ? static_cast<double>(bytes) / gbs / 1e6 : 0.0; }

}  // namespace sb
