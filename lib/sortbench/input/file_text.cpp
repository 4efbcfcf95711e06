// Reading text: one value per line, or a column (by header name or 0-based index) of a CSV
// with a header line, parsed with std::from_chars; the key type inferred when not given.
// Issue 35 item 5: input_file.cpp split by format. Issue 39 item 3: a leading UTF-8 byte-order
// mark is skipped and a first line that is not a number is a header without --column; an
// integer no 64-bit integer type holds is refused with its line rather than inferred as f64.
// Issue 38: the probe keeps an index of where every stride-th cell's line starts, so a rank's
// shard is read from near its first line, mapping only its own part of the file.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "sortbench/core/element.hpp"
#include "sortbench/input/file_common.hpp"

namespace sb::file_detail {
namespace {

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
  std::string_view text;  // empty where the caller skips the cell
  std::uint64_t line = 0;  // 1-based
  std::size_t line_begin = 0, line_end = 0;  // the line's bytes in the text, its '\n' included
};

// Where a parse starts: at the text's start, or (issue 38) at a checkpoint of the probe's index,
// with the column already found in the header and the lines before it counted.
struct TextStart {
  bool resumed = false;
  std::uint64_t lines_before = 0;
  std::size_t column_index = 0;
};

// A line's cells split at commas, trimmed, one pair of quotes taken off.
std::vector<std::string_view> cells_of(std::string_view line) {
  std::vector<std::string_view> cells;
  for (std::size_t start = 0;;) {
    const auto comma = line.find(',', start);
    std::string_view cell = trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') cell = cell.substr(1, cell.size() - 2);
    cells.push_back(cell);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

std::string listed(const std::vector<std::string_view>& names) {
  std::string known;
  for (const auto n : names) known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
  return known;
}

// --column as a 0-based index, when it is one.
std::optional<std::size_t> column_index(const std::string& column) {
  std::size_t k = 0;
  const auto [p, ec] = std::from_chars(column.data(), column.data() + column.size(), k);
  if (ec != std::errc() || p != column.data() + column.size() || column.empty()) return std::nullopt;
  return k;
}

// Splits the text into the cells of the wanted column, line by line.
class CellReader {
 public:
  CellReader(const FileRequest& r, std::string_view text, const TextStart& start = {}) : r_(r), text_(text) {
    if (start.resumed) {
      line_ = start.lines_before;
      column_ = start.column_index;
      return;
    }
    if (r.column.empty()) return;
    if (!r.header.value_or(true)) {
      // No header line (layout_of checked the index against line 1's cells).
      column_ = column_index(r.column).value_or(0);
      return;
    }
    // A CSV with a header line: the column by its name, else by its index.
    const auto eol = text_.find('\n');
    std::string_view header(text_.data(), eol == std::string::npos ? text_.size() : eol);
    pos_ = eol == std::string::npos ? text_.size() : eol + 1;
    line_ = 1;
    const std::vector<std::string_view> names = cells_of(header);
    const auto it = std::find(names.begin(), names.end(), r.column);
    const std::optional<std::size_t> k = column_index(r.column);
    if (it != names.end()) {
      column_ = static_cast<std::size_t>(it - names.begin());
    } else if (k && *k < names.size()) {
      column_ = *k;
    } else {
      fail(r, fmt::format("no column '{}' in the header line ({})", r.column, listed(names)),
           fmt::format("give --column with one of those names or an index from 0 to {}", names.size() - 1));
    }
  }

  // The next non-blank line's cell; split false: its line only (a cell skipped unparsed).
  bool next(Cell& cell, bool split = true) {
    while (pos_ < text_.size()) {
      const auto eol = text_.find('\n', pos_);
      const std::size_t end = eol == std::string::npos ? text_.size() : eol;
      std::string_view line(text_.data() + pos_, end - pos_);
      const std::size_t line_begin = pos_;
      pos_ = end + 1;
      ++line_;
      if (trim(line).empty()) continue;
      if (!split) {
        cell = {std::string_view(), line_, line_begin, std::min(pos_, text_.size())};
        return true;
      }
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
      if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
        field = trim(field.substr(1, field.size() - 2));
      cell = {field, line_, line_begin, std::min(pos_, text_.size())};
      return true;
    }
    return false;
  }
  std::size_t column() const { return column_; }

 private:
  const FileRequest& r_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 0;
  std::size_t column_ = 0;
};

// The keys that hold a cell K cannot (out of range): wider ones only, never K itself.
template <typename K>
std::string wider_keys(std::string_view cell) {
  const bool negative = !cell.empty() && cell.front() == '-';
  switch (KeyTraits<K>::type) {
    case KeyType::u32: return negative ? "give a signed --key (i32, i64) or f64" : "give --key u64, i64 or f64";
    case KeyType::i32: return "give --key i64 or f64";
    case KeyType::u64:
      return negative ? "give --key i64 (when no key is past 2^63) or f64"
                      : "no integer key is wider: give --key f64 (exact to 2^53)";
    case KeyType::i64:
      return negative ? "no integer key is wider: give --key f64 (exact to 2^53)"
                      : "give --key u64 (when no key is negative) or f64";
    case KeyType::f32: return "give --key f64";
    default: return "the value is past every key type's range: fix that cell";
  }
}

template <typename K>
[[noreturn]] void fail_cell(const FileRequest& r, ParseResult pr, std::string_view cell, std::uint64_t line) {
  const std::string where =
      r.column.empty() ? fmt::format("line {}", line) : fmt::format("line {}, column '{}'", line, r.column);
  if (pr == ParseResult::out_of_range)
    fail(r, fmt::format("{}: '{}' does not fit a {} key", where, cell, to_string(KeyTraits<K>::type)),
         wider_keys<K>(cell));
  fail(r, fmt::format("{}: '{}' is not a number", where, cell), "fix or remove that cell");
}

inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool integer_syntax(std::string_view cell) {
  if (!cell.empty() && (cell.front() == '+' || cell.front() == '-')) cell.remove_prefix(1);
  return !cell.empty() && std::all_of(cell.begin(), cell.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Which cells a parse keeps: those of the range. Cells before it are skipped unparsed and the
// parse stops after its last, unless every cell must parse (to infer the column's key type).
struct CellWindow {
  ElementRange range;
  bool parse_every_cell = false;
  bool before(std::uint64_t i) const { return i < range.first; }
  bool after(std::uint64_t i) const { return i >= range.first && range.count && i - range.first >= *range.count; }
};

// What a parse saw: the cells up to where it stopped (so the column's length wherever the parse
// read to the end), and the byte span of the kept cells' lines.
struct TextScan {
  std::uint64_t cells = 0, kept = 0;
  std::size_t begin = 0, end = 0;
  // While inferring: the first integer cell the type tried cannot hold. The parse goes on, so that
  // a later non-integer cell (the column is then f64's) can tell it from a column of integers only
  // (then that integer fits no 64-bit integer type, and f64 would silently round it).
  struct Overflow {
    std::string cell;
    std::uint64_t line = 0;
  };
  std::optional<Overflow> overflow;
  // The probe's line index (stride 0: none kept): where every stride-th cell's line starts.
  std::uint64_t stride = 0;
  std::vector<TextLineIndex::Checkpoint> checkpoints;
  std::size_t column_index = 0;
  void mark(std::uint64_t cell, std::size_t line_begin, std::uint64_t line) {
    if (stride && cell % stride == 0 && cell / stride == checkpoints.size())
      checkpoints.push_back({cell, line_begin, line - 1});
  }
  void keep(std::size_t line_begin, std::size_t line_end) {
    if (kept++ == 0) begin = line_begin;
    end = line_end;
  }
  // A cell the inferred type cannot take: whether the parse stops (the type is wrong for the column).
  bool stops_inference(ParseResult pr, std::string_view cell, std::uint64_t line) {
    if (pr == ParseResult::out_of_range && integer_syntax(cell)) {
      if (!overflow) overflow = Overflow{std::string(cell), line};
      return false;
    }
    overflow.reset();
    return true;
  }
};

// One value per line: parse in place with from_chars from the line's first character; a
// line the fast path cannot take whole ("3.0" for an integer key, a stray character) goes
// through parse_cell for its meaning or its error.
template <typename K>
bool parse_lines(const FileRequest& r, std::string_view text, const CellWindow& w, std::vector<K>& out,
                 TextScan& scan, bool inferring, std::uint64_t lines_before) {
  const char* const b = text.data();
  const char* p = b;
  const char* const e = p + text.size();
  const char* line_begin = p;
  std::uint64_t line = lines_before + 1;
  auto line_end = [&](const char* eol) { return static_cast<std::size_t>((eol < e ? eol + 1 : e) - b); };
  while (p < e) {
    while (p < e && blank(*p)) ++p;
    if (p == e) break;
    if (*p == '\n') {
      ++p, ++line;
      line_begin = p;
      continue;
    }
    const std::uint64_t index = scan.cells;
    const bool keep = !w.before(index) && !w.after(index);
    if (keep || w.parse_every_cell || w.before(index)) scan.mark(index, static_cast<std::size_t>(line_begin - b), line);
    if (!keep && !w.parse_every_cell) {
      if (!w.before(index)) break;
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)));
      p = eol ? eol : e;
      ++scan.cells;
      continue;
    }
    ++scan.cells;
    K v{};
    const char* start = p + (*p == '+' ? 1 : 0);
    const auto [q, ec] = std::from_chars(start, e, v);
    const char* t = q;
    while (t < e && blank(*t)) ++t;
    if (ec == std::errc() && q != start && (t == e || *t == '\n')) {
      if (keep) {
        out.push_back(v);
        scan.keep(static_cast<std::size_t>(line_begin - b), line_end(t));
      }
      p = t;
      continue;
    }
    const char* end = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)));
    if (!end) end = e;
    const std::string_view cell = trim(std::string_view(p, static_cast<std::size_t>(end - p)));
    const ParseResult pr = parse_cell(cell, v);
    if (pr != ParseResult::ok) {
      if (!inferring) fail_cell<K>(r, pr, cell, line);
      if (scan.stops_inference(pr, cell, line)) return false;
      p = end;
      continue;
    }
    if (keep) {
      out.push_back(v);
      scan.keep(static_cast<std::size_t>(line_begin - b), line_end(end));
    }
    p = end;
  }
  return !scan.overflow;
}

