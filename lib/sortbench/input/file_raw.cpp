// Reading raw little-endian binary: the key type comes from the request, an offset skips a
// header. Issue 35 item 5: input_file.cpp split by format.
#include <fmt/format.h>

#include "sortbench/input/file_common.hpp"

namespace sb::file_detail {

ColumnInfo probe_raw(const FileRequest& r, const File& f) {
  if (!r.key) fail(r, "raw binary does not say its key type", "give --key (e.g. --key u64)");
  if (!r.column.empty()) fail(r, "--column applies to .npy tables and CSV files, not raw binary", "drop --column");
  const std::size_t width = key_bytes(*r.key);
  if (r.offset > f.size()) fail(r, fmt::format("--offset {} is past the end of the {}-byte file", r.offset, f.size()),
                                "give a smaller --offset");
  const std::uint64_t bytes = f.size() - r.offset;
  if (bytes % width)
    fail(r, fmt::format("{} bytes after offset {} are not a whole number of {}-byte {} keys", bytes, r.offset, width,
                        to_string(*r.key)),
         "check --key and --offset");
  ColumnInfo info;
  info.path = r.path;
  info.format = FileFormat::raw;
  info.key = *r.key;
  info.dtype = fmt::format("raw {}", to_string(*r.key));
  info.n = bytes / width;
  info.file_bytes = f.size();
  return info;
}

FileColumn read_raw(const FileRequest& r, const File& f, const ElementRange& range, ColumnSink& sink) {
  const ColumnInfo info = probe_raw(r, f);
  const ColumnSlice slice = resolve_range(r, range, info.n);
  const std::size_t width = key_bytes(info.key);
  FileColumn c = column_of(info, range, slice, slice.count * width);
  sink.sized(c.key, c.n);
  read_chunks(r, f, sink, c, r.offset + slice.first * width, false);
  return c;
}

}  // namespace sb::file_detail
