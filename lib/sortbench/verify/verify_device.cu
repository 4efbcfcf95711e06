// GPU verifier: one pass over the output with the checks of verify.hpp, counts gathered with
// atomics (fingerprint sums reduced per block first). An index bitmap (n bits) catches repeated
// payload indices. The chunk verifier (issue 37) runs the same checks a chunk at a time.
#include <fmt/format.h>

#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/element.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/launch.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {
namespace {

constexpr int kBlock = 256;

__device__ void note(unsigned long long* count, unsigned long long* first, std::uint64_t j) {
  atomicAdd(count, 1ull);
  atomicMin(first, static_cast<unsigned long long>(j));
}

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// One atomic per block: one per warp put millions of same-address atomics on one L2 slice
// and made the check 10x slower than reading the data. Every thread of the block calls it.
__device__ void add_block_sum(unsigned long long* target, unsigned long long v) {
  __shared__ unsigned long long partial[kBlock / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < kBlock / 32 ? partial[lane] : 0ull);
    if (lane == 0) atomicAdd(target, v);
  }
  __syncthreads();  // partial is reused by the next sum
}

// VerifyCounts viewed as an array of unsigned long long for the atomics.
struct DeviceCounts {
  unsigned long long unsorted, first_unsorted;
  unsigned long long fp_in_a, fp_in_b, fp_out_a, fp_out_b;
  unsigned long long bad_index, first_bad_index;
  unsigned long long wrong_key, first_wrong_key;
  unsigned long long repeated_index, first_repeated_index;
  unsigned long long unstable, first_unstable;
};
static_assert(sizeof(DeviceCounts) == sizeof(VerifyCounts));

template <typename K, typename V>
__global__ void verify_kernel(VerifyInput in, std::uint32_t* seen, DeviceCounts* c) {
  const K* kin = static_cast<const K*>(in.keys_in);
  const K* kout = static_cast<const K*>(in.keys_out);
  std::uint64_t in_a = 0, in_b = 0, out_a = 0, out_b = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  // Every thread runs the same trip count so the block sums below see every thread.
  const std::uint64_t trips = (in.n + stride - 1) / stride;
  std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  for (std::uint64_t t = 0; t < trips; ++t, j += stride) {
    if (j >= in.n) continue;
    add_fingerprints<K, V>(in, j, in_a, in_b, out_a, out_b);
    if (j + 1 < in.n && out_of_order(kout, j)) note(&c->unsorted, &c->first_unsorted, j);
    if constexpr (!std::is_same_v<V, NoValue>) {
      if (in.vals_in) continue;  // data values: the pair sums are the check
      const V* vals = static_cast<const V*>(in.vals_out);
      std::uint64_t pos = 0;
      if (!decode_value<V>(in.payload, vals[j], pos) || pos >= in.n) {
        note(&c->bad_index, &c->first_bad_index, j);
        continue;
      }
      if (!bits_equal(kin[pos], kout[j])) note(&c->wrong_key, &c->first_wrong_key, j);
      const std::uint32_t bit = 1u << (pos & 31);
      if (atomicOr(&seen[pos >> 5], bit) & bit) note(&c->repeated_index, &c->first_repeated_index, j);
      std::uint64_t next = 0;
      if (in.check_stable && j + 1 < in.n && decode_value<V>(in.payload, vals[j + 1], next) && next < in.n &&
          breaks_stability(kout, pos, next, j))
        note(&c->unstable, &c->first_unstable, j);
    }
  }
  add_block_sum(&c->fp_in_a, in_a);
  add_block_sum(&c->fp_in_b, in_b);
  add_block_sum(&c->fp_out_a, out_a);
  add_block_sum(&c->fp_out_b, out_b);
}

}  // namespace

