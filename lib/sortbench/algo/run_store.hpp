// Where the external sort keeps the sorted runs of its first pass (issue 52 item 1;
// docs/outofcore.md, "External sort"): in host memory while they fit in what the host memory
// limit leaves, else in a file a column in the temporary folder. The files are registered as live
// temporaries, so that Ctrl-C or SIGTERM removes them (core/temp_files.hpp), and removed when the
// store is destroyed, whether the sort finished or failed: no run is left behind.
#pragma once

#include <cstdint>
#include <string>

namespace sb {

// What the placement lets the runs take (StreamedBuffers::runs).
struct RunSpace {
  std::uint64_t host_bytes = 0;  // host memory the runs may fill; runs larger than this go to files
  std::string tmp_dir = ".";     // where the files go (--tmp-dir; sort: beside its output)
};

// The folder given for the runs (--tmp-dir), before a sort needs it: UsageError (exit 2) naming
// it where it is not an existing folder.
void check_tmp_dir(const std::string& dir);

class RunStore {
 public:
  // Room for n elements of key_bytes and value_bytes (0: keys alone). Throws UsageError naming
  // the folder when a file cannot be made there.
  RunStore(std::uint64_t n, unsigned key_bytes, unsigned value_bytes, const RunSpace& space);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  bool in_memory() const { return memory_ != nullptr; }
  // The bytes the runs take in files (0 in memory), and where: "memory" or the keys file.
  std::uint64_t file_bytes() const;
  std::string where() const;

  // Pass 1: elements [first, first + count). A full disk is UsageError (exit 2) naming the folder
  // and the bytes the runs need.
  void write(std::uint64_t first, std::uint64_t count, const void* keys, const void* vals);
  // Between the passes: a file removed or truncated since it was written is UsageError (the sort
  // cannot go on: its runs are gone).
  void seal() const;
  // In memory: every key (the selection reads them in place); null in files.
  const void* keys() const { return memory_; }
  // Pass 2: elements [first, first + count) into host memory (vals ignored without values), and
  // the keys alone (the selection's reads of files). Safe from several threads at once.
  void read(std::uint64_t first, std::uint64_t count, void* keys, void* vals) const;
  void read_keys(std::uint64_t first, std::uint64_t count, void* keys) const;

 private:
  struct Column {
    std::string path;
    int fd = -1;
    int slot = -1;  // its place in the registry of live temporaries
    std::uint64_t bytes = 0;
    unsigned long long ino = 0;
  };
  void open_column(Column& c, const char* what, std::uint64_t bytes);
  void put(Column& c, const void* data, std::uint64_t bytes, std::uint64_t offset);
  void get(const Column& c, void* data, std::uint64_t bytes, std::uint64_t offset) const;
  [[noreturn]] void lost(const Column& c, const std::string& how) const;

  std::uint64_t memory_bytes() const { return n_ * (kb_ + vb_) ? n_ * (kb_ + vb_) : 1; }

  std::uint64_t n_;
  unsigned kb_, vb_;
  std::string dir_;
  unsigned char* memory_ = nullptr;
  Column columns_[2];  // keys, values
};

}  // namespace sb
