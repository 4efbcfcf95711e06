// The file sink of `sort` (file_sink.hpp); issue 37: its temporaries are registered so an interrupt
// removes them too (core/temp_files.hpp).
#include "sortbench/sink/file_sink.hpp"

#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "sortbench/core/values.hpp"

namespace sb {

// One file written under a temporary name (registered, so SIGINT removes it too), in pieces,
// and renamed into place by commit(); removed if not committed, also when its writer cannot start.
class FileSink::Pending {
 public:
  Pending(const Target& target, std::uint64_t n) : temp_(target.path), width_(key_bytes(target.type)) {
    writer_ = as_usage_error(
        [&] { return std::make_unique<ColumnWriter>(temp_.path(), target.format, target.type, n, target.path); });
  }
  void append(const void* data, std::uint64_t count) {
    as_usage_error([&] { writer_->append(data, count); });
  }
  std::size_t width() const { return width_; }
  std::uint64_t close() {
    return as_usage_error([&] { return writer_->close(); });
  }
  void commit() {
    as_usage_error([&] { temp_.commit(); });
  }

 private:
  // Declared before the writer, so the file is closed before its temporary name is removed.
  TempOutput temp_;
  std::size_t width_;
  std::unique_ptr<ColumnWriter> writer_;
};

FileSink::FileSink(std::uint64_t n, std::optional<Target> keys, std::optional<Target> values,
                   std::optional<Payload> positions)
    : positions_(positions) {
  if (keys) keys_ = std::make_unique<Pending>(*keys, n);
  if (values) values_ = std::make_unique<Pending>(*values, n);
}

FileSink::~FileSink() = default;

bool FileSink::wants(Column column) const { return column == Column::keys ? bool(keys_) : bool(values_); }

void FileSink::write(Column column, std::uint64_t, const unsigned char* data, std::uint64_t bytes) {
  if (column == Column::keys) {
    keys_->append(data, bytes / keys_->width());
    return;
  }
  if (positions_ == Payload::u64) {
    // Positions past 2^32 keys: u64, decoded from the u64 payload's check bits.
    decoded_.resize(bytes / 8);
    const auto* encoded = reinterpret_cast<const std::uint64_t*>(data);
    for (std::size_t i = 0; i < decoded_.size(); ++i)
      decode_value<std::uint64_t>(Payload::u64, encoded[i], decoded_[i]);
    values_->append(decoded_.data(), decoded_.size());
    return;
  }
  values_->append(data, bytes / values_->width());
}

std::uint64_t FileSink::close() {
  std::uint64_t bytes = 0;
  if (keys_) bytes += keys_->close();
  if (values_) bytes += values_->close();
  return bytes;
}

void FileSink::commit() {
  if (keys_) keys_->commit();
  if (values_) values_->commit();
}

}  // namespace sb
