// The disk probes behind a sort's disk floor (disk_rates.hpp), issue 52 item 2.
#include "sortbench/core/disk_rates.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"

namespace sb {
namespace {

// O_DIRECT moves whole, aligned blocks; 4 KiB covers the logical block of every common disk.
constexpr std::uint64_t kAlign = 4096;
// One call's bytes: large enough that the disk streams, small enough to hold twice.
constexpr std::uint64_t kPiece = std::uint64_t{16} << 20;

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<unsigned char, AlignedFree>;

AlignedBuffer aligned_buffer(std::uint64_t bytes) {
  void* p = nullptr;
  if (::posix_memalign(&p, kAlign, bytes) != 0) throw std::bad_alloc();
  std::memset(p, 0x5a, bytes);  // touched: the probe times the disk, not page faults
  return AlignedBuffer(static_cast<unsigned char*>(p));
}

// A descriptor past the page cache where the file system allows it, else a plain one.
int open_direct(const char* path, int flags, mode_t mode = 0) {
  const int fd = ::open(path, flags | O_DIRECT | O_CLOEXEC, mode);
  if (fd >= 0 || (errno != EINVAL && errno != EOPNOTSUPP)) return fd;
  return ::open(path, flags | O_CLOEXEC, mode);
}

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
  bytes = std::max(kAlign, bytes / kAlign * kAlign);
  const int fd = open_direct(file.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  AlignedBuffer buffer = aligned_buffer(kPiece);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t got = read_all(fd, buffer.get(), bytes);
  const double seconds = seconds_since(t0);
  ::close(fd);
  // A file shorter than one piece says more about the call than about the disk.
  return got >= std::min(bytes, kPiece) ? gbs(got, seconds) : 0.0;
}

DiskRates probe_folder_rates(const std::string& folder, std::uint64_t bytes) {
  bytes = std::max(kPiece, bytes / kPiece * kPiece);
  const std::string path = fmt::format("{}/sortbench-disk-probe-{}.tmp", folder.empty() ? "." : folder, ::getpid());
  const int fd = open_direct(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
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
  AlignedBuffer buffer = aligned_buffer(kPiece);
  DiskRates rates;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t done = 0; done < bytes;) {
    const ssize_t put = ::pwrite(fd, buffer.get(), kPiece, static_cast<off_t>(done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return rates;  // a full disk: the sort's own writes will say so
    done += static_cast<std::uint64_t>(put);
  }
  if (::fdatasync(fd) != 0) return rates;
  rates.write_gbs = gbs(bytes, seconds_since(t0));
  // Read back: the page cache holds it where O_DIRECT was refused, which is then its rate.
  const auto t1 = std::chrono::steady_clock::now();
  const std::uint64_t got = read_all(fd, buffer.get(), bytes);
  rates.read_gbs = got == bytes ? gbs(bytes, seconds_since(t1)) : 0.0;
  return rates;
}

}  // namespace sb
