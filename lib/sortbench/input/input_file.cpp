#include "sortbench/input/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"

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

namespace {

[[noreturn]] void fail(const FileRequest& r, const std::string& problem, const std::string& fix) {
  throw UsageError(fmt::format("{} {}: {}; {}", r.role, r.path, problem, fix));
}

class File {
 public:
  int fd() const { return fd_; }
  File(const FileRequest& r) {
    fd_ = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(r, std::strerror(errno), "check the path");
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) fail(r, "not a regular file", "give a file");
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  std::uint64_t size() const { return size_; }
  // Reads exactly bytes at offset into dst, in large chunks.
  bool read_at(void* dst, std::uint64_t bytes, std::uint64_t offset) const {
    auto* out = static_cast<unsigned char*>(dst);
    while (bytes) {
      const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
      const ssize_t got = ::pread(fd_, out, chunk, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      out += got, offset += static_cast<std::uint64_t>(got), bytes -= static_cast<std::uint64_t>(got);
    }
    return true;
  }

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// A read-only private mapping of a whole file (empty files map nothing).
class MappedFile {
 public:
  MappedFile(const FileRequest& r, const File& f) : size_(f.size()) {
    if (!size_) return;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.fd(), 0);
    if (p == MAP_FAILED) fail(r, std::string("cannot map the file: ") + std::strerror(errno), "check the file");
    data_ = static_cast<const char*>(p);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view view() const { return data_ ? std::string_view(data_, size_) : std::string_view(); }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

void byteswap_in_place(unsigned char* p, std::uint64_t n, std::size_t width) {
  for (std::uint64_t i = 0; i < n; ++i, p += width) std::reverse(p, p + width);
}

void add_nans(NanReport& into, KeyType key, const unsigned char* keys, std::uint64_t first_index, std::uint64_t n) {
  const NanReport found = find_nans(key, keys, n);
  if (!found.count) return;
  if (!into.count) into.first = first_index + found.first;
  into.count += found.count;
}

// Reads bytes at offset into the sink chunk by chunk, byte-swapping (big-endian data) and
// counting NaNs in each chunk while it is in cache.
void read_chunks(const FileRequest& r, const File& f, ColumnSink& sink, FileColumn& c, std::uint64_t offset,
                 bool swap) {
  const std::size_t width = key_bytes(c.key);
  const std::uint64_t bytes = c.n * width;
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t m = std::min(ColumnSink::kMaxChunk, bytes - done);
    unsigned char* dst = sink.room(done, m);
    if (!f.read_at(dst, m, offset + done)) fail(r, "read failed", "check the file");
    if (swap) byteswap_in_place(dst, m / width, width);
    add_nans(c.nans, c.key, dst, done / width, m / width);
    sink.filled(done, m);
    done += m;
  }
}

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

// --- .npy -------------------------------------------------------------------------------

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The value text after 'key' in the header dict: a quoted string, a (tuple), a [list] or a
// bare word, with its brackets or quotes.
std::optional<std::string_view> dict_value(std::string_view dict, std::string_view key) {
  for (const char quote : {'\'', '"'}) {
    const std::string k = std::string(1, quote) + std::string(key) + quote;
    const auto at = dict.find(k);
    if (at == std::string_view::npos) continue;
    auto rest = dict.substr(at + k.size());
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    rest = trim(rest.substr(colon + 1));
    if (rest.empty()) return std::nullopt;
    const char open = rest.front();
    const char close = open == '(' ? ')' : open == '[' ? ']' : (open == '\'' || open == '"') ? open : '\0';
    if (close) {
      const auto end = rest.find(close, 1);
      if (end == std::string_view::npos) return std::nullopt;
      return rest.substr(0, end + 1);
    }
    const auto end = rest.find_first_of(",}");
    return trim(rest.substr(0, end));
  }
  return std::nullopt;
}

NpyHeader read_npy_header(const FileRequest& r, const File& f) {
  unsigned char pre[12] = {};
  if (f.size() < 10 || !f.read_at(pre, 10, 0) || std::memcmp(pre, "\x93NUMPY", 6) != 0)
    fail(r, "not a NumPy .npy file (no \\x93NUMPY magic)", "write it with numpy.save, or give --format raw|text");
  const int major = pre[6];
  std::uint64_t header_len = 0, prefix = 0;
  if (major == 1) {
    header_len = pre[8] | (pre[9] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (f.size() < 12 || !f.read_at(pre, 12, 0)) fail(r, "truncated .npy header", "write the file again");
    header_len = std::uint64_t{pre[8]} | (std::uint64_t{pre[9]} << 8) | (std::uint64_t{pre[10]} << 16) |
                 (std::uint64_t{pre[11]} << 24);
    prefix = 12;
  } else {
    fail(r, fmt::format(".npy format version {}.{} is not supported (1.0-3.0 are)", major, pre[7]),
         "write it with numpy.save");
  }
  if (prefix + header_len > f.size()) fail(r, "truncated .npy header", "write the file again");
  std::string dict(header_len, '\0');
  f.read_at(dict.data(), header_len, prefix);
  NpyHeader h;
  h.data_offset = prefix + header_len;
  const auto descr = dict_value(dict, "descr");
  const auto fortran = dict_value(dict, "fortran_order");
  const auto shape = dict_value(dict, "shape");
  if (!descr || !fortran || !shape) fail(r, "malformed .npy header (descr, fortran_order or shape missing)",
                                         "write it with numpy.save");
  if (descr->size() < 2 || ((*descr)[0] != '\'' && (*descr)[0] != '"'))
    fail(r, fmt::format("structured dtype {} is not supported", *descr),
         "save one column as a plain array: numpy.save(path, a['field'])");
  h.descr = std::string(descr->substr(1, descr->size() - 2));
  h.fortran = *fortran == "True";
  std::string_view s = *shape;
  if (s.empty() || s.front() != '(') fail(r, "malformed shape in the .npy header", "write it with numpy.save");
  s = s.substr(1, s.find(')') == std::string_view::npos ? s.size() - 1 : s.find(')') - 1);
  while (!(s = trim(s)).empty()) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc()) fail(r, "malformed shape in the .npy header", "write it with numpy.save");
    h.shape.push_back(v);
    s = s.substr(static_cast<std::size_t>(p - s.data()));
    s = trim(s);
    if (!s.empty() && s.front() == ',') s.remove_prefix(1);
  }
  return h;
}

std::optional<KeyType> key_of_npy_code(char kind, char width) {
  if (kind == 'u' && width == '4') return KeyType::u32;
  if (kind == 'i' && width == '4') return KeyType::i32;
  if (kind == 'f' && width == '4') return KeyType::f32;
  if (kind == 'u' && width == '8') return KeyType::u64;
  if (kind == 'i' && width == '8') return KeyType::i64;
  if (kind == 'f' && width == '8') return KeyType::f64;
  return std::nullopt;
}

std::string dtype_name(const std::string& descr) {
  if (descr.empty()) return "?";
  const char kind = descr.size() > 1 ? descr[1] : descr[0];
  switch (kind) {
    case 'c': return "complex";
    case 'O': return "object";
    case 'b': return "bool";
    case 'U': case 'S': case 'a': return "string";
    case 'V': return "void";
    case 'M': case 'm': return "datetime";
    case 'f': return descr.find('2') != std::string::npos ? "float16" : "float";
    default: return "this dtype";
  }
}

void check_key_agrees(const FileRequest& r, KeyType from_file, const std::string& how) {
  if (r.key && *r.key != from_file)
    fail(r, fmt::format("the file holds {} keys ({}) but --key {} was given", to_string(from_file), how,
                        to_string(*r.key)),
         fmt::format("drop --key or give --key {}", to_string(from_file)));
}

FileColumn read_npy(const FileRequest& r, const File& f, ColumnSink& sink) {
  const NpyHeader h = read_npy_header(r, f);
  const char order = h.descr.empty() ? '?' : h.descr[0];
  const auto key = h.descr.size() == 3 && (order == '<' || order == '>' || order == '=' || order == '|')
                       ? key_of_npy_code(h.descr[1], h.descr[2])
                       : std::nullopt;
  if (!key)
    fail(r, fmt::format("dtype '{}' ({}) is not supported; keys are u4 i4 f4 u8 i8 f8", h.descr, dtype_name(h.descr)),
         "convert it first, e.g. numpy.save(path, a.astype(numpy.int64))");
  check_key_agrees(r, *key, "dtype '" + h.descr + "'");
  const bool big = order == '>';
  const std::size_t width = key_bytes(*key);
  if (h.shape.size() > 2 || h.shape.empty())
    fail(r, fmt::format("a {}-D array is not supported (1-D, or 2-D with --column K)", h.shape.size()),
         "save a 1-D array or a 2-D table");
  std::uint64_t rows = h.shape[0], cols = h.shape.size() == 2 ? h.shape[1] : 1;
  if (h.shape.size() == 2 && h.fortran)
    fail(r, "a Fortran-order (column-major) 2-D array is not supported",
         "save it in C order: numpy.save(path, numpy.ascontiguousarray(a))");
  std::uint64_t column = 0;
  if (h.shape.size() == 2) {
    if (r.column.empty())
      fail(r, fmt::format("a 2-D array of {} columns needs --column K", cols), "give --column 0 for the first");
    const auto [p, ec] = std::from_chars(r.column.data(), r.column.data() + r.column.size(), column);
    if (ec != std::errc() || p != r.column.data() + r.column.size() || column >= cols)
      fail(r, fmt::format("--column '{}' is not a column index of a {}-column array", r.column, cols),
           fmt::format("give --column 0 to {}", cols - 1));
  } else if (!r.column.empty()) {
    fail(r, "--column was given but the array is 1-D", "drop --column");
  }
  const unsigned __int128 need = static_cast<unsigned __int128>(rows) * cols * width;
  const std::uint64_t have = f.size() - h.data_offset;
  if (need != have)
    fail(r, fmt::format("the header says shape ({}{}) of '{}', {} data bytes, but the file holds {}", rows,
                        h.shape.size() == 2 ? fmt::format(", {}", cols) : std::string(","), h.descr,
                        static_cast<std::uint64_t>(need), have),
         need > have ? "the file is truncated: write it again" : "the header does not match the data: write it again");
  FileColumn c;
  c.path = r.path;
  c.format = FileFormat::npy;
  c.key = *key;
  c.dtype = h.descr;
  c.n = rows;
  c.file_bytes = f.size();
  sink.sized(c.key, c.n);
  if (cols == 1) {
    read_chunks(r, f, sink, c, h.data_offset, big);
  } else {
    // Row-major table: read blocks of rows, keep one column.
    const std::uint64_t row_bytes = cols * width;
    const std::uint64_t block_rows =
        std::max<std::uint64_t>(1, std::min((std::uint64_t{16} << 20) / row_bytes, ColumnSink::kMaxChunk / width));
    std::vector<unsigned char> block(block_rows * row_bytes);
    for (std::uint64_t r0 = 0; r0 < rows; r0 += block_rows) {
      const std::uint64_t m = std::min(block_rows, rows - r0);
      if (!f.read_at(block.data(), m * row_bytes, h.data_offset + r0 * row_bytes)) fail(r, "read failed", "check the file");
      unsigned char* dst = sink.room(r0 * width, m * width);
      for (std::uint64_t i = 0; i < m; ++i)
        std::memcpy(dst + i * width, block.data() + i * row_bytes + column * width, width);
      if (big) byteswap_in_place(dst, m, width);
      add_nans(c.nans, c.key, dst, r0, m);
      sink.filled(r0 * width, m * width);
    }
  }
  return c;
}

// --- raw ----------------------------------------------------------------------------------

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

// --- text / CSV ---------------------------------------------------------------------------

enum class ParseResult { ok, not_a_number, out_of_range };

template <typename T>
ParseResult parse_cell(std::string_view s, T& out) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  if constexpr (std::is_floating_point_v<T>) {
    // from_chars does not take "inf"/"nan" with a sign other than '-'; it does take both words.
    const auto [p, ec] = std::from_chars(b, e, out);
    if (ec == std::errc::result_out_of_range) return ParseResult::out_of_range;
    if (ec != std::errc() || p != e || b == e) return ParseResult::not_a_number;
    return ParseResult::ok;
  } else {
    const auto [p, ec] = std::from_chars(b, e, out);
    if (ec == std::errc::result_out_of_range) return ParseResult::out_of_range;
    if (ec != std::errc() || p != e || b == e) {
      // An integer written as a float with no fraction ("3.0", "1e6") is still that integer.
      double d = 0;
      const auto [q, ec2] = std::from_chars(b, e, d);
      if (ec2 != std::errc() || q != e || !std::isfinite(d) || d != std::trunc(d)) return ParseResult::not_a_number;
      const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
      const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);  // exclusive
      if (d < lo || d >= hi) return ParseResult::out_of_range;
      out = static_cast<T>(d);
    }
    return ParseResult::ok;
  }
}

