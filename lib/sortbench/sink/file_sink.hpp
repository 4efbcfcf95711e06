// The output sink of `sort` (placement.hpp's OutputSink): the sorted keys, and a value column
// or the sorting permutation, written to files in the input's format. Each file is written
// under a temporary name beside its target, in pieces as the columns stream out of the
// placement, and renamed into place by commit() once everything passed; a sink destroyed
// uncommitted removes its temporaries, so a failure never leaves a partial output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sortbench/sink/column_writer.hpp"
#include "sortbench/place/placement.hpp"

namespace sb {

class FileSink final : public OutputSink {
 public:
  struct Target {
    std::string path;
    FileFormat format = FileFormat::raw;
    KeyType type = KeyType::u32;  // of the elements written
  };
  // n elements each. keys: where the sorted keys go (absent: not written). values: where the
  // value column goes; with positions set, the column holds that payload's encoded input
  // positions (values.hpp), written decoded as target.type (u32 or u64).
  FileSink(std::uint64_t n, std::optional<Target> keys, std::optional<Target> values,
           std::optional<Payload> positions = std::nullopt);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  bool wants(Column column) const override;
  void write(Column column, std::uint64_t first_byte, const unsigned char* data, std::uint64_t bytes) override;
  // Closes every file: the bytes written. Throws UsageError on a write failure (disk full).
  std::uint64_t close();
  // Renames every file into place. Throws UsageError when a rename fails.
  void commit();

 private:
  class Pending;
  std::unique_ptr<Pending> keys_, values_;
  std::optional<Payload> positions_;
  std::vector<std::uint64_t> decoded_;
};

}  // namespace sb
