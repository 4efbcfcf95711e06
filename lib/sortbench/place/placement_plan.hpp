// Where an input goes, decided before anything is placed (issue 49 item 1; docs/architecture.md,
// "One pipeline"): the one fit rule of a whole input on one GPU, which the device placement, the
// session's automatic placement, `run`'s choice of how to read a file and `sort` all use.
#pragma once

#include <cstdint>
#include <string>

namespace sb {

// A whole input on one GPU: `copies` of its columns (keys and values) against the bytes free,
// or the --gpu-memory-limit where that is lower.
struct DeviceFit {
  std::uint64_t column_bytes = 0;  // one copy of the keys and their values
  int copies = 2;                  // a single run: the input and a work buffer; a benchmark: three
  // The least workspace a sort of it needs beside the copies (a single run: the sort that takes
  // every input, CUB's radix sort), so that a fit is a sort that can run.
  std::uint64_t workspace = 0;
  std::uint64_t usable = 0;
  bool limited = false;            // usable is the limit
  std::uint64_t needed() const { return copies * column_bytes + workspace; }
  bool fits() const { return needed() <= usable; }
  // "the input needs 24.0 GiB on the GPU (input plus a work buffer of 12.0 GiB each) but 8.0 GiB
  // are free; <fix>"
  std::string shortfall(const std::string& fix) const;
};

// repeated: each sample restores the input from a pristine copy (a benchmark: three copies);
// otherwise one run sorts the placed input itself (two). memory_limit 0: no limit.
DeviceFit device_fit(std::uint64_t column_bytes, bool repeated, std::uint64_t free_bytes, std::uint64_t memory_limit,
                     std::uint64_t workspace = 0);
// The current GPU's free memory (cudaMemGetInfo), which every placement's fit is held against.
std::uint64_t free_device_bytes();
// device_fit against it.
DeviceFit device_fit_here(std::uint64_t column_bytes, bool repeated, std::uint64_t memory_limit,
                          std::uint64_t workspace = 0);

}  // namespace sb
