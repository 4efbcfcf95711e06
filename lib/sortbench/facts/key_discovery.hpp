// Range discovery: the key facts a range-aware algorithm reads (min and max in ordered
// form), measured from the keys themselves. With --range measured the harness runs this
// inside the timed region of each algorithm that declares reads_key_facts, so a user's file
// is sorted as a user would sort it: nobody hands the sort its range. u32x4 rows: over all
// four words (as KeyFacts does).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "sortbench/core/key_facts.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

// One pass over the keys on the host. n == 0 gives {0, 0}.
OrderedBounds discover_key_facts_host(KeyType key, const void* keys, std::uint64_t n);

// Device: d_facts points to two 64-bit words of device memory; the result is copied to
// h_facts (pinned, two words) and the stream is synchronized, since the algorithm's host
// code reads the facts before it launches.
void discover_key_facts_device(KeyType key, const void* d_keys, std::uint64_t n, std::uint64_t* d_facts,
                               std::uint64_t* h_facts, cudaStream_t stream);
// The same over chunks that arrive one at a time (a file read once, issue 52): reset the two
// device words, add each chunk in stream order (no synchronization), read them once at the end.
void reset_key_bounds_device(std::uint64_t* d_facts, cudaStream_t stream);
void add_key_bounds_device(KeyType key, const void* d_keys, std::uint64_t n, std::uint64_t* d_facts,
                           cudaStream_t stream);
OrderedBounds read_key_bounds_device(const std::uint64_t* d_facts, std::uint64_t* h_facts, cudaStream_t stream);

// The facts an input's parameters promise before any key is read (a generated input's [min,
// max] and distinct count): what a session that places nothing hands the ranks, which measure
// min and max again over NCCL.
KeyFacts promised_key_facts(KeyType key, std::uint64_t n, wide_t min, wide_t max, std::uint64_t len);

// Writes discovered bounds into the facts an algorithm reads: the ordered bounds and min/max
// as values (KeyFacts' conventions). len and the discovered mark are left as they were.
void apply_key_facts(KeyFacts& facts, KeyType key, const OrderedBounds& bounds);

}  // namespace sb