template <typename K>
bool parse_column(const FileRequest& r, std::string_view text, const CellWindow& w, std::vector<K>& out,
                  TextScan& scan, bool inferring, const TextStart& start = {}) {
  out.clear();
  const std::uint64_t stride = scan.stride;
  scan = {};
  scan.stride = stride;
  // A range bounds the count, and so does the text: a cell takes at least two bytes ("7\n").
  out.reserve(w.range.count ? static_cast<std::size_t>(std::min<std::uint64_t>(*w.range.count, text.size() / 2 + 1))
                            : static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  if (r.column.empty()) return parse_lines(r, text, w, out, scan, inferring, start.lines_before);
  CellReader cells(r, text, start);
  scan.column_index = cells.column();
  Cell cell;
  for (;;) {
    const std::uint64_t index = scan.cells;
    const bool keep = !w.before(index) && !w.after(index);
    if (!keep && !w.parse_every_cell && !w.before(index)) break;
    if (!cells.next(cell, keep || w.parse_every_cell)) break;
    scan.mark(index, cell.line_begin, cell.line);
    ++scan.cells;
    if (!keep && !w.parse_every_cell) continue;
    K v{};
    const ParseResult pr = parse_cell(cell.text, v);
    if (pr != ParseResult::ok) {
      if (!inferring) fail_cell<K>(r, pr, cell.text, cell.line);
      if (scan.stops_inference(pr, cell.text, cell.line)) return false;
      continue;
    }
    if (keep) {
      out.push_back(v);
      scan.keep(cell.line_begin, cell.line_end);
    }
  }
  return !scan.overflow;
}

// After i64 and u64 both failed on a column of integers only: no 64-bit integer key holds it, and
// f64 would round its large values silently.
void refuse_integer_overflow(const FileRequest& r, const TextScan& as_i64, const TextScan& as_u64) {
  if (!as_u64.overflow) return;
  auto where = [&](std::uint64_t line) {
    return r.column.empty() ? fmt::format("line {}", line) : fmt::format("line {}, column '{}'", line, r.column);
  };
  const auto& u = *as_u64.overflow;
  const std::string fix = "give --key f64 to read the column as floats, or fix that cell";
  if (u.cell.front() == '-' && as_i64.overflow && as_i64.overflow->line != u.line)
    fail(r, fmt::format("{}: '{}' needs a signed key and {}: '{}' an unsigned one; no 64-bit integer key holds both",
                        where(u.line), u.cell, where(as_i64.overflow->line), as_i64.overflow->cell),
         fix);
  fail(r, fmt::format("{}: '{}' does not fit a 64-bit integer key (i64 or u64)", where(u.line), u.cell), fix);
}

// The text as its cells are read: past a UTF-8 byte-order mark (spreadsheets write one before the
// header), with whether line 1 is a header settled (FileRequest::header) and the column checked
// against it. A header is never guessed from a line that could be data: line 1 is data when every
// cell of it is a number, a header when none is, and a line of both is refused unless --header or
// --no-header says which. Without --column, a one-column header names the column read.
struct TextLayout {
  FileRequest request;
  std::string_view text;
  std::uint64_t text_offset = 0;  // the byte-order mark's bytes
};

TextLayout layout_of(const FileRequest& r, std::string_view text) {
  TextLayout layout{r, text};
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, bom.size()) == bom) {
    layout.text.remove_prefix(bom.size());
    layout.text_offset = bom.size();
  }
  FileRequest& out = layout.request;
  const std::string_view first = trim(layout.text.substr(0, layout.text.find('\n')));
  if (first.empty()) {
    // Nothing on line 1 to tell by: a --column name can only be a header's.
    out.header = r.header.value_or(!r.column.empty() && !column_index(r.column));
    return layout;
  }
  const std::vector<std::string_view> cells = cells_of(first);
  double number = 0;
  const auto numbers = static_cast<std::size_t>(std::count_if(cells.begin(), cells.end(), [&](std::string_view c) {
    return parse_cell(c, number) != ParseResult::not_a_number;
  }));
  if (!r.header) {
    if (numbers != 0 && numbers != cells.size())
      fail(r,
           fmt::format("line 1 ({}) mixes numbers and names, so it may be a header or data", listed(cells)),
           "give --header if line 1 names the columns, or --no-header if it is data");
    out.header = numbers == 0;
  }
  const std::string range = fmt::format("an index from 0 to {}", cells.size() - 1);
  if (*out.header) {
    if (!r.column.empty()) return layout;  // CellReader finds it by name or index
    if (cells.size() > 1)
      fail(r, fmt::format("line 1 is a header naming {} columns ({})", cells.size(), listed(cells)),
           fmt::format("give --column with one of those names or {}", range));
    out.column = std::string(cells.front());
    return layout;
  }
  if (r.column.empty()) {
    if (cells.size() > 1)
      fail(r, fmt::format("line 1 is data with {} columns (no header line)", cells.size()),
           fmt::format("give --column with {}", range));
    return layout;
  }
  const std::optional<std::size_t> k = column_index(r.column);
  if (!k || *k >= cells.size())
    fail(r,
         fmt::format("no column '{}': the file has no header line (line 1 is data) and {} columns", r.column,
                     cells.size()),
         fmt::format("give --column with {}, or --header if line 1 names the columns", range));
  return layout;
}

