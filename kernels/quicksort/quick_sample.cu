// quick-sample: sample sort with Dynamic Parallelism (beyond seed 002; issue 18). Seed 002's
// P-Quick splits a segment K <= 8 ways a pass, so quick-fast needs eight grid passes over
// 2^26 keys; here a split takes up to 255 pivots from a sorted sample (sample sort, as in
// Sanders and Winkel's super scalar sample sort and its GPU ports), so 2^26 keys take two. The
// bucket of a key is 2t between pivots t-1 and t and 2t+1 equal to pivot t (sample_bucket), so
// keys equal to a pivot are finished at once: an input of few distinct values, or a zipf
// input's heavy keys, is done in one level. One level splits all its segments at once, in four
// grids, each launched from the device by the last block of the one before it (a ticket
// counter; CDP2 has no device-side wait), because only the device knows the level's sizes:
//   pivots  a block per segment: 16 samples a bucket at hashed offsets (sample_offset), sorted
//           by BlockRadixSort; every 16th is a pivot. It also maps its segment to its blocks;
//   count   kTilesPerBlock tiles (Elem::tile elements each) per block: the keys' buckets by a
//           search tree of the pivots in shared memory (sample_tree_bucket), kept at the keys'
//           positions for place, summed in shared memory (warp_count), stored per block and
//           added to the segment's with one atomic a bucket;
//   place   the same tiles with the buckets count kept (key_buckets); a block scan of the
//           segment's bucket sizes gives each bucket's start, one atomic per bucket claims the
//           block's slots in it, and each tile is reordered by bucket in shared memory so that
//           warps write whole runs;
//   plan    a block per segment: a bucket above the leaf size becomes a segment of the next
//           level (its pivot bits from sample_split_bits, so the levels share the halvings
//           evenly), smaller ones and equal-key buckets that need a copy go to the leaf list.
// The host enqueues a leaf grid after the tree, as quick-fast does (quick-sample-nodp may
// enqueue one more, launch_quick_sample): each block takes leaves from the list and sorts
// each with BlockRadixSort on the bits below the leaf's common prefix (radix_finish), copies
// equal-key buckets to buffer 0, and sorts any part that a refused launch left behind with a
// block-wide bitonic sort, so a sort never fails. Not stable: slots
// are claimed with atomics. Level L's grids run at nesting depths 4L+1 to 4L+4.
#include <array>
#include <stdexcept>

#include "quick_leaf.cuh"
#include "quick_sample_kernels.cuh"
#include "quick_sample_plan.cuh"
#include "quicksort.hpp"
#include "sortbench/core/cuda_check.hpp"

