#include "sortbench/input/input_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/input/file_common.hpp"

namespace sb {

std::string_view to_string(FileFormat f) {
  switch (f) {
    case FileFormat::npy: return "npy";
    case FileFormat::raw: return "raw";
    case FileFormat::text: return "text";
  }
  return "?";
}

std::optional<FileFormat> parse_file_format(std::string_view s) {
  if (s == "npy") return FileFormat::npy;
  if (s == "raw") return FileFormat::raw;
  if (s == "text" || s == "csv") return FileFormat::text;
  return std::nullopt;
}

namespace {
bool ends_with(const std::string& s, std::string_view tail) {
  if (s.size() < tail.size()) return false;
  for (std::size_t i = 0; i < tail.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - tail.size() + i])) != tail[i]) return false;
  return true;
}
}  // namespace

FileFormat guess_file_format(const std::string& path) {
  if (ends_with(path, ".npy")) return FileFormat::npy;
  if (ends_with(path, ".csv") || ends_with(path, ".txt") || ends_with(path, ".tsv")) return FileFormat::text;
  return FileFormat::raw;
}

void HostRelease::operator()(unsigned char* p) const {
  if (!p) return;
  if (release) release(p);
  else std::free(p);
}

HostArray::HostArray(std::size_t bytes, HostAllocator alloc) : bytes_(bytes) {
  // Never a null buffer, so an empty column still has a valid pointer.
  const std::size_t size = std::max<std::size_t>(bytes, 1);
  void* p = alloc.allocate ? alloc.allocate(size) : std::malloc(size);
  if (!p) throw Error(ExitCode::internal, fmt::format("cannot allocate {} bytes of host memory", bytes));
  data_ = std::unique_ptr<unsigned char, HostRelease>(static_cast<unsigned char*>(p), HostRelease{alloc.release});
}

std::uint64_t content_hash64(const void* data, std::size_t bytes) {
  // Four independent multiply-rotate lanes over 8-byte words (several GB/s), then the tail.
  constexpr std::uint64_t p1 = 0x9E3779B185EBCA87ULL, p2 = 0xC2B2AE3D27D4EB4FULL;
  auto round = [](std::uint64_t h, std::uint64_t w) {
    h += w * p2;
    h = (h << 31) | (h >> 33);
    return h * p1;
  };
  const auto* b = static_cast<const unsigned char*>(data);
  std::uint64_t lane[4] = {p1 + p2, p2, 0, ~p1};
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, b + i + 8 * k, 8);
      lane[k] = round(lane[k], w);
    }
  std::uint64_t h = bytes;
  for (int k = 0; k < 4; ++k) h = round(h ^ lane[k], lane[k] >> 17);
  for (; i < bytes; ++i) h = round(h, b[i]);
  h ^= h >> 29;
  h *= p2;
  h ^= h >> 32;
  return h;
}

using file_detail::fail;
using file_detail::File;
using file_detail::HostColumnSink;

namespace {

FileFormat format_of(const FileRequest& request) {
  const FileFormat format = request.format ? *request.format : guess_file_format(request.path);
  if (format != FileFormat::raw && request.offset)
    fail(request, "--offset applies to raw binary only", "drop --offset or give --format raw");
  return format;
}

FileColumn read_range(const FileRequest& request, const file_detail::ElementRange& range, ColumnSink& sink) {
  const File f(request);
  switch (format_of(request)) {
    case FileFormat::npy: return file_detail::read_npy(request, f, range, sink);
    case FileFormat::raw: return file_detail::read_raw(request, f, range, sink);
    case FileFormat::text: return file_detail::read_text(request, f, range, sink);
  }
  fail(request, "unknown format", "give --format npy|raw|text");
}

FileColumn read_range(const FileRequest& request, const file_detail::ElementRange& range, HostAllocator alloc) {
  HostColumnSink sink(alloc);
  FileColumn c = read_range(request, range, sink);
  c.data = std::move(sink.array);
  return c;
}

}  // namespace

FileColumn read_column(const FileRequest& request, ColumnSink& sink) { return read_range(request, {}, sink); }

FileColumn read_column(const FileRequest& request, HostAllocator alloc) { return read_range(request, {}, alloc); }

FileColumn read_column_range(const FileRequest& request, std::uint64_t first, std::uint64_t count, ColumnSink& sink) {
  return read_range(request, {first, count}, sink);
}

FileColumn read_column_range(const FileRequest& request, std::uint64_t first, std::uint64_t count,
                             HostAllocator alloc) {
  return read_range(request, {first, count}, alloc);
}

ColumnInfo probe_column(const FileRequest& request, std::uint64_t text_stride) {
  const File f(request);
  switch (format_of(request)) {
    case FileFormat::npy: return file_detail::probe_npy(request, f);
    case FileFormat::raw: return file_detail::probe_raw(request, f);
    case FileFormat::text: return file_detail::probe_text(request, f, text_stride);
  }
  fail(request, "unknown format", "give --format npy|raw|text");
}

void refuse_nan_keys(const FileColumn& column, const std::string& role) {
  if (column.nans.count)
    throw UsageError(fmt::format("{} {}: {} NaN keys, the first at position {}; NaN has no place in an order: remove "
                                 "them (e.g. a[~numpy.isnan(a)])",
                                 role, column.path, column.nans.count, column.nans.first));
}

NanReport find_nans(KeyType key, const void* keys, std::uint64_t n) {
  NanReport r;
  auto scan = [&](auto* k) {
    for (std::uint64_t i = 0; i < n; ++i)
      if (k[i] != k[i]) {
        if (r.count++ == 0) r.first = i;
      }
  };
  if (key == KeyType::f32) scan(static_cast<const float*>(keys));
  if (key == KeyType::f64) scan(static_cast<const double*>(keys));
  return r;
}

}  // namespace sb