ColumnInfo text_info(const FileRequest& r, const File& f, KeyType key, std::uint64_t n) {
  ColumnInfo info;
  info.path = r.path;
  info.format = FileFormat::text;
  info.key = key;
  info.dtype = fmt::format("text {}", to_string(key));
  info.n = n;
  info.file_bytes = f.size();
  return info;
}

// The parsed cells of a range handed to the sink in chunks, as every other reader hands them.
template <typename K>
void hand_over(const std::vector<K>& values, KeyType key, ColumnSink& sink, FileColumn& c) {
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
}

// A range read through the probe's index (issue 38): the key type and the column are the probe's,
// and only the lines from the checkpoint at or before the range to the checkpoint after it are
// mapped and read.
FileColumn read_text_indexed(const FileRequest& request, const File& f, const ElementRange& range, ColumnSink& sink) {
  const TextLineIndex& index = *request.lines;
  const auto& marks = index.checkpoints;
  const TextLineIndex::Checkpoint from = marks[std::min<std::uint64_t>(range.first / index.stride, marks.size() - 1)];
  std::uint64_t end = index.file_bytes;
  if (range.count && *range.count <= index.cells) {
    const std::uint64_t after = (range.first + *range.count + index.stride - 1) / index.stride;
    if (after < marks.size()) end = index.text_offset + marks[after].byte;
  }
  const std::uint64_t begin = std::min(index.text_offset + from.byte, end);
  // A mapping past the file's end faults on first touch: a file cut short since the probe is refused
  // (by the ranks whose lines it lost; the others still read theirs).
  if (end > f.size())
    fail(request,
         fmt::format("the file ends at byte {} but its lines ran to byte {} when they were counted (it was "
                     "truncated since)",
                     f.size(), end),
         "write the file again");
  const MappedFile mapped(request, f, begin, end - begin);
  FileRequest r = request;
  r.column = index.column;
  const KeyType key = request.key.value_or(index.key);
  if (key == KeyType::u32x4) fail(r, "--key u32x4 cannot be read from text", "give a scalar --key");
  const TextStart start{true, from.lines_before, index.column_index};
  const CellWindow window{ElementRange{range.first - from.cell, range.count}, false};
  FileColumn c;
  dispatch_key<ScalarKeys>(key, [&](auto k) {
    using K = decltype(k);
    std::vector<K> values;
    TextScan scan;
    parse_column(r, mapped.view(), window, values, scan, false, start);
    // The parse reads to the mapped end only where the range runs past the column's end (the mapping
    // then runs to the file's end): the cells before the checkpoint and those it counted are the column.
    const ColumnSlice slice = resolve_range(r, range, from.cell + scan.cells);
    c = column_of(text_info(r, f, key, index.cells), range, slice, scan.end - scan.begin);
    hand_over(values, key, sink, c);
  });
  return c;
}

}  // namespace

