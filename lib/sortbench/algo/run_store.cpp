// The external sort's run store (run_store.hpp), issue 52 item 1.
#include "sortbench/algo/run_store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sortbench/core/byte_units.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "sortbench/core/write_problem.hpp"

namespace sb {
namespace {

std::atomic<unsigned> g_stores{0};  // two stores of one process never share a name

// Runs in memory: anonymous pages, huge where the kernel allows. Pass 1 writes every byte once,
// and faulting them in 4 KiB pages took longer than the copies themselves (4 GiB of runs: 3.6 s
// of writes at 1.1 GB/s on an H200 host). Null when the memory cannot be had (the runs go to files).
unsigned char* map_memory(std::uint64_t bytes) {
  void* p = ::mmap(nullptr, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes ? bytes : 1, MADV_HUGEPAGE);
#endif
  return static_cast<unsigned char*>(p);
}

}  // namespace

void check_tmp_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError(fmt::format("--tmp-dir {} is not a folder; give an existing folder for the sorted runs", dir));
}

RunStore::RunStore(std::uint64_t n, unsigned key_bytes, unsigned value_bytes, const RunSpace& space)
    : n_(n), kb_(key_bytes), vb_(value_bytes), dir_(space.tmp_dir.empty() ? "." : space.tmp_dir) {
  const std::uint64_t bytes = n * (kb_ + vb_);
  if (bytes <= space.host_bytes) memory_ = map_memory(bytes);
  if (memory_) return;
  open_column(columns_[0], "keys", n * kb_);
  if (vb_) open_column(columns_[1], "values", n * vb_);
}

RunStore::~RunStore() {
  if (memory_) ::munmap(memory_, memory_bytes());
  for (Column& c : columns_) {
    if (c.fd < 0) continue;
    ::close(c.fd);
    ::unlink(c.path.c_str());
    unregister_temp_file(c.slot);
  }
}

void RunStore::open_column(Column& c, const char* what, std::uint64_t bytes) {
  c.path = fmt::format("{}/sortbench-runs-{}-{}.{}.tmp", dir_, ::getpid(), g_stores.fetch_add(1), what);
  c.fd = ::open(c.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (c.fd < 0)
    throw UsageError(fmt::format("cannot make the sorted runs' file in {}: {}; give --tmp-dir a writable folder",
                                 dir_, std::strerror(errno)));
  c.slot = register_temp_file(c.path.c_str());
  c.bytes = bytes;
  struct stat st {};
  if (::fstat(c.fd, &st) == 0) c.ino = static_cast<unsigned long long>(st.st_ino);
}

std::uint64_t RunStore::file_bytes() const { return in_memory() ? 0 : columns_[0].bytes + columns_[1].bytes; }

std::string RunStore::where() const { return in_memory() ? std::string("memory") : columns_[0].path; }

void RunStore::put(Column& c, const void* data, std::uint64_t bytes, std::uint64_t offset) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes) {
    const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
    const ssize_t put = ::pwrite(c.fd, p, piece, static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0)
      throw UsageError(fmt::format("writing the sorted runs to {} failed: {}; free {} there, give --tmp-dir on a "
                                   "larger disk or raise --host-memory-limit",
                                   dir_, write_problem(put < 0 ? errno : ENOSPC), bytes_text(file_bytes())));
    p += put, offset += static_cast<std::uint64_t>(put), bytes -= static_cast<std::uint64_t>(put);
  }
}

void RunStore::write(std::uint64_t first, std::uint64_t count, const void* keys, const void* vals) {
  if (in_memory()) {
    std::memcpy(memory_ + first * kb_, keys, count * kb_);
    if (vb_) std::memcpy(memory_ + n_ * kb_ + first * vb_, vals, count * vb_);
    return;
  }
  put(columns_[0], keys, count * kb_, first * kb_);
  if (vb_) put(columns_[1], vals, count * vb_, first * vb_);
}

void RunStore::lost(const Column& c, const std::string& how) const {
  throw UsageError(fmt::format("the sorted runs' file {} {} while the sort ran, so its runs are lost; "
                               "leave --tmp-dir's files alone while sort runs, and run it again",
                               c.path, how));
}

void RunStore::seal() const {
  if (in_memory()) return;
  for (const Column& c : columns_) {
    if (c.fd < 0) continue;
    struct stat by_name {}, by_fd {};
    if (::stat(c.path.c_str(), &by_name) != 0 || static_cast<unsigned long long>(by_name.st_ino) != c.ino)
      lost(c, "was removed");
    if (::fstat(c.fd, &by_fd) != 0 || static_cast<std::uint64_t>(by_fd.st_size) < c.bytes)
      lost(c, fmt::format("was truncated ({} of {} bytes)", bytes_text(static_cast<std::uint64_t>(by_fd.st_size)),
                          bytes_text(c.bytes)));
  }
}

void RunStore::get(const Column& c, void* data, std::uint64_t bytes, std::uint64_t offset) const {
  auto* p = static_cast<unsigned char*>(data);
  while (bytes) {
    const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
    const ssize_t got = ::pread(c.fd, p, piece, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) lost(c, fmt::format("could not be read ({})", std::strerror(errno)));
    if (got == 0) lost(c, "was truncated");
    p += got, offset += static_cast<std::uint64_t>(got), bytes -= static_cast<std::uint64_t>(got);
  }
}

void RunStore::read(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const {
  if (in_memory()) {
    std::memcpy(keys, memory_ + first * kb_, count * kb_);
    if (vb_) std::memcpy(vals, memory_ + n_ * kb_ + first * vb_, count * vb_);
    return;
  }
  get(columns_[0], keys, count * kb_, first * kb_);
  if (vb_) get(columns_[1], vals, count * vb_, first * vb_);
}

void RunStore::read_keys(std::uint64_t first, std::uint64_t count, void* keys) const {
  if (in_memory()) {
    std::memcpy(keys, memory_ + first * kb_, count * kb_);
    return;
  }
  get(columns_[0], keys, count * kb_, first * kb_);
}

}  // namespace sb
