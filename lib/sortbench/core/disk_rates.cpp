// The disk probes behind a sort's disk floor (disk_rates.hpp), issue 52 item 2.
#include "sortbench/core/disk_rates.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"

namespace sb {
namespace {

// One call's bytes, as the sort's own reads and writes (kStagePieceBytes and the sinks' pieces
// are larger; past a few MiB a call's size no longer changes a streaming rate).
constexpr std::uint64_t kPiece = std::uint64_t{16} << 20;

std::vector<unsigned char> touched_buffer() {
  return std::vector<unsigned char>(kPiece, 0x5a);  // touched: the probe times the disk, not page faults
}

// The range's pages out of the page cache (clean ones; written pages are synced first), so the
// next read of it comes from the disk through the kernel's read-ahead, as a cold file's does.
void forget(int fd, std::uint64_t bytes) { ::posix_fadvise(fd, 0, static_cast<off_t>(bytes), POSIX_FADV_DONTNEED); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Reads [0, bytes) of fd in pieces: the bytes read, which a short file ends early.
std::uint64_t read_all(int fd, unsigned char* buffer, std::uint64_t bytes) {
  std::uint64_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd, buffer, static_cast<std::size_t>(std::min(kPiece, bytes - done)),
                                static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<std::uint64_t>(got);
  }
  return done;
}

double gbs(std::uint64_t bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; }

}  // namespace

double probe_file_read_gbs(const std::string& file, std::uint64_t bytes) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::vector<unsigned char> buffer = touched_buffer();
  forget(fd, bytes);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t got = read_all(fd, buffer.data(), bytes);
  const double seconds = seconds_since(t0);
  ::close(fd);
  // A file shorter than one piece says more about the call than about the disk.
  return got >= std::min(bytes, kPiece) ? gbs(got, seconds) : 0.0;
}

DiskRates probe_folder_rates(const std::string& folder, std::uint64_t bytes) {
  bytes = std::max(kPiece, bytes / kPiece * kPiece);
  const std::string path = fmt::format("{}/sortbench-disk-probe-{}.tmp", folder.empty() ? "." : folder, ::getpid());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw UsageError(fmt::format("cannot write a probe file in {}: {}; give a writable folder", folder,
                                 std::strerror(errno)));
  const int slot = register_temp_file(path.c_str());
  struct Remove {
    int fd, slot;
    const std::string& path;
    ~Remove() {
      ::close(fd);
      ::unlink(path.c_str());
      unregister_temp_file(slot);
    }
  } remove{fd, slot, path};
  std::vector<unsigned char> buffer = touched_buffer();
  DiskRates rates;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t done = 0; done < bytes;) {
    const ssize_t put = ::pwrite(fd, buffer.data(), kPiece, static_cast<off_t>(done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return rates;  // a full disk: the sort's own writes will say so
    done += static_cast<std::uint64_t>(put);
  }
  if (::fdatasync(fd) != 0) return rates;
  rates.write_gbs = gbs(bytes, seconds_since(t0));
  // Read back from the disk (a memory file system keeps its pages: then that is its rate).
  forget(fd, bytes);
  const auto t1 = std::chrono::steady_clock::now();
  const std::uint64_t got = read_all(fd, buffer.data(), bytes);
  rates.read_gbs = got == bytes ? gbs(bytes, seconds_since(t1)) : 0.0;
  return rates;
}

}  // namespace sb