FileColumn read_text(const FileRequest& request, const File& f, const ElementRange& range, ColumnSink& sink) {
  if (request.offset) fail(request, "--offset applies to raw binary only", "drop --offset");
  if (request.lines && !request.lines->checkpoints.empty()) return read_text_indexed(request, f, range, sink);
  // Mapped, not copied: the parser reads the page cache directly.
  const MappedFile mapped(request, f);
  const TextLayout layout = layout_of(request, mapped.view());
  const FileRequest& r = layout.request;
  const std::string_view text = layout.text;
  FileColumn c;
  auto finish = [&](auto& values, KeyType key, const TextScan& scan) {
    // A range the parse did not fill made it read to the end: scan.cells is then the column's length.
    const ColumnSlice slice = resolve_range(r, range, scan.cells);
    c = column_of(text_info(r, f, key, scan.cells), range, slice, scan.end - scan.begin);
    hand_over(values, key, sink, c);
  };
  std::optional<KeyType> key = r.key;
  TextScan scan;
  if (!key) {
    // Inferred from every cell, as a slice's type is the column's: i64 when every cell is an
    // integer that fits, else u64, else f64.
    const CellWindow every_cell{range, true};
    std::vector<std::int64_t> i64;
    if (parse_column(r, text, every_cell, i64, scan, true)) {
      finish(i64, KeyType::i64, scan);
      return c;
    }
    const TextScan as_i64 = scan;
    i64 = {};
    std::vector<std::uint64_t> u64;
    if (parse_column(r, text, every_cell, u64, scan, true)) {
      finish(u64, KeyType::u64, scan);
      return c;
    }
    refuse_integer_overflow(r, as_i64, scan);
    key = KeyType::f64;
  }
  if (*key == KeyType::u32x4) fail(r, "--key u32x4 cannot be read from text", "give a scalar --key");
  // An inferred f64 parses every cell too: a cell no key type takes is then an error in every
  // range, as in a whole read, not only in the range that holds it.
  const CellWindow window{range, !r.key};
  dispatch_key<ScalarKeys>(*key, [&](auto k) {
    using K = decltype(k);
    std::vector<K> values;
    parse_column(r, text, window, values, scan, false);
    finish(values, *key, scan);
  });
  return c;
}

