// The disk's floor for a sort of a file (issue 52 item 2; docs/outofcore.md, "The disk's floor"):
// what the bytes a sort must read and write would take at the rates of the disks they live on, as
// link_limit_ms is for the link. The rates are probed where the sort's bytes go: the input file
// itself read past the page cache (O_DIRECT), and a probe file in each folder written and read
// back the same way, synced, and removed (registered as a live temporary, so Ctrl-C removes it).
// A file system that refuses O_DIRECT (tmpfs) is probed through the page cache, which is then what
// its bytes move at.
#pragma once

#include <cstdint>
#include <string>

namespace sb {

struct DiskRates {
  double read_gbs = 0;   // 0: not probed
  double write_gbs = 0;  // written and synced
};

// Up to `bytes` of `file` read from its start, past the page cache where the file system allows.
double probe_file_read_gbs(const std::string& file, std::uint64_t bytes);
// `bytes` written to a probe file in `folder` and synced, then read back; the file is removed.
// Throws UsageError naming the folder when it cannot be written.
DiskRates probe_folder_rates(const std::string& folder, std::uint64_t bytes);

// Milliseconds to move `bytes` at `gbs` (0 bytes: 0 whatever the rate).
inline double transfer_ms(std::uint64_t bytes, double gbs) { return bytes ? static_cast<double>(bytes) / gbs / 1e6 : 0.0; }

}  // namespace sb
