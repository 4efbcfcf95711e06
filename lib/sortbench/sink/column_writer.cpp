// Writing a column as .npy (version 1.0, 64-byte aligned data), raw or text, in pieces so a
// GPU download can stream into the file. Issue 35 item 5: input_file.cpp split by format; issue 37:
// a failed write says what happened to the disk in words, naming the file the user asked for.
// Issue 38: a part of a .npy or raw column written at its place, by one rank of several.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "sortbench/core/element.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/core/write_problem.hpp"
#include "sortbench/sink/column_writer.hpp"

namespace sb {

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
  throw UsageError("u32x4 keys have no .npy form; use --key u32..f64 or -o with a raw file");
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
  OutFile(const std::string& path, const std::string& name) : name_(name.empty() ? path : name) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(ExitCode::output, fmt::format("cannot write {}: {}; choose another path", name_,
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
      // A write that takes nothing without an error is a full disk on the file systems that say so
      // only on the next write.
      if (put <= 0) fail(put < 0 ? errno : ENOSPC);
      p += put, bytes -= static_cast<std::uint64_t>(put);
    }
  }
  void close() {
    const int fd = fd_;
    fd_ = -1;
    // Network file systems report a full disk at close.
    if (::close(fd) != 0) fail(errno);
  }

 private:
  [[noreturn]] void fail(int err) const {
    throw Error(ExitCode::output,
                fmt::format("writing {} failed: {}; free space or choose another path", name_, write_problem(err)));
  }
  std::string name_;
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
  State(const std::string& path, const std::string& name, FileFormat f, KeyType k)
      : out(path, name), format(f), key(k) {}
  OutFile out;
  FileFormat format;
  KeyType key;
  std::uint64_t bytes = 0;
  std::string text;  // formatted values not yet written
};

ColumnWriter::ColumnWriter(const std::string& out_path, FileFormat format, KeyType key, std::uint64_t n,
                           const std::string& name) {
  if (format == FileFormat::text && key == KeyType::u32x4)
    throw UsageError("u32x4 keys cannot be written as text; write .npy or raw");
  state_ = std::make_unique<State>(out_path, name, format, key);
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

ColumnPartWriter::ColumnPartWriter(const std::string& path, FileFormat format, KeyType key, std::uint64_t n,
                                   std::uint64_t first, const std::string& name)
    : name_(name.empty() ? path : name), width_(key_bytes(key)) {
  if (format == FileFormat::text)
    throw std::logic_error("ColumnPartWriter: text has no fixed place per element; write each part on its own");
  const std::string header = format == FileFormat::npy ? npy_header(key, n) : std::string();
  // No O_TRUNC: the other parts may already be in the file.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error(ExitCode::output, fmt::format("cannot write {}: {}; choose another path", name_, std::strerror(errno)));
  const std::uint64_t total = header.size() + n * width_;
  if (::ftruncate(fd_, static_cast<off_t>(total)) != 0) fail(errno);
  next_byte_ = header.size() + first * width_;
  if (first == 0 && !header.empty()) put(header.data(), header.size(), 0);
}

ColumnPartWriter::~ColumnPartWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void ColumnPartWriter::put(const void* data, std::uint64_t bytes, std::uint64_t at) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
    const ssize_t put = ::pwrite(fd_, p, chunk, static_cast<off_t>(at));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) fail(put < 0 ? errno : ENOSPC);
    p += put, at += static_cast<std::uint64_t>(put), bytes -= static_cast<std::uint64_t>(put);
  }
}

void ColumnPartWriter::append(const void* data, std::uint64_t count) {
  put(data, count * width_, next_byte_);
  next_byte_ += count * width_;
}

void ColumnPartWriter::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno);
}

void ColumnPartWriter::fail(int err) const {
  throw Error(ExitCode::output,
              fmt::format("writing {} failed: {}; free space or choose another path", name_, write_problem(err)));
}

void write_column(const std::string& out_path, FileFormat format, KeyType key, const void* data, std::uint64_t n) {
  ColumnWriter w(out_path, format, key, n);
  w.append(data, n);
  w.close();
}

}  // namespace sb
