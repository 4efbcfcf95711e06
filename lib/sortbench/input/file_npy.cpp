// Reading NumPy .npy files (format versions 1.0-3.0; NEP 1, numpy/lib/format.py): the header
// dict parsed by hand, the data read in chunks straight into the sink. Issue 35 item 5:
// input_file.cpp split by format.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "sortbench/input/file_common.hpp"

namespace sb::file_detail {
namespace {

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;
};

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

// A .npy column checked against its header and the file's size: where its data starts and how its
// rows are laid out.
struct NpyLayout {
  ColumnInfo info;
  std::uint64_t cols = 1, column = 0, data_offset = 0;
  bool big = false;
};

NpyLayout npy_layout(const FileRequest& r, const File& f) {
  if (f.size() == 0) {
    // An empty file is n = 0 in every format (docs/inputs.md): it has no dtype, so --key's or u32.
    NpyLayout empty;
    empty.info.path = r.path;
    empty.info.format = FileFormat::npy;
    empty.info.key = r.key.value_or(KeyType::u32);
    empty.info.dtype = "empty file";
    return empty;
  }
  const NpyHeader h = read_npy_header(r, f);
  const char order = h.descr.empty() ? '?' : h.descr[0];
  const auto key = h.descr.size() == 3 && (order == '<' || order == '>' || order == '=' || order == '|')
                       ? key_of_npy_code(h.descr[1], h.descr[2])
                       : std::nullopt;
  if (!key)
    fail(r, fmt::format("dtype '{}' ({}) is not supported; keys are u4 i4 f4 u8 i8 f8", h.descr, dtype_name(h.descr)),
         "convert it first, e.g. numpy.save(path, a.astype(numpy.int64))");
  check_key_agrees(r, *key, "dtype '" + h.descr + "'");
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
  NpyLayout l;
  l.info.path = r.path;
  l.info.format = FileFormat::npy;
  l.info.key = *key;
  l.info.dtype = h.descr;
  l.info.n = rows;
  l.info.file_bytes = f.size();
  l.cols = cols;
  l.column = column;
  l.data_offset = h.data_offset;
  l.big = order == '>';
  return l;
}

}  // namespace

ColumnInfo probe_npy(const FileRequest& r, const File& f) { return npy_layout(r, f).info; }

FileColumn read_npy(const FileRequest& r, const File& f, const ElementRange& range, ColumnSink& sink) {
  const NpyLayout l = npy_layout(r, f);
  const ColumnSlice rows = resolve_range(r, range, l.info.n);
  const std::size_t width = key_bytes(l.info.key);
  const std::uint64_t row_bytes = l.cols * width;
  FileColumn c = column_of(l.info, range, rows, rows.count * row_bytes);
  sink.sized(c.key, c.n);
  if (l.cols == 1) {
    read_chunks(r, f, sink, c, l.data_offset + rows.first * row_bytes, l.big);
    return c;
  }
  // Row-major table: read blocks of rows, keep one column.
  const std::uint64_t block_rows =
      std::max<std::uint64_t>(1, std::min((std::uint64_t{16} << 20) / row_bytes, ColumnSink::kMaxChunk / width));
  std::vector<unsigned char> block(block_rows * row_bytes);
  for (std::uint64_t done = 0; done < c.n; done += block_rows) {
    const std::uint64_t m = std::min(block_rows, c.n - done);
    if (!f.read_at(block.data(), m * row_bytes, l.data_offset + (rows.first + done) * row_bytes))
      fail(r, f.read_failure(l.data_offset + (rows.first + c.n) * row_bytes), "write the file again");
    unsigned char* dst = sink.room(done * width, m * width);
    for (std::uint64_t i = 0; i < m; ++i)
      std::memcpy(dst + i * width, block.data() + i * row_bytes + l.column * width, width);
    if (l.big) byteswap_in_place(dst, m, width);
    add_nans(c.nans, c.key, dst, done, m);
    sink.filled(done * width, m * width);
  }
  return c;
}

}  // namespace sb::file_detail