ColumnInfo probe_text(const FileRequest& request, const File& f, std::uint64_t stride) {
  if (request.offset) fail(request, "--offset applies to raw binary only", "drop --offset");
  const MappedFile mapped(request, f);
  const TextLayout layout = layout_of(request, mapped.view());
  const FileRequest& r = layout.request;
  const std::string_view text = layout.text;
  std::optional<KeyType> key = r.key;
  TextScan scan;
  scan.stride = stride;
  // The lines' index comes with the count, from the parse that settled the key type.
  auto indexed = [&](KeyType k) {
    ColumnInfo info = text_info(r, f, k, scan.cells);
    auto index = std::make_shared<TextLineIndex>();
    index->stride = stride;
    index->checkpoints = std::move(scan.checkpoints);
    index->cells = scan.cells;
    index->text_offset = layout.text_offset;
    index->file_bytes = f.size();
    index->column = r.column;
    index->column_index = scan.column_index;
    index->key = k;
    info.lines = std::move(index);
    return info;
  };
  if (!key) {
    // Every cell parsed, none kept.
    const CellWindow parse_only{ElementRange{0, 0}, true};
    std::vector<std::int64_t> i64;
    if (parse_column(r, text, parse_only, i64, scan, true)) return indexed(KeyType::i64);
    const TextScan as_i64 = scan;
    std::vector<std::uint64_t> u64;
    if (parse_column(r, text, parse_only, u64, scan, true)) return indexed(KeyType::u64);
    refuse_integer_overflow(r, as_i64, scan);
    key = KeyType::f64;
  }
  if (*key == KeyType::u32x4) fail(r, "--key u32x4 cannot be read from text", "give a scalar --key");
  // Every cell skipped before a range that starts past any column, so counted and never parsed:
  // the parse's element type does not matter.
  const CellWindow count_only{ElementRange{~std::uint64_t{0}, 0}, false};
  std::vector<double> none;
  parse_column(r, text, count_only, none, scan, false);
  return indexed(*key);
}

}  // namespace sb::file_detail
