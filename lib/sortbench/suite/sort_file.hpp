// sortbench sort: one sort of a user's file, as a tool rather than a benchmark: a Session
// (session/session.hpp) of the streamed file source with a single run and a file sink. Phases:
// read (on the GPU path through a small pinned ring, each chunk copied to the device while the
// next is read), host to device (what remains of those copies), analyze (min and max), sort,
// verify (sorted, same multiset; argsort and values: every element carried along; on the GPU
// where a copy of the input fits), write (downloaded through the same kind of ring while
// written, to a temporary name beside the output, renamed into place only when everything
// passed, so a failure never leaves a partial output). Issue 38: with ranks (--gpus N, --devices,
// or one process per GPU) each rank reads its shard of the file, the ranks sort it together, and
// each writes its sorted part at its global offset into one output file (rank_file_output.hpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sortbench/core/disk_rates.hpp"

#include "sortbench/input/input_file.hpp"
#include "sortbench/core/types.hpp"
#include "sortbench/suite/sort_once.hpp"

namespace sb {

// The distributed algorithm sort runs on ranks unless --algo names one: the one that chooses.
inline constexpr const char* kDefaultDistributedSort = "dist-auto";

struct SortFileRequest {
  FileRequest input;
  std::string output;
  std::optional<FileRequest> values;  // carried along with the keys
  std::string values_output;
  bool argsort = false;      // write the permutation (u32 or u64 positions) instead of the keys
  std::string algo = "auto";
  Backend backend = Backend::gpu;
  // The GPU memory the sort may use (bytes; 0: what is free). A file that needs more streams
  // through the GPU in chunks (issue 37).
  std::uint64_t gpu_memory_limit = 0;
  // A file streamed through the GPU (issue 52): the host memory the process may hold (bytes; 0:
  // what is available) and the folder for the sorted runs that do not fit under it (empty: the
  // output's folder).
  std::uint64_t host_memory_limit = 0;
  std::string tmp_dir;
  // Ranks (issue 38): one per listed GPU of this process, or (process_rank >= 0) this process is
  // rank process_rank of process_world, on devices[0], meeting the others in `rendezvous`. Empty
  // and -1: one GPU (or the CPU) sorts the whole file.
  std::vector<int> devices;
  int process_rank = -1;
  int process_world = 0;
  std::string rendezvous;
  std::string launcher;  // what started the processes (DistributedRequest::launcher)
  bool on_ranks() const { return !devices.empty() || process_rank >= 0; }
};

struct SortFileReport {
  std::string algorithm;
  std::string why;  // how --algo auto chose
  std::string rule = "default";  // the thresholds the choices read: "profile:<file>" or "default"
  std::uint64_t n = 0;
  KeyType key = KeyType::u32;
  std::vector<std::pair<std::string, double>> phases_ms;  // in order
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::string verified_on;  // "gpu", or "host" where a copy of the input did not fit beside the sort
  // "gpu"; "cpu" (the CPU backend: no GPU touched); "host" (streamed from pinned host columns);
  // "file" (streamed from the file to the output file, no host copy of either).
  std::string placement = "gpu";
  std::uint64_t host_peak_bytes = 0;  // the process's peak resident memory
  // Streamed: where the external sort kept its runs ("memory", "files"; empty: it kept none) and
  // the bytes its files took in the temporary folder.
  std::string runs_in;
  std::uint64_t tmp_bytes = 0;
  // Files of at least kDiskProbeMinBytes (issue 52 item 2): the rates probed where the sort's
  // bytes go; the time the input's read and the output's write take at them, and the runs' files
  // written and read back (0: not probed, no runs in files, or a rate that could not be had).
  DiskRates input_disk, output_disk, tmp_disk;
  double disk_floor_ms = 0, runs_disk_ms = 0;
  // One GPU: the sort's row details (the algorithm's own: a streamed sort's chunks, runs, and its
  // host thread's time in each kind of work).
  std::vector<std::pair<std::string, std::string>> details;
  // On ranks (placement "ranks"): how many, their GPUs, this process's rank in process mode (else
  // -1), and the ranks placement's details (each rank's count and phase times, topology).
  int world = 0;
  std::vector<int> devices;
  int process_rank = -1;
  std::vector<std::pair<std::string, std::string>> rank_details;
};

// Throws UsageError (exit 2) for every problem with the files or options, Error(no_device)
// / Error(device_memory) for the GPU, Error(verification_failed) when the output fails.
SortFileReport sort_file(const SortFileRequest& request);

}  // namespace sb