struct Cell {
  std::string_view text;
  std::uint64_t line = 0;  // 1-based
};

// Splits the text into the cells of the wanted column, line by line.
class CellReader {
 public:
  CellReader(const FileRequest& r, std::string_view text) : r_(r), text_(text) {
    if (r.column.empty()) return;
    // A CSV with a header line: find the column.
    const auto eol = text_.find('\n');
    std::string_view header(text_.data(), eol == std::string::npos ? text_.size() : eol);
    pos_ = eol == std::string::npos ? text_.size() : eol + 1;
    line_ = 1;
    std::vector<std::string> names;
    for (std::size_t start = 0;;) {
      const auto comma = header.find(',', start);
      std::string_view name = trim(header.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                         : comma - start));
      if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
      names.emplace_back(name);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    const auto it = std::find(names.begin(), names.end(), r.column);
    if (it != names.end()) {
      column_ = static_cast<std::size_t>(it - names.begin());
    } else {
      std::size_t k = 0;
      const auto [p, ec] = std::from_chars(r.column.data(), r.column.data() + r.column.size(), k);
      if (ec != std::errc() || p != r.column.data() + r.column.size() || k >= names.size()) {
        std::string known;
        for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
        fail(r, fmt::format("no column '{}' in the header line ({})", r.column, known),
             "give --column NAME or a 0-based index");
      }
      column_ = k;
    }
  }

