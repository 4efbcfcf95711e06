// Index arithmetic of hp-hybrid's buffered scatter (beyond seed 004), shared by the kernel, the
// hybrid's rule and the CPU pipeline model. No CUDA includes: g++ compiles this file.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sortbench/core/hd.hpp"

namespace sb::hp {

// The hybrid's buffered scatter (bucket_scatter_buffered; docs/hp.md, "The buffered scatter"):
// with thousands of buckets a tile holds a few keys of each, and their 2-byte stores cost a
// partial sector each, so a block keeps two chunks of each bucket in shared memory and stores a
// bucket's low bits only as whole chunks, chunk-aligned, from the front of its (bucket, part)
// region [start, end). A key past the two chunks (a bucket with many keys in one tile) is stored
// at once from the region's tail down: those come in runs. What is left in the buffer at the end
// goes to the positions no chunk took: the unaligned head [start, first front) and [front, tail).
// Counts and positions are the hybrid's (u32: n < 2^32).
constexpr std::uint32_t kScatterChunk = 16;  // 2-byte low bits: one 32-byte sector
// A block's shared memory for `buckets` buffers of two chunks and their regions' three words.
SB_HD_INLINE constexpr std::size_t scatter_shared_bytes(std::uint64_t buckets, std::uint32_t chunk = kScatterChunk) {
  return static_cast<std::size_t>(buckets) * (2 * chunk * sizeof(std::uint16_t) + 3 * sizeof(std::uint32_t));
}
struct ScatterRegion {
  std::uint32_t front, tail, fill;  // next chunk's position; end of the unwritten tail; keys in the buffer
};
SB_HD_INLINE std::uint32_t scatter_first_front(std::uint32_t start, std::uint32_t end, std::uint32_t chunk) {
  const std::uint32_t aligned = (start + chunk - 1) / chunk * chunk;
  return aligned < end ? aligned : end;
}
SB_HD_INLINE ScatterRegion scatter_region(std::uint32_t start, std::uint32_t end, std::uint32_t chunk) {
  return {scatter_first_front(start, end, chunk), end, 0};
}
// A key that took slot `slot` of its bucket this tile (counted on from the buffer's fill) goes to
// the buffer below two chunks, else to this position (the tail is moved after the tile).
SB_HD_INLINE bool scatter_buffered(std::uint32_t slot, std::uint32_t chunk) { return slot < 2 * chunk; }
SB_HD_INLINE std::uint32_t scatter_direct_position(std::uint32_t tail, std::uint32_t slot, std::uint32_t chunk) {
  return tail - 1 - (slot - 2 * chunk);
}
// After a tile whose slots ran up to `slots`: the keys stored directly leave the tail, the
// buffer keeps at most two chunks.
SB_HD_INLINE void scatter_settle(ScatterRegion& r, std::uint32_t slots, std::uint32_t chunk) {
  if (slots > 2 * chunk) {
    r.tail -= slots - 2 * chunk;
    slots = 2 * chunk;
  }
  r.fill = slots;
}
// Whether the buffer's first chunk may leave now: it is full and the aligned room before the
// tail takes it (near a short region's end the rest waits for the final placement).
SB_HD_INLINE bool scatter_chunk_ready(const ScatterRegion& r, std::uint32_t chunk) {
  return r.fill >= chunk && r.tail - r.front >= chunk;
}
// The buffer's first chunk stored at r.front: the second moves down.
SB_HD_INLINE void scatter_chunk_left(ScatterRegion& r, std::uint32_t chunk) {
  r.front += chunk;
  r.fill -= chunk;
}
// At the part's end: where buffered key j (j < fill) goes.
SB_HD_INLINE std::uint32_t scatter_final_position(const ScatterRegion& r, std::uint32_t start, std::uint32_t end,
                                                  std::uint32_t j, std::uint32_t chunk) {
  const std::uint32_t head = scatter_first_front(start, end, chunk) - start;
  return j < head ? start + j : r.front + (j - head);
}

}  // namespace sb::hp