VerifyReport verify_device(const VerifyInput& in, cudaStream_t stream) {
  if (in.n == 0) return summarize(VerifyCounts{}, 0);
  DeviceBuffer counts(sizeof(DeviceCounts));
  DeviceCounts init{};
  init.first_unsorted = init.first_bad_index = init.first_wrong_key = init.first_repeated_index =
      init.first_unstable = in.n;
  SB_CUDA_CHECK(cudaMemcpyAsync(counts.get(), &init, sizeof init, cudaMemcpyHostToDevice, stream));
  DeviceBuffer seen;
  if (in.vals_out && !in.vals_in) {
    seen = DeviceBuffer(((in.n + 31) / 32) * sizeof(std::uint32_t));
    SB_CUDA_CHECK(cudaMemsetAsync(seen.get(), 0, seen.bytes(), stream));
  }
  // A few blocks per SM keep it streaming; more only add block sums.
  const unsigned blocks = grid_for(in.n, kBlock, 2048);
  dispatch_element<AllKeys, AllValues>(in.key, in.vals_out ? in.payload : Payload::none, [&](auto k, auto v) {
    verify_kernel<decltype(k), decltype(v)>
        <<<blocks, kBlock, 0, stream>>>(in, seen.as<std::uint32_t>(), counts.as<DeviceCounts>());
  });
  SB_CUDA_CHECK_LAUNCH();
  VerifyCounts host;
  SB_CUDA_CHECK(cudaMemcpyAsync(&host, counts.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return summarize(host, in.n, in.vals_in && in.vals_out);
}

namespace {

// One chunk: its fingerprint sums (into the input's or the output's), and for an output chunk
// the order checks. first: the output chunk's first position; the element before it (first > 0)
// is the copy at prev_key / prev_val.
template <typename K, typename V>
__global__ void chunk_kernel(const K* keys, const V* vals, std::uint64_t count, bool input, std::uint64_t first,
                             std::uint64_t n, Payload payload, bool positions, bool check_stable, const K* prev_key,
                             const V* prev_val, DeviceCounts* c) {
  std::uint64_t a = 0, b = 0;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const std::uint64_t trips = (count + stride - 1) / stride;
  std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  for (std::uint64_t t = 0; t < trips; ++t, j += stride) {
    if (j >= count) continue;
    Fingerprint f;
    if constexpr (std::is_same_v<V, NoValue>) f = fingerprint_of(keys[j]);
    else f = pair_fingerprint(keys[j], vals[j]);
    a += f.a, b += f.b;
    // The pair (j - 1, j), the one before the chunk taken from the carried copy.
    const bool has_prev = j > 0 || first > 0;
    if (input || !has_prev) continue;
    const K& before = j > 0 ? keys[j - 1] : *prev_key;
    if (KeyTraits<K>::less(keys[j], before)) note(&c->unsorted, &c->first_unsorted, first + j - 1);
    if constexpr (!std::is_same_v<V, NoValue>) {
      if (!positions) continue;
      std::uint64_t pos = 0, pos_before = 0;
      if (!decode_value<V>(payload, vals[j], pos) || pos >= n) {
        note(&c->bad_index, &c->first_bad_index, first + j);
        continue;
      }
      const V& vb = j > 0 ? vals[j - 1] : *prev_val;
      if (check_stable && decode_value<V>(payload, vb, pos_before) && bits_equal(before, keys[j]) && pos_before > pos)
        note(&c->unstable, &c->first_unstable, first + j - 1);
    }
  }
  add_block_sum(input ? &c->fp_in_a : &c->fp_out_a, a);
  add_block_sum(input ? &c->fp_in_b : &c->fp_out_b, b);
}

}  // namespace

struct ChunkVerifier::State {
  KeyType key;
  Payload payload;
  std::uint64_t n;
  bool positions;
  cudaStream_t stream;
  DeviceBuffer counts{sizeof(DeviceCounts)};
  DeviceBuffer carry{64};  // the previous output chunk's last key and value
  std::uint64_t output_done = 0;

  template <typename F>
  void dispatch(F&& f) const {
    dispatch_element<AllKeys, AllValues>(key, payload, std::forward<F>(f));
  }
};

ChunkVerifier::ChunkVerifier(KeyType key, Payload payload, std::uint64_t n, bool positions, cudaStream_t stream)
    : state_(new State{key, payload, n, positions, stream}) {
  DeviceCounts init{};
  init.first_unsorted = init.first_bad_index = init.first_wrong_key = init.first_repeated_index =
      init.first_unstable = n;
  SB_CUDA_CHECK(cudaMemcpyAsync(state_->counts.get(), &init, sizeof init, cudaMemcpyHostToDevice, stream));
}

ChunkVerifier::~ChunkVerifier() { delete state_; }

void ChunkVerifier::add_input(const void* keys, const void* vals, std::uint64_t count) {
  State& s = *state_;
  if (!count) return;
  s.dispatch([&](auto k, auto v) {
    using K = decltype(k);
    using V = decltype(v);
    chunk_kernel<K, V><<<grid_for(count, kBlock, 2048), kBlock, 0, s.stream>>>(
        static_cast<const K*>(keys), static_cast<const V*>(vals), count, true, 0, s.n, s.payload, s.positions, false,
        nullptr, nullptr, s.counts.as<DeviceCounts>());
  });
  SB_CUDA_CHECK_LAUNCH();
}

void ChunkVerifier::add_output(const void* keys, const void* vals, std::uint64_t count, bool check_stable) {
  State& s = *state_;
  if (!count) return;
  s.dispatch([&](auto k, auto v) {
    using K = decltype(k);
    using V = decltype(v);
    const K* prev_key = s.carry.as<K>();
    const V* prev_val = reinterpret_cast<const V*>(s.carry.as<unsigned char>() + 32);
    chunk_kernel<K, V><<<grid_for(count, kBlock, 2048), kBlock, 0, s.stream>>>(
        static_cast<const K*>(keys), static_cast<const V*>(vals), count, false, s.output_done, s.n, s.payload,
        s.positions, check_stable, prev_key, prev_val, s.counts.as<DeviceCounts>());
    SB_CUDA_CHECK_LAUNCH();
    SB_CUDA_CHECK(cudaMemcpyAsync(s.carry.get(), static_cast<const K*>(keys) + count - 1, sizeof(K),
                                  cudaMemcpyDeviceToDevice, s.stream));
    if constexpr (!std::is_same_v<V, NoValue>)
      SB_CUDA_CHECK(cudaMemcpyAsync(s.carry.as<unsigned char>() + 32, static_cast<const V*>(vals) + count - 1,
                                    sizeof(V), cudaMemcpyDeviceToDevice, s.stream));
  });
  s.output_done += count;
}

VerifyReport ChunkVerifier::report() {
  State& s = *state_;
  VerifyCounts host;
  SB_CUDA_CHECK(cudaMemcpyAsync(&host, s.counts.get(), sizeof host, cudaMemcpyDeviceToHost, s.stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  if (s.output_done != s.n)
    return {false, fmt::format("the output holds {} elements, not the input's {}", s.output_done, s.n)};
  return summarize(host, s.n, s.payload != Payload::none);
}

void ChunkVerifier::start_output() {
  State& s = *state_;
  VerifyCounts host;
  SB_CUDA_CHECK(cudaMemcpyAsync(&host, s.counts.get(), sizeof host, cudaMemcpyDeviceToHost, s.stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  VerifyCounts fresh{};
  fresh.fp_in_a = host.fp_in_a;
  fresh.fp_in_b = host.fp_in_b;
  fresh.first_unsorted = fresh.first_bad_index = fresh.first_wrong_key = fresh.first_repeated_index =
      fresh.first_unstable = s.n;
  SB_CUDA_CHECK(cudaMemcpyAsync(s.counts.get(), &fresh, sizeof fresh, cudaMemcpyHostToDevice, s.stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  s.output_done = 0;
}

}  // namespace sb