namespace sb::qs {
namespace {

// Blocks of `kernel` (kGridThreads or kSampleLeafThreads threads) that the GPU runs at once.
template <typename Kernel>
u32 resident_blocks(Kernel kernel, int threads, const DeviceContext* device) {
  const int per_sm = kernel_blocks_per_sm(device, reinterpret_cast<const void*>(kernel), threads, 0);
  return u32(multiprocessor_count(device)) * u32(per_sm > 0 ? per_sm : 1);
}

// The leaf grid's and the device-launched count and place grids' blocks (from the context's memo).
struct ResidentGrids {
  u32 leaf, count, place;
};
template <typename K, typename V>
ResidentGrids resident_grids(const DeviceContext* device) {
  return {resident_blocks(sample_leaf_kernel<K, V>, kSampleLeafThreads, device),
          resident_blocks(count_kernel<K, V>, kGridThreads, device),
          resident_blocks(place_kernel<K, V>, kGridThreads, device)};
}

}  // namespace

std::size_t sample_workspace_bytes(std::uint64_t n, int key_bytes, int value_bytes) {
  return sample_layout(n, key_bytes + value_bytes, key_bytes).bytes;
}

template <typename K, typename V>
void launch_quick_sample(K* const keys[2], V* const vals[2], std::uint64_t n, bool device_launches, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream, const DeviceContext* device) {
  using U = Ord<K, V>;
  if (n < 2) return;
  const SampleLayout l = sample_layout(n, Elem<K, V>::bytes, int(sizeof(K)));
  if (workspace_bytes < l.bytes) throw std::invalid_argument("quick-sample: workspace too small");
  char* base = static_cast<char*>(workspace);
  SampleWork<U> w;
  w.head = reinterpret_cast<SampleHeader*>(base);
  for (int p = 0; p < 2; ++p) {
    w.segments[p] = reinterpret_cast<SampleSegment*>(base + l.segments[p]);
    w.block_segment[p] = reinterpret_cast<u32*>(base + l.block_segment[p]);
    w.pivots[p] = reinterpret_cast<U*>(base + l.pivots[p]);
    w.totals[p] = reinterpret_cast<ull*>(base + l.totals[p]);
    w.claimed[p] = reinterpret_cast<ull*>(base + l.claimed[p]);
    w.hist[p] = reinterpret_cast<u32*>(base + l.hist[p]);
  }
  w.key_buckets = reinterpret_cast<std::int16_t*>(base + l.key_buckets);
  w.leaves = reinterpret_cast<LeafItem*>(base + l.leaves);
  w.cap = l.cap;
  w.device_launches = device_launches;
  const ResidentGrids resident = resident_grids<K, V>(device);
  w.resident_count = resident.count;
  w.resident_place = resident.place;
  ElemBuffers<K, V> b{{keys[0], keys[1]}, {nullptr, nullptr}};
  if constexpr (Elem<K, V>::carries) {
    b.val[0] = vals[0];
    b.val[1] = vals[1];
  }
  SB_CUDA_CHECK(cudaMemsetAsync(w.head, 0, sizeof(SampleHeader), stream));
  root_kernel<<<1, 1, 0, stream>>>(b, w, n);
  SB_CUDA_CHECK_LAUNCH();
  auto launch_leaves = [&] {
    sample_leaf_kernel<<<resident.leaf, kSampleLeafThreads, 0, stream>>>(b, w);
    SB_CUDA_CHECK_LAUNCH();
  };
  if (device_launches) {
    // The stream starts the leaf grid once the root and every grid launched below it are done.
    launch_leaves();
    return;
  }
  // The paper's noDP form: the host launches each level's four grids at the sizes it reads
  // back (one stream synchronization a level), but knows the first level's (the root's
  // segment), and queues the leaf grid after the level it expects to be the last, before
  // reading the next level's sizes: 2^24 keys wait for one read-back instead of three.
  const int expected = sample_expected_levels(n, Elem<K, V>::radix_max);
  bool leaves_queued = false;
  for (int level = 0; level < kMaxLevels; ++level) {
    PoolClaim size{};
    if (level == 0) {
      if (n > Elem<K, V>::radix_max) size = PoolClaim{1, segment_blocks<K, V>(n), 0, 0, 0};
    } else {
      SB_CUDA_CHECK(cudaMemcpyAsync(&size, &w.head->level[level].size, sizeof size, cudaMemcpyDeviceToHost, stream));
      SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (size.segment == 0) break;
    pivots_kernel<K, V><<<size.segment, kGridThreads, 0, stream>>>(b, w, level);
    count_kernel<K, V><<<size.block, kGridThreads, 0, stream>>>(b, w, level);
    place_kernel<K, V><<<size.block, kGridThreads, 0, stream>>>(b, w, level);
    plan_kernel<K, V><<<size.segment, kGridThreads, 0, stream>>>(b, w, level);
    SB_CUDA_CHECK_LAUNCH();
    leaves_queued = level + 1 >= expected;
    if (leaves_queued) launch_leaves();
  }
  if (!leaves_queued) launch_leaves();
}

SampleReport read_sample_report(const void* workspace, cudaStream_t stream) {
  SampleHeader h;
  SB_CUDA_CHECK(cudaMemcpyAsync(&h, workspace, sizeof h, cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  SampleReport r;
  auto us = [](ull from, ull to) { return to > from ? double(to - from) * 1e-3 : 0.0; };
  ull tree_end = h.root_ns;
  for (int level = 0; level < kMaxLevels; ++level) {
    const LevelState& l = h.level[level];
    if (l.size.segment == 0) break;
    r.segments.push_back(l.size.segment);
    r.blocks.push_back(l.size.block);
    std::array<double, 4> stage{};
    for (int k = 0; k < kGridsPerLevel; ++k) {
      stage[k] = us(l.began_ns[k], l.ended_ns[k]);
      if (l.ended_ns[k] > tree_end) tree_end = l.ended_ns[k];
    }
    r.stage_us.push_back(stage);
  }
  r.tree_us = us(h.root_ns, tree_end);
  r.leaf_us = us(h.leaf_began_ns, h.leaf_ended_ns);
  r.sort_leaves = h.leaf_kinds[kLeafSort];
  r.copy_leaves = h.leaf_kinds[kLeafCopy];
  r.bitonic_leaves = h.leaf_kinds[kLeafBitonic];
  r.launches = h.launches;
  r.refused = h.refused;
  return r;
}

#define SB_QS_SAMPLE_INSTANTIATE(K, V)                                                                             \
  template void launch_quick_sample<K, V>(K* const[2], V* const[2], std::uint64_t, bool, void*, std::size_t, \
                                          cudaStream_t, const DeviceContext*);
SB_FOR_EACH_SCALAR_ELEMENT(SB_QS_SAMPLE_INSTANTIATE)
#undef SB_QS_SAMPLE_INSTANTIATE

}  // namespace sb::qs