  bool next(Cell& cell) {
    while (pos_ < text_.size()) {
      const auto eol = text_.find('\n', pos_);
      const std::size_t end = eol == std::string::npos ? text_.size() : eol;
      std::string_view line(text_.data() + pos_, end - pos_);
      pos_ = end + 1;
      ++line_;
      if (trim(line).empty()) continue;
      std::string_view field = line;
      if (!r_.column.empty()) {
        std::size_t start = 0;
        for (std::size_t k = 0; k < column_; ++k) {
          const auto comma = line.find(',', start);
          if (comma == std::string_view::npos)
            fail(r_, fmt::format("line {} has no column {} ('{}')", line_, column_ + 1, r_.column),
                 "fix the line or choose another --column");
          start = comma + 1;
        }
        const auto comma = line.find(',', start);
        field = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      }
      field = trim(field);
      if (field.size() >= 2 && field.front() == '"' && field.back() == '"') field = trim(field.substr(1, field.size() - 2));
      cell = {field, line_};
      return true;
    }
    return false;
  }

 private:
  const FileRequest& r_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 0;
  std::size_t column_ = 0;
};

template <typename K>
[[noreturn]] void fail_cell(const FileRequest& r, ParseResult pr, std::string_view cell, std::uint64_t line) {
  const std::string where =
      r.column.empty() ? fmt::format("line {}", line) : fmt::format("line {}, column '{}'", line, r.column);
  if (pr == ParseResult::out_of_range)
    fail(r, fmt::format("{}: '{}' does not fit a {} key", where, cell, to_string(KeyTraits<K>::type)),
         "give a wider --key (i64, u64 or f64)");
  fail(r, fmt::format("{}: '{}' is not a number", where, cell), "fix or remove that cell");
}

inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// One value per line: parse in place with from_chars from the line's first character; a
// line the fast path cannot take whole ("3.0" for an integer key, a stray character) goes
// through parse_cell for its meaning or its error.
template <typename K>
bool parse_lines(const FileRequest& r, std::string_view text, std::vector<K>& out, bool inferring) {
  const char* p = text.data();
  const char* const e = p + text.size();
  std::uint64_t line = 1;
  while (p < e) {
    while (p < e && blank(*p)) ++p;
    if (p == e) break;
    if (*p == '\n') {
      ++p, ++line;
      continue;
    }
    K v{};
    const char* start = p + (*p == '+' ? 1 : 0);
    const auto [q, ec] = std::from_chars(start, e, v);
    const char* t = q;
    while (t < e && blank(*t)) ++t;
    if (ec == std::errc() && q != start && (t == e || *t == '\n')) {
      out.push_back(v);
      p = t;
      continue;
    }
    const char* end = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)));
    if (!end) end = e;
    const std::string_view cell = trim(std::string_view(p, static_cast<std::size_t>(end - p)));
    const ParseResult pr = parse_cell(cell, v);
    if (pr != ParseResult::ok) {
      if (inferring) return false;
      fail_cell<K>(r, pr, cell, line);
    }
    out.push_back(v);
    p = end;
  }
  return true;
}

