// A user's own data: reading key (and value) columns from NumPy .npy (format versions
// 1.0-3.0), raw little-endian binary and text/CSV files, and writing .npy, raw and text.
// Host code only (no CUDA include), so every format rule is tested on the CPU.
//
// .npy: the format is NEP 1 (numpy/lib/format.py): a magic string, a version, a header
// length, a Python dict literal {'descr', 'fortran_order', 'shape'}, then the data. Data is
// read with one read() per chunk straight into the destination buffer (which may be pinned
// memory); big-endian data is byte-swapped in place. No per-element parsing.
// text: one value per line, or a column (by header name or 0-based index) of a CSV with a
// header line, parsed with std::from_chars.
//
// A range of a column (read_column_range) and its length and type without its data (probe_column)
// serve a shard of a file and a streamed read: issue 35 item 2.
//
// Every problem with a file is a UsageError (exit 2) naming the file, the problem and a fix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sortbench/core/types.hpp"

namespace sb {

enum class FileFormat { npy, raw, text };
std::string_view to_string(FileFormat f);
std::optional<FileFormat> parse_file_format(std::string_view s);
// By extension: .npy -> npy, .csv/.txt/.tsv -> text, anything else -> raw.
FileFormat guess_file_format(const std::string& path);

// Host memory for a column: plain (malloc) or pinned, chosen by whoever reads the file.
struct HostAllocator {
  void* (*allocate)(std::size_t bytes) = nullptr;  // null: malloc
  void (*release)(void*) = nullptr;
};
struct HostRelease {
  void (*release)(void*) = nullptr;  // null: free
  void operator()(unsigned char* p) const;
};
class HostArray {
 public:
  HostArray() = default;
  HostArray(std::size_t bytes, HostAllocator alloc = {});
  unsigned char* data() const { return data_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::unique_ptr<unsigned char, HostRelease> data_;
  std::size_t bytes_ = 0;
};

// Where a text column's cells start, as probe_column finds them while it counts the lines (issue 38):
// a read of a range given it (FileRequest::lines) starts at the checkpoint at or before the range's
// first cell and maps only the bytes up to the checkpoint after its last, so a rank's shard of a
// text file costs reading and memory in proportion to the shard, not to the file.
struct TextLineIndex {
  static constexpr std::uint64_t kDefaultStride = std::uint64_t{1} << 16;
  struct Checkpoint {
    std::uint64_t cell = 0;          // a multiple of stride
    std::uint64_t byte = 0;          // where its line starts, from the text's start (past a byte-order mark)
    std::uint64_t lines_before = 0;  // lines of the text before that one (for the messages' line numbers)
  };
  std::uint64_t stride = kDefaultStride;  // cells from one checkpoint to the next
  std::vector<Checkpoint> checkpoints;    // checkpoint k is cell k * stride
  std::uint64_t cells = 0;                // the column's length
  std::uint64_t text_offset = 0;          // bytes before the text (a UTF-8 byte-order mark)
  std::uint64_t file_bytes = 0;           // the file's size when probed
  std::string column;                     // the column read: --column, or a one-column header's name
  std::size_t column_index = 0;           // its 0-based position in the header (with column)
  KeyType key = KeyType::i64;             // the column's type: given, or inferred from every cell
};

// What to read. key: the type the user named with --key (must agree with a .npy dtype; the
// type of raw data; text is parsed as it, or as i64/u64/f64 when absent).
struct FileRequest {
  std::string path;
  std::optional<FileFormat> format;  // absent: guessed from the extension
  std::optional<KeyType> key;
  std::string column;  // npy 2-D: a 0-based index; text: a header name or a 0-based index
  // Text: whether line 1 names the columns (--header, --no-header); absent: line 1 is data when
  // every cell of it is a number, a header when none is, and refused as ambiguous otherwise.
  std::optional<bool> header;
  std::uint64_t offset = 0;  // raw: bytes to skip (a header)
  std::string role = "--input";  // names the option in messages: --input, --values
  // Text: the probe's index of this file (ColumnInfo::lines), so a range is read from near its
  // start with the probe's key type; null: the range is found by reading the lines before it.
  std::shared_ptr<const TextLineIndex> lines;
};

// Float keys: the NaN count and first position (a NaN has no place in an order), or 0.
struct NanReport {
  std::uint64_t count = 0, first = 0;
};
NanReport find_nans(KeyType key, const void* keys, std::uint64_t n);

struct FileColumn {
  std::string path;
  FileFormat format = FileFormat::raw;
  KeyType key = KeyType::u32;
  std::string dtype;  // as the file says it: "<u4", ">f8", "raw u64", "text i64"
  std::uint64_t n = 0;
  std::uint64_t file_bytes = 0;
  NanReport nans;     // counted as the column is read; first: from the first element read
  HostArray data;     // n * key_bytes(key), little-endian (native); empty when read into a ColumnSink
};

// Where a column's bytes go as it is read: the reader asks for room for each chunk (at most
// kMaxChunk bytes, in order), fills it in native byte order and hands it back. Reading into
// one host array of the file's size faults in every page on first touch (below 1.5 GB/s on
// a 1 GiB file); a sink that stages chunks in a small pinned ring and copies each to the GPU
// while the next is read never allocates the file's size on the host.
class ColumnSink {
 public:
  // Small enough that a chunk is still in cache while it is byte-swapped, scanned and copied.
  static constexpr std::uint64_t kMaxChunk = std::uint64_t{8} << 20;
  virtual ~ColumnSink() = default;
  virtual void sized(KeyType key, std::uint64_t n) = 0;
  virtual unsigned char* room(std::uint64_t first_byte, std::uint64_t bytes) = 0;
  virtual void filled(std::uint64_t first_byte, std::uint64_t bytes) = 0;
};

// Reads one column into host memory (FileColumn::data). Throws UsageError for every problem
// with the file or the request.
FileColumn read_column(const FileRequest& request, HostAllocator alloc = {});
// Reads one column into a sink (FileColumn::data stays empty).
FileColumn read_column(const FileRequest& request, ColumnSink& sink);

// Elements [first, first + count) of the column (issue 35: a shard of a file, or one piece of a
// streamed read), into the sink, sized for count and filled in chunks as read_column fills it.
// npy and raw seek to the slice's byte offset and read only its bytes; text reads the lines before
// `first` once to skip them, unparsed (a bad cell there is another slice's error), and stops after
// the slice, except where it infers the key type: that parses every cell, as the type is the whole
// column's. The FileColumn describes the slice: n = count; file_bytes = the slice's bytes in the
// file (npy and raw: its rows; text: from its first line's start to its last line's end), not the
// file's size as read_column gives; nans.first counts from `first`. A range that ends past the
// column's end is a UsageError naming the file, the column's length and the range.
FileColumn read_column_range(const FileRequest& request, std::uint64_t first, std::uint64_t count, ColumnSink& sink);
FileColumn read_column_range(const FileRequest& request, std::uint64_t first, std::uint64_t count,
                             HostAllocator alloc = {});

// What a column is, learned without reading its data: npy and raw read the header only (the length
// follows from the file's size); text counts its lines, and parses every cell when the key type is
// to be inferred. A problem with a cell is left to the read of its range.
struct ColumnInfo {
  std::string path;
  FileFormat format = FileFormat::raw;
  KeyType key = KeyType::u32;
  std::string dtype;  // as FileColumn::dtype
  std::uint64_t n = 0;
  std::uint64_t file_bytes = 0;  // the whole file
  std::shared_ptr<const TextLineIndex> lines;  // text: where every text_stride-th cell's line starts
};
ColumnInfo probe_column(const FileRequest& request, std::uint64_t text_stride = TextLineIndex::kDefaultStride);

// A column with NaN keys: a UsageError naming the count and the first position.
void refuse_nan_keys(const FileColumn& column, const std::string& role);

// A fast 64-bit content hash (not cryptographic): identifies a file's column in results.
std::uint64_t content_hash64(const void* data, std::size_t bytes);

}  // namespace sb
