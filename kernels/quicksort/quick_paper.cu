// quick-seq, quick-prefix, quick-pprefix, quick-direct and their noDP forms (seed 002,
// Kimura 2016, section 4: P-Quick with Dynamic Parallelism and its Partition variants).
//
// One block handles one segment: it splits it into up to K child segments (plus the
// finished "equal to a pivot" ranges, see quicksort_index.hpp), sorts children below 32 keys
// by selection sort at once, and hands the others to the next level: launched from the
// device into cudaStreamFireAndForget (DP, CDP2: no device-side synchronization, the host
// stream waits for the whole tree), or appended to a list the host launches next (noDP).
// Departures: Partition is out of place (buffer to buffer: the printed in-place loop
// overwrites unread keys from the back) and counts before it places (3 buckets per pivot);
// children below 32 keys are sorted by the parent block's threads instead of being launched.
#include "quicksort.hpp"
#include "quicksort_device.cuh"
#include "sortbench/core/cuda_check.hpp"

namespace sb::qs {
namespace {

constexpr int kWorkersMax = kMaxArity / 2;  // P-Prefix: K/2 warps in the last round
constexpr int kListMax = 16;
// Deepest nesting level a child may be launched at (the host's grid is level 0).
constexpr int kDeepestChild = kMaxNestingDepth - 2;

template <typename T>
struct BlockShared {
  SplitState<T> st[kWorkersMax];
  Segment cur[kListMax];
  Segment next[kListMax];
  int ncur;
  int failed[kListMax];
};

__host__ __device__ constexpr int threads_for(Method m, int arity) {
  return m == Method::pprefix ? 32 * (arity / 2) : 32;
}

// One round of the split: worker w partitions parts w, w + workers, ... of sh.cur.
template <typename G, typename T>
__device__ void split_parts(G g, int worker, int workers, Buffers<T> b, int np, int nb, Claim how, BlockShared<T>& sh) {
  for (int p = worker; p < sh.ncur; p += workers) {
    const Segment part = sh.cur[p];
    SplitState<T>& st = sh.st[worker];
    if (part.len < kSelectionBelow) {
      if (g.rank() == 0) {
        sh.next[nb * p] = part;
        for (int k = 1; k < nb; ++k) sh.next[nb * p + k] = Segment{0, 0, 0};
      }
      continue;
    }
    if (g.rank() == 0) choose_pivots(b.buf[part.buf], part.begin, part.len, np, 2, st);
    g.sync();
    const int to = 1 - part.buf;
    group_split(g, b.buf[part.buf], b.buf[to], part.begin, part.len, np, st, how);
    u64 at = part.begin;
    for (int k = 0; k < nb; ++k) {
      const Segment piece{at, st.count[k], to};
      at += st.count[k];
      if (is_equal_bucket(k)) {
        if (to != 0) group_copy(g, b.buf[1], b.buf[0], piece.begin, piece.len);
        if (g.rank() == 0) sh.next[nb * p + k] = Segment{0, 0, 0};
      } else if (g.rank() == 0) {
        sh.next[nb * p + k] = piece;
      }
    }
    g.sync();
  }
}

// Splits segment s (at least 32 keys) into the child segments left in sh.cur[0..sh.ncur).
template <Method M, typename T>
__device__ void split_segment(Buffers<T> b, Segment s, int arity, BlockShared<T>& sh) {
  if (threadIdx.x == 0) {
    sh.cur[0] = s;
    sh.ncur = 1;
  }
  __syncthreads();
  const int np = M == Method::direct ? arity - 1 : 1;
  const int nb = bucket_count(np);
  const int rounds = M == Method::direct ? 1 : split_rounds(arity);
  const int warp = threadIdx.x / 32;
  for (int r = 0; r < rounds; ++r) {
    if (M == Method::seq) {
      if (threadIdx.x == 0) split_parts(ThreadGroup{}, 0, 1, b, np, nb, Claim::ballot, sh);
    } else if (M == Method::pprefix) {
      split_parts(WarpGroup{}, warp, int(blockDim.x / 32), b, np, nb, Claim::shuffle_scan, sh);
    } else if (warp == 0) {
      split_parts(WarpGroup{}, 0, 1, b, np, nb, M == Method::direct ? Claim::ballot : Claim::shuffle_scan, sh);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      int k = 0;
      for (int i = 0; i < nb * sh.ncur; ++i)
        if (sh.next[i].len > 0) sh.cur[k++] = sh.next[i];
      sh.ncur = k;
    }
    __syncthreads();
  }
}

// The common start of a DP and a noDP step: a segment below kSelectionBelow is finished by
// thread 0 (true); otherwise the block splits it into sh.cur (false).
template <Method M, typename T>
__device__ bool finish_small_or_split(Buffers<T> b, Segment s, int arity, BlockShared<T>& sh) {
  if (s.len < kSelectionBelow) {
    if (threadIdx.x == 0) thread_selection_finish(b, s);
    return true;
  }
  split_segment<M>(b, s, arity, sh);
  return false;
}

template <Method M, typename T>
__global__ void quick_dp_kernel(Buffers<T> b, Segment s, int arity, int depth) {
  __shared__ BlockShared<T> sh;
  if (finish_small_or_split<M>(b, s, arity, sh)) return;
  const int t = threadIdx.x;
  if (t < sh.ncur) {
    const Segment c = sh.cur[t];
    sh.failed[t] = 0;
    if (c.len < kSelectionBelow) {
      thread_selection_finish(b, c);
    } else if (depth + 1 <= kDeepestChild) {
      quick_dp_kernel<M><<<1, threads_for(M, arity), 0, cudaStreamFireAndForget>>>(b, c, arity, depth + 1);
      sh.failed[t] = cudaGetLastError() != cudaSuccess;
    } else {
      sh.failed[t] = 1;
    }
  }
  __syncthreads();
  // Past the nesting depth or the pending-launch buffer: this block finishes the child.
  for (int i = 0; i < sh.ncur; ++i)
    if (sh.failed[i]) block_finish(b, sh.cur[i]);
}

template <Method M, typename T>
__global__ void quick_level_kernel(Buffers<T> b, const Segment* in, Segment* out, unsigned long long* nout,
                                   int arity) {
  __shared__ BlockShared<T> sh;
  const Segment s = in[blockIdx.x];
  if (finish_small_or_split<M>(b, s, arity, sh)) return;
  const int t = threadIdx.x;
  if (t < sh.ncur) {
    const Segment c = sh.cur[t];
    if (c.len < kSelectionBelow) thread_selection_finish(b, c);
    else out[atomicAdd(nout, 1ull)] = c;
  }
}

__global__ void first_level_kernel(Segment* list, u64 n) { list[0] = Segment{0, n, 0}; }

template <Method M, typename T>
void launch_dp(T* const keys[2], u64 n, int arity, cudaStream_t stream) {
  const Buffers<T> b{{keys[0], keys[1]}};
  quick_dp_kernel<M><<<1, threads_for(M, arity), 0, stream>>>(b, Segment{0, n, 0}, arity, 0);
  SB_CUDA_CHECK_LAUNCH();
}

template <Method M, typename T>
void run_nodp(T* const keys[2], u64 n, int arity, void* workspace, cudaStream_t stream) {
  const Buffers<T> b{{keys[0], keys[1]}};
  auto* count = static_cast<unsigned long long*>(workspace);
  Segment* list[2] = {reinterpret_cast<Segment*>(count + 2),
                      reinterpret_cast<Segment*>(count + 2) + n / kSelectionBelow + 1};
  first_level_kernel<<<1, 1, 0, stream>>>(list[0], n);
  SB_CUDA_CHECK_LAUNCH();
  unsigned long long segments = 1;
  for (int level = 0; segments > 0; ++level) {
    Segment* in = list[level & 1];
    Segment* out = list[(level + 1) & 1];
    SB_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    quick_level_kernel<M><<<unsigned(segments), threads_for(M, arity), 0, stream>>>(b, in, out, count, arity);
    SB_CUDA_CHECK_LAUNCH();
    // Inherent to noDP: the host needs the next level's size before it can launch it.
    SB_CUDA_CHECK(cudaMemcpyAsync(&segments, count, sizeof segments, cudaMemcpyDeviceToHost, stream));
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

template <typename F>
void by_method(Method m, F&& f) {
  switch (m) {
    case Method::seq: return f(std::integral_constant<Method, Method::seq>{});
    case Method::prefix: return f(std::integral_constant<Method, Method::prefix>{});
    case Method::pprefix: return f(std::integral_constant<Method, Method::pprefix>{});
    case Method::direct: return f(std::integral_constant<Method, Method::direct>{});
  }
}

}  // namespace

const char* to_string(Method m) {
  switch (m) {
    case Method::seq: return "seq";
    case Method::prefix: return "prefix";
    case Method::pprefix: return "pprefix";
    case Method::direct: return "direct";
  }
  return "?";
}

std::size_t nodp_workspace_bytes(std::uint64_t n) {
  return 2 * sizeof(unsigned long long) + 2 * (n / kSelectionBelow + 1) * sizeof(Segment);
}

template <typename T>
void launch_quick_dp(Method m, T* const keys[2], std::uint64_t n, int arity, cudaStream_t stream) {
  if (n < 2) return;
  by_method(m, [&](auto mc) { launch_dp<decltype(mc)::value>(keys, n, arity, stream); });
}

template <typename T>
void run_quick_nodp(Method m, T* const keys[2], std::uint64_t n, int arity, void* workspace, cudaStream_t stream) {
  if (n < 2) return;
  by_method(m, [&](auto mc) { run_nodp<decltype(mc)::value>(keys, n, arity, workspace, stream); });
}

namespace {

// The pending-launch limit before and after raising it to at least count (raise_by_halves).
struct PendingLimit {
  std::size_t found, now;
};
PendingLimit raise_pending_limit(std::uint64_t count) {
  std::size_t found = 0;
  SB_CUDA_CHECK(cudaDeviceGetLimit(&found, cudaLimitDevRuntimePendingLaunchCount));
  const u64 now = raise_by_halves(found, count, [](u64 want) {
    if (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, want) == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
  });
  return {found, static_cast<std::size_t>(now)};
}

}  // namespace

void raise_pending_launches(const DeviceContext& device, std::uint64_t count) {
  const PendingLimit l = raise_pending_limit(count);
  if (l.now != l.found && device.kernels) device.kernels->keep_limit(cudaLimitDevRuntimePendingLaunchCount, l.found);
}

void release_pending_launches(const DeviceContext& device) noexcept {
  try {
    if (!device.kernels) return;
    if (const auto found = device.kernels->take_limit(cudaLimitDevRuntimePendingLaunchCount))
      if (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, *found) != cudaSuccess) (void)cudaGetLastError();
  } catch (...) {
    // A release must not throw (algorithm.hpp); the limit then stays raised, which is correct.
  }
}

#define SB_QS_INSTANTIATE(T)                                                                             \
  template void launch_quick_dp<T>(Method, T* const[2], std::uint64_t, int, cudaStream_t);              \
  template void run_quick_nodp<T>(Method, T* const[2], std::uint64_t, int, void*, cudaStream_t);
SB_QS_INSTANTIATE(std::uint32_t)
SB_QS_INSTANTIATE(std::int32_t)
SB_QS_INSTANTIATE(float)

}  // namespace sb::qs
