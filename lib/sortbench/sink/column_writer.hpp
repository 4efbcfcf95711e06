// The column writers (issue 35 item 5, issue 37, issue 38): a sorted column written to a file as
// .npy, raw or text, whole, in pieces as a GPU download streams in, or as one rank's part of a
// file several ranks write. The sinks (file_sink.hpp, rank_file_output.hpp) and `gen -o`
// (chunked_write.hpp) write through them; the readers of the same formats are input/'s.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sortbench/core/types.hpp"
#include "sortbench/input/input_file.hpp"

namespace sb {

// .npy header (version 1.0, 64-byte aligned data) of a 1-D array of n elements of key.
std::string npy_header(KeyType key, std::uint64_t n);
// numpy's descr of a key type: "<u4" ...
std::string npy_descr(KeyType key);

// Writes n elements of type key to out_path in the format (text: one value per line,
// shortest round-trip form), in pieces: the header when opened (n is known), then the
// elements in order as they are appended, so a GPU download can stream through a small
// pinned ring into the file. Throws Error(output) on a write failure, in one line naming the
// file, the problem in words ("the disk is full") and the fix; the caller writes to a temporary
// name (core/temp_files.hpp) and renames when verified, so messages name the file as `name`
// (the target; default out_path) rather than the temporary the user never asked for.
class ColumnWriter {
 public:
  ColumnWriter(const std::string& out_path, FileFormat format, KeyType key, std::uint64_t n,
               const std::string& name = {});
  ~ColumnWriter();
  ColumnWriter(const ColumnWriter&) = delete;
  ColumnWriter& operator=(const ColumnWriter&) = delete;
  void append(const void* data, std::uint64_t count);
  // Flushes and closes; the bytes written.
  std::uint64_t close();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One part of a .npy or raw column that several writers (the ranks of a distributed sort: issue 38)
// write into one file at once: elements [first, first + count) of n, written at their place. The
// file is created if absent and sized to the whole column by every part (so no part waits on
// another); the part that starts at element 0 writes the .npy header. Errors as ColumnWriter's.
class ColumnPartWriter {
 public:
  ColumnPartWriter(const std::string& path, FileFormat format, KeyType key, std::uint64_t n, std::uint64_t first,
                   const std::string& name = {});
  ~ColumnPartWriter();
  ColumnPartWriter(const ColumnPartWriter&) = delete;
  ColumnPartWriter& operator=(const ColumnPartWriter&) = delete;
  void append(const void* data, std::uint64_t count);
  void close();

 private:
  void put(const void* data, std::uint64_t bytes, std::uint64_t at);
  [[noreturn]] void fail(int err) const;
  std::string name_;
  int fd_ = -1;
  std::uint64_t next_byte_ = 0;
  std::size_t width_ = 0;
};

// The whole column at once.
void write_column(const std::string& out_path, FileFormat format, KeyType key, const void* data, std::uint64_t n);

}  // namespace sb