template <typename K>
bool parse_all(const FileRequest& r, std::string_view text, std::vector<K>& out, bool inferring) {
  out.clear();
  out.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  if (r.column.empty()) return parse_lines(r, text, out, inferring);
  CellReader cells(r, text);
  Cell cell;
  while (cells.next(cell)) {
    K v{};
    const ParseResult pr = parse_cell(cell.text, v);
    if (pr != ParseResult::ok) {
      if (inferring) return false;
      fail_cell<K>(r, pr, cell.text, cell.line);
    }
    out.push_back(v);
  }
  return true;
}

FileColumn read_text(const FileRequest& r, const File& f, ColumnSink& sink) {
  if (r.offset) fail(r, "--offset applies to raw binary only", "drop --offset");
  // Mapped, not copied: the parser reads the page cache directly.
  const MappedFile mapped(r, f);
  const std::string_view text = mapped.view();
  FileColumn c;
  c.path = r.path;
  c.format = FileFormat::text;
  c.file_bytes = f.size();
  auto finish = [&](auto& values, KeyType key) {
    c.key = key;
    c.n = values.size();
    c.dtype = fmt::format("text {}", to_string(key));
    sink.sized(key, c.n);
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    const std::uint64_t total = c.n * key_bytes(key);
    for (std::uint64_t done = 0; done < total;) {
      const std::uint64_t m = std::min(ColumnSink::kMaxChunk, total - done);
      std::memcpy(sink.room(done, m), bytes + done, m);
      sink.filled(done, m);
      done += m;
    }
    add_nans(c.nans, key, bytes, 0, c.n);
  };
  std::optional<KeyType> key = r.key;
  if (!key) {
    // Inferred: i64 when every cell is an integer that fits, else u64, else f64.
    std::vector<std::int64_t> i64;
    if (parse_all(r, text, i64, true)) {
      finish(i64, KeyType::i64);
      return c;
    }
    std::vector<std::uint64_t> u64;
    if (parse_all(r, text, u64, true)) {
      finish(u64, KeyType::u64);
      return c;
    }
    key = KeyType::f64;
  }
  if (*key == KeyType::u32x4) fail(r, "--key u32x4 cannot be read from text", "give a scalar --key");
  dispatch_key<ScalarKeys>(*key, [&](auto k) {
    using K = decltype(k);
    std::vector<K> values;
    parse_all(r, text, values, false);
    finish(values, *key);
  });
  return c;
}

}  // namespace

FileColumn read_column(const FileRequest& request, ColumnSink& sink) {
  const File f(request);
  const FileFormat format = request.format ? *request.format : guess_file_format(request.path);
  if (format != FileFormat::raw && request.offset)
    fail(request, "--offset applies to raw binary only", "drop --offset or give --format raw");
  switch (format) {
    case FileFormat::npy: return read_npy(request, f, sink);
    case FileFormat::raw: return read_raw(request, f, sink);
    case FileFormat::text: return read_text(request, f, sink);
  }
  fail(request, "unknown format", "give --format npy|raw|text");
}

