// The ranks' output file of sort --gpus (rank_file_output.hpp); issue 38.
#include "sortbench/sink/rank_file_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/core/temp_files.hpp"
#include "sortbench/place/launch_env.hpp"

namespace sb {
namespace {

// A rank's part through one of the column writers (ColumnPartWriter at the rank's offset in the
// shared file, or ColumnWriter into the rank's own text part), each failure a user's one line.
template <typename Writer>
class WriterPart final : public RankFileOutput::Part {
 public:
  template <typename Make>
  explicit WriterPart(Make make) : writer_(as_usage_error(make)) {}
  void append(const void* data, std::uint64_t count) override {
    as_usage_error([&] { writer_->append(data, count); });
  }
  void close() override {
    as_usage_error([&] { writer_->close(); });
  }

 private:
  std::unique_ptr<Writer> writer_;
};

}  // namespace

std::string shared_aside_path(const std::string& target, const std::string& rendezvous) {
  // Spelled alike by every process however each was given the directory ("dir", "./dir/"); a
  // tcp:// rendezvous (rank 0's address) is the same text for every rank.
  std::error_code ec;
  std::string dir = is_tcp_rendezvous(rendezvous)
                        ? rendezvous
                        : std::filesystem::weakly_canonical(std::filesystem::absolute(rendezvous, ec), ec).string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return fmt::format("{}.sortbench-ranks-{:016x}.tmp", target, std::hash<std::string>{}(dir));
}

RankFileOutput::RankFileOutput(Target target, std::uint64_t n, int world, std::string aside)
    : target_(std::move(target)), n_(n), world_(world), aside_(aside.empty() ? temp_path_for(target_.path) : aside) {
  if (target_.format == FileFormat::text && target_.type == KeyType::u32x4)
    throw UsageError("u32x4 keys cannot be written as text; write .npy or raw");
  slots_.push_back(register_temp_file(aside_.c_str()));
  if (target_.format == FileFormat::text)
    for (int r = 0; r < world_; ++r) slots_.push_back(register_temp_file(part_path(r).c_str()));
}

RankFileOutput::~RankFileOutput() {
  if (!done_) {
    ::remove(aside_.c_str());
    if (target_.format == FileFormat::text)
      for (int r = 0; r < world_; ++r) ::remove(part_path(r).c_str());
  }
  for (int slot : slots_) unregister_temp_file(slot);
}

std::string RankFileOutput::part_path(int rank) const { return fmt::format("{}.part-{}", aside_, rank); }

std::unique_ptr<RankFileOutput::Part> RankFileOutput::part(int rank, std::uint64_t offset, std::uint64_t count) {
  const Target& t = target_;
  if (t.format == FileFormat::text)
    return std::make_unique<WriterPart<ColumnWriter>>(
        [&] { return std::make_unique<ColumnWriter>(part_path(rank), t.format, t.type, count, t.path); });
  return std::make_unique<WriterPart<ColumnPartWriter>>(
      [&] { return std::make_unique<ColumnPartWriter>(aside_, t.format, t.type, n_, offset, t.path); });
}

std::uint64_t RankFileOutput::commit() {
  if (target_.format == FileFormat::text) {
    // The lines of rank 0, then rank 1's...: the parts in rank order are the sorted column.
    std::ofstream joined(aside_, std::ios::binary | std::ios::trunc);
    std::vector<char> buffer(std::size_t{8} << 20);
    for (int r = 0; r < world_ && joined; ++r) {
      std::ifstream part(part_path(r), std::ios::binary);
      if (!part)
        throw UsageError(fmt::format("writing {} failed: rank {}'s part {} is gone; write the output again",
                                     target_.path, r, part_path(r)));
      while (part) {
        part.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        joined.write(buffer.data(), part.gcount());
      }
    }
    joined.close();
    if (!joined)
      throw UsageError(fmt::format("writing {} failed: the disk is full or the file cannot be written; free space "
                                   "or choose another path",
                                   target_.path));
    for (int r = 0; r < world_; ++r) ::remove(part_path(r).c_str());
  }
  std::error_code ec;
  const std::uint64_t bytes = std::filesystem::file_size(aside_, ec);
  if (std::rename(aside_.c_str(), target_.path.c_str()) != 0)
    throw UsageError(fmt::format("cannot rename {} to {}: {}; choose another output path", aside_, target_.path,
                                 std::strerror(errno)));
  done_ = true;
  return ec ? 0 : bytes;
}

void RankFileOutput::leave_to_committer() { done_ = true; }

}  // namespace sb
