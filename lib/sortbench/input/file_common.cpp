// What the file readers share (file_common.hpp). Issue 35 item 5: input_file.cpp split by format.
#include "sortbench/input/file_common.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb::file_detail {

[[noreturn]] void fail(const FileRequest& r, const std::string& problem, const std::string& fix) {
  throw UsageError(fmt::format("{} {}: {}; {}", r.role, r.path, problem, fix));
}

File::File(const FileRequest& r) {
  fd_ = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail(r, std::strerror(errno), "check the path");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) fail(r, "not a regular file", "give a file");
  size_ = static_cast<std::uint64_t>(st.st_size);
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

bool File::read_at(void* dst, std::uint64_t bytes, std::uint64_t offset) const {
  auto* out = static_cast<unsigned char*>(dst);
  while (bytes) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
    const ssize_t got = ::pread(fd_, out, chunk, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      read_errno_ = got < 0 ? errno : 0;
      return false;
    }
    out += got, offset += static_cast<std::uint64_t>(got), bytes -= static_cast<std::uint64_t>(got);
  }
  return true;
}

std::string File::read_failure(std::uint64_t wanted_end) const {
  if (read_errno_) return std::strerror(read_errno_);
  struct stat st {};
  const std::uint64_t now = ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return fmt::format("the file ends at byte {} but its data runs to byte {} (it was truncated after it was opened)",
                     now, wanted_end);
}

MappedFile::MappedFile(const FileRequest& r, const File& f) : MappedFile(r, f, 0, f.size()) {}

MappedFile::MappedFile(const FileRequest& r, const File& f, std::uint64_t offset, std::uint64_t length)
    : size_(static_cast<std::size_t>(length)) {
  if (!size_) return;
  // mmap's offset is a multiple of the page size: map from the page that holds `offset`.
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t start = offset / page * page;
  mapped_bytes_ = static_cast<std::size_t>(offset - start + length);
  void* p = ::mmap(nullptr, mapped_bytes_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd(), static_cast<off_t>(start));
  if (p == MAP_FAILED) fail(r, std::string("cannot map the file: ") + std::strerror(errno), "check the file");
  mapping_ = p;
  data_ = static_cast<const char*>(p) + (offset - start);
}

MappedFile::~MappedFile() {
  if (mapping_) ::munmap(mapping_, mapped_bytes_);
}

void byteswap_in_place(unsigned char* p, std::uint64_t n, std::size_t width) {
  for (std::uint64_t i = 0; i < n; ++i, p += width) std::reverse(p, p + width);
}

void add_nans(NanReport& into, KeyType key, const unsigned char* keys, std::uint64_t first_index, std::uint64_t n) {
  const NanReport found = find_nans(key, keys, n);
  if (!found.count) return;
  if (!into.count) into.first = first_index + found.first;
  into.count += found.count;
}

void read_chunks(const FileRequest& r, const File& f, ColumnSink& sink, FileColumn& c, std::uint64_t offset,
                 bool swap) {
  const std::size_t width = key_bytes(c.key);
  const std::uint64_t bytes = c.n * width;
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t m = std::min(ColumnSink::kMaxChunk, bytes - done);
    unsigned char* dst = sink.room(done, m);
    if (!f.read_at(dst, m, offset + done)) fail(r, f.read_failure(offset + bytes), "write the file again");
    if (swap) byteswap_in_place(dst, m / width, width);
    add_nans(c.nans, c.key, dst, done / width, m / width);
    sink.filled(done, m);
    done += m;
  }
}

ColumnSlice resolve_range(const FileRequest& r, const ElementRange& range, std::uint64_t n) {
  const std::uint64_t available = range.first <= n ? n - range.first : 0;
  const std::uint64_t count = range.count ? *range.count : available;
  if (range.first > n || count > available) {
    // first + count may not fit 64 bits.
    const std::string end = count <= ~std::uint64_t{0} - range.first ? std::to_string(range.first + count)
                                                                      : fmt::format("{} + {}", range.first, count);
    fail(r, fmt::format("elements [{}, {}) were asked for but the column holds {}", range.first, end, n),
         fmt::format("ask for a range within [0, {})", n));
  }
  return {range.first, count};
}

FileColumn column_of(const ColumnInfo& info, const ElementRange& range, const ColumnSlice& slice,
                     std::uint64_t slice_bytes) {
  FileColumn c;
  c.path = info.path;
  c.format = info.format;
  c.key = info.key;
  c.dtype = info.dtype;
  c.n = slice.count;
  c.file_bytes = range.whole() ? info.file_bytes : slice_bytes;
  return c;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace sb::file_detail