FileColumn read_column(const FileRequest& request, HostAllocator alloc) {
  HostColumnSink sink(alloc);
  FileColumn c = read_column(request, sink);
  c.data = std::move(sink.array);
  return c;
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

std::string npy_descr(KeyType key) {
  switch (key) {
    case KeyType::u32: return "<u4";
    case KeyType::i32: return "<i4";
    case KeyType::f32: return "<f4";
    case KeyType::u64: return "<u8";
    case KeyType::i64: return "<i8";
    case KeyType::f64: return "<f8";
    case KeyType::u32x4: break;
  }
  throw UsageError("u32x4 keys have no .npy form; use --key u32..f64 or --out with a raw file");
}

std::string npy_header(KeyType key, std::uint64_t n) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", npy_descr(key), n);
  // magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string h("\x93NUMPY\x01\x00", 8);
  h.push_back(static_cast<char>(dict.size() & 0xff));
  h.push_back(static_cast<char>(dict.size() >> 8));
  return h + dict;
}

namespace {

class OutFile {
 public:
  explicit OutFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(ExitCode::output, fmt::format("cannot write {}: {}; choose another path", path,
                                                           std::strerror(errno)));
  }
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(const void* data, std::uint64_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    while (bytes) {
      const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
      const ssize_t put = ::write(fd_, p, chunk);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0)
        throw Error(ExitCode::output, fmt::format("writing {} failed: {}; free space or choose another path", path_,
                                                  put < 0 ? std::strerror(errno) : "no progress"));
      p += put, bytes -= static_cast<std::uint64_t>(put);
    }
  }
  void close() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      throw Error(ExitCode::output, fmt::format("writing {} failed: {}; free space or choose another path", path_,
                                                std::strerror(errno)));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

template <typename K>
void append_text(std::string& out, const K& v) {
  char buf[64];
  const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, p);
  out.push_back('\n');
}

}  // namespace

struct ColumnWriter::State {
  State(const std::string& path, FileFormat f, KeyType k) : out(path), format(f), key(k) {}
  OutFile out;
  FileFormat format;
  KeyType key;
  std::uint64_t bytes = 0;
  std::string text;  // formatted values not yet written
};

ColumnWriter::ColumnWriter(const std::string& out_path, FileFormat format, KeyType key, std::uint64_t n) {
  if (format == FileFormat::text && key == KeyType::u32x4)
    throw UsageError("u32x4 keys cannot be written as text; write .npy or raw");
  state_ = std::make_unique<State>(out_path, format, key);
  if (format == FileFormat::npy) {
    const std::string header = npy_header(key, n);
    state_->out.write(header.data(), header.size());
    state_->bytes += header.size();
  }
}

ColumnWriter::~ColumnWriter() = default;

void ColumnWriter::append(const void* data, std::uint64_t count) {
  State& s = *state_;
  if (s.format != FileFormat::text) {
    s.out.write(data, count * key_bytes(s.key));
    s.bytes += count * key_bytes(s.key);
    return;
  }
  dispatch_key<ScalarKeys>(s.key, [&](auto k) {
    using K = decltype(k);
    const K* v = static_cast<const K*>(data);
    for (std::uint64_t i = 0; i < count; ++i) {
      append_text(s.text, v[i]);
      if (s.text.size() > (std::size_t{8} << 20)) {
        s.out.write(s.text.data(), s.text.size());
        s.bytes += s.text.size();
        s.text.clear();
      }
    }
  });
}

std::uint64_t ColumnWriter::close() {
  State& s = *state_;
  s.out.write(s.text.data(), s.text.size());
  s.bytes += s.text.size();
  s.text.clear();
  s.out.close();
  return s.bytes;
}

void write_column(const std::string& out_path, FileFormat format, KeyType key, const void* data, std::uint64_t n) {
  ColumnWriter w(out_path, format, key, n);
  w.append(data, n);
  w.close();
}

}  // namespace sb
