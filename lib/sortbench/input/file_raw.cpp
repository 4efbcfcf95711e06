// Reading raw little-endian binary: the key type comes from the request, an offset skips a
// header. Issue 35 item 5: input_file.cpp split by format.
#include <fmt/format.h>

#include "sortbench/input/file_common.hpp"

namespace sb::file_detail {

FileColumn read_raw(const FileRequest& r, const File& f, ColumnSink& sink) {
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
  FileColumn c;
  c.path = r.path;
  c.format = FileFormat::raw;
  c.key = *r.key;
  c.dtype = fmt::format("raw {}", to_string(*r.key));
  c.n = bytes / width;
  c.file_bytes = f.size();
  sink.sized(c.key, c.n);
  read_chunks(r, f, sink, c, r.offset, false);
  return c;
}

}  // namespace sb::file_detail
