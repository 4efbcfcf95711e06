// One output file written by the ranks of a distributed sort (issue 38: sort IN -o OUT --gpus N):
// each rank writes its sorted part at its global offset, all into one file under a temporary name
// beside the target, renamed into place by commit() once every rank wrote and the run verified. A
// .npy or raw part goes straight to its place in that file; text has no fixed width per element, so
// each rank writes its lines to a part file of its own and commit() joins them in rank order. An
// output not committed is removed with its parts when it is destroyed (and on SIGINT/SIGTERM), so a
// failure leaves no output file behind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sortbench/sink/column_writer.hpp"

namespace sb {

class RankFileOutput {
 public:
  struct Target {
    std::string path;
    FileFormat format = FileFormat::raw;
    KeyType type = KeyType::u32;
  };
  // n elements written by `world` ranks. aside: the temporary every rank writes; processes of one
  // run must pass the same name (shared_aside_path), threads of one process may take the default.
  RankFileOutput(Target target, std::uint64_t n, int world, std::string aside = {});
  ~RankFileOutput();
  RankFileOutput(const RankFileOutput&) = delete;
  RankFileOutput& operator=(const RankFileOutput&) = delete;

  // A rank's part: elements [offset, offset + count), appended in order from host memory. Each rank
  // writes through its own Part, so ranks on threads of one process write at once.
  class Part {
   public:
    virtual ~Part() = default;
    virtual void append(const void* data, std::uint64_t count) = 0;
    virtual void close() = 0;
  };
  // Throws UsageError (exit 2, as sort's other output problems) when the file cannot be written.
  std::unique_ptr<Part> part(int rank, std::uint64_t offset, std::uint64_t count);
  // After every rank's part was closed: joins text parts, renames the file into place; its bytes.
  std::uint64_t commit();
  // This process is not the one that commits (process mode, rank > 0): its destructor leaves the
  // file and its part to the process that does.
  void leave_to_committer();

  const std::string& aside() const { return aside_; }
  std::string part_path(int rank) const;

 private:
  Target target_;
  std::uint64_t n_;
  int world_;
  std::string aside_;
  std::vector<int> slots_;  // registered temporaries (SIGINT removes them)
  bool done_ = false;
};

// The temporary name every process of one run derives alike: beside the target, named after the
// rendezvous directory the processes share (a pid would differ from process to process).
std::string shared_aside_path(const std::string& target, const std::string& rendezvous);

}  // namespace sb
