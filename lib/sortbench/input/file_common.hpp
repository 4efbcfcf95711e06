// Internal to the file readers (input_file.hpp is the public header): what the readers of the
// three formats share. Issue 35 item 5: input_file.cpp split by format; file_npy.cpp,
// file_raw.cpp and file_text.cpp read, file_writer.cpp writes, input_file.cpp dispatches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sortbench/core/types.hpp"
#include "sortbench/input/input_file.hpp"

namespace sb::file_detail {

// Every problem with a file: a one-line UsageError naming the option, the file, the problem and a fix.
[[noreturn]] void fail(const FileRequest& r, const std::string& problem, const std::string& fix);

class File {
 public:
  explicit File(const FileRequest& r);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  // Reads exactly bytes at offset into dst, in large chunks.
  bool read_at(void* dst, std::uint64_t bytes, std::uint64_t offset) const;
  // Why the last read_at failed, in words: the system's error, or (issue 38) that the file now ends
  // before `wanted_end`, as when it was truncated after its header or length was read.
  std::string read_failure(std::uint64_t wanted_end) const;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  mutable int read_errno_ = 0;
};

// A read-only private mapping of a whole file, or of bytes [offset, offset + length) of it (a text
// shard: issue 38); empty spans map nothing.
class MappedFile {
 public:
  MappedFile(const FileRequest& r, const File& f);
  MappedFile(const FileRequest& r, const File& f, std::uint64_t offset, std::uint64_t length);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view view() const { return data_ ? std::string_view(data_, size_) : std::string_view(); }

 private:
  void* mapping_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

void byteswap_in_place(unsigned char* p, std::uint64_t n, std::size_t width);

void add_nans(NanReport& into, KeyType key, const unsigned char* keys, std::uint64_t first_index, std::uint64_t n);

// Reads c.n elements from the byte offset into the sink chunk by chunk, byte-swapping (big-endian
// data) and counting NaNs in each chunk while it is in cache; NaN positions count from the first.
void read_chunks(const FileRequest& r, const File& f, ColumnSink& sink, FileColumn& c, std::uint64_t offset,
                 bool swap);

// The sink behind read_column(request, alloc): one host array of the column's size.
class HostColumnSink : public ColumnSink {
 public:
  explicit HostColumnSink(HostAllocator alloc) : alloc_(alloc) {}
  void sized(KeyType key, std::uint64_t n) override { array = HostArray(n * key_bytes(key), alloc_); }
  unsigned char* room(std::uint64_t first_byte, std::uint64_t) override { return array.data() + first_byte; }
  void filled(std::uint64_t, std::uint64_t) override {}
  HostArray array;

 private:
  HostAllocator alloc_;
};

std::string_view trim(std::string_view s);

// Elements [first, first + count) of a column; count absent: to the column's end.
struct ElementRange {
  std::uint64_t first = 0;
  std::optional<std::uint64_t> count;
  bool whole() const { return first == 0 && !count; }
};
struct ColumnSlice {
  std::uint64_t first = 0, count = 0;
};
// The range in a column of n elements; one that ends past the end is a UsageError naming the file, n
// and the range.
ColumnSlice resolve_range(const FileRequest& r, const ElementRange& range, std::uint64_t n);
// The FileColumn of a slice, not yet read: file_bytes is the file's size for a whole read (as
// read_column has always said), else slice_bytes.
FileColumn column_of(const ColumnInfo& info, const ElementRange& range, const ColumnSlice& slice,
                     std::uint64_t slice_bytes);

// The formats, one file each: probe_* reads what probe_column promises, read_* a range.
ColumnInfo probe_npy(const FileRequest& r, const File& f);
FileColumn read_npy(const FileRequest& r, const File& f, const ElementRange& range, ColumnSink& sink);
ColumnInfo probe_raw(const FileRequest& r, const File& f);
FileColumn read_raw(const FileRequest& r, const File& f, const ElementRange& range, ColumnSink& sink);
ColumnInfo probe_text(const FileRequest& r, const File& f, std::uint64_t stride);
FileColumn read_text(const FileRequest& r, const File& f, const ElementRange& range, ColumnSink& sink);

}  // namespace sb::file_detail
