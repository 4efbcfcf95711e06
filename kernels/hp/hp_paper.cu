// hp, hp-1, hp-0c: seed 004's Algorithms 2, 3 and 5 as the paper implements them on the GPU
// (section 5): incCnt atomic histograms, CUB DeviceScan::InclusiveSum prefix sums, the
// OneHPTail, binarize, compressA01p and expandToB kernels (hp_paper_kernels.cuh), and all
// auxiliary arrays carved from ONE workspace allocated before timing.
// Departure: len (Algorithm 5 line 5) stays on the device, since run_device may not
// synchronize; the C scan and the expandToB grid therefore cover min(n, range) items (an
// upper bound of len), threads past len doing nothing.
#include <fmt/format.h>

#include "hp.hpp"
#include "hp_index.hpp"
#include "hp_paper_kernels.cuh"
#include "hp_scan.cuh"
#include "sortbench/core/cuda_check.hpp"

namespace sb::hp {
namespace {

using paper::kBlock;
using u32 = std::uint32_t;

unsigned blocks_for(std::uint64_t items) { return static_cast<unsigned>(ceil_div(items ? items : 1, kBlock)); }

// The workspace of one run: a layout pass (base == nullptr) only sums the sizes.
class Workspace {
 public:
  explicit Workspace(void* base = nullptr) : base_(static_cast<char*>(base)) {}
  u32* words(std::uint64_t count) { return reinterpret_cast<u32*>(base_ + carve_.take(count * sizeof(u32))); }
  void* bytes(std::size_t count) { return base_ + carve_.take(count); }
  std::size_t size() const { return carve_.used; }

 private:
  char* base_;
  Carve carve_;
};

struct Input {
  std::uint64_t n, range;
  u32 min_val;
  const u32* x;
  u32* y;
  cudaStream_t stream;
};

Input input_of(const SortProblem& p, const DeviceBuffers& b) {
  return {p.n(), problem_range(p), word_of(p.facts.min), static_cast<const u32*>(b.keys[0]),
          static_cast<u32*>(b.keys[1]), b.stream};
}

// Algorithm 1 Histogram(data, hist, num, 0, bins): cudaMemset of the bins, then incCnt.
void histogram(const Input& in, const u32* data, u32* hist, std::uint64_t num, u32 bin_min, std::uint64_t bins) {
  SB_CUDA_CHECK(cudaMemsetAsync(hist, 0, bins * sizeof(u32), in.stream));
  paper::incCnt<<<blocks_for(num), kBlock, 0, in.stream>>>(num, data, hist, bin_min);
  SB_CUDA_CHECK_LAUNCH();
}

// Algorithm 1 Prefix-Sums(data, datap, from, to, init): addInit, then CUB's inclusive sum.
void prefix_sums(const Input& in, void* temp, std::size_t temp_bytes, u32* data, u32* datap, std::uint64_t from,
                 std::uint64_t to, u32 init) {
  if (to <= from) return;
  if (init) {
    paper::addInit<<<1, 1, 0, in.stream>>>(data + from, init);
    SB_CUDA_CHECK_LAUNCH();
  }
  inclusive_sum(temp, temp_bytes, data + from, datap + from, to - from, in.stream);
}

// Algorithm 2: A[range], Ap[range], B[n+1].
struct HpArrays {
  u32 *A, *Ap, *B;
  void* temp;
  std::size_t temp_bytes;
  HpArrays(Workspace& w, std::uint64_t n, std::uint64_t range)
      : A(w.words(range)), Ap(w.words(range)), B(w.words(n + 1)),
        temp_bytes(std::max(scan_temp_bytes(range), scan_temp_bytes(n))) {
    temp = w.bytes(temp_bytes);
  }
};

int run_hp(const SortProblem& p, const DeviceBuffers& b) {
  const Input in = input_of(p, b);
  if (in.n == 0) return 0;
  Workspace w(b.workspace);
  HpArrays a(w, in.n, in.range);
  histogram(in, in.x, a.A, in.n, in.min_val, in.range);                                  // line 1
  prefix_sums(in, a.temp, a.temp_bytes, a.A, a.Ap, 0, in.range, 0);                      // line 2
  histogram(in, a.Ap, a.B, in.range, 0, in.n + 1);                                       // line 3
  prefix_sums(in, a.temp, a.temp_bytes, a.B, in.y, 0, in.n, in.min_val);                 // line 4
  return 1;
}

// Algorithm 3: A[range], Ap[range].
struct OneHpArrays {
  u32 *A, *Ap;
  void* temp;
  std::size_t temp_bytes;
  OneHpArrays(Workspace& w, std::uint64_t range)
      : A(w.words(range)), Ap(w.words(range)), temp_bytes(scan_temp_bytes(range)) {
    temp = w.bytes(temp_bytes);
  }
};

int run_one_hp(const SortProblem& p, const DeviceBuffers& b) {
  const Input in = input_of(p, b);
  if (in.n == 0) return 0;
  Workspace w(b.workspace);
  OneHpArrays a(w, in.range);
  histogram(in, in.x, a.A, in.n, in.min_val, in.range);                                  // line 1
  prefix_sums(in, a.temp, a.temp_bytes, a.A, a.Ap, 0, in.range, 0);                      // line 2
  paper::OneHPTail<<<blocks_for(in.range), kBlock, 0, in.stream>>>(in.min_val, in.range, a.Ap, in.y);  // 3-5
  SB_CUDA_CHECK_LAUNCH();
  return 1;
}

// Algorithm 5: A, A01, A01p [range]; C, Cp, iC [m+1] with m = min(n, range) >= len; B[n].
struct ZeroCompressedArrays {
  std::uint64_t m;
  u32 *A, *A01, *A01p, *C, *Cp, *iC, *B;
  void* temp;
  std::size_t temp_bytes;
  ZeroCompressedArrays(Workspace& w, std::uint64_t n, std::uint64_t range)
      : m(min_u64(n, range)), A(w.words(range)), A01(w.words(range)), A01p(w.words(range)), C(w.words(m + 1)),
        Cp(w.words(m + 1)), iC(w.words(m + 1)), B(w.words(n)),
        temp_bytes(std::max({scan_temp_bytes(range), scan_temp_bytes(m), scan_temp_bytes(n)})) {
    temp = w.bytes(temp_bytes);
  }
};

int run_zero_compressed(const SortProblem& p, const DeviceBuffers& b) {
  const Input in = input_of(p, b);
  if (in.n == 0) return 0;
  Workspace w(b.workspace);
  ZeroCompressedArrays a(w, in.n, in.range);
  histogram(in, in.x, a.A, in.n, in.min_val, in.range);                                  // line 1
  paper::binarize<<<blocks_for(in.range), kBlock, 0, in.stream>>>(in.range, a.A, a.A01); // lines 2-3
  SB_CUDA_CHECK_LAUNCH();
  prefix_sums(in, a.temp, a.temp_bytes, a.A01, a.A01p, 0, in.range, 0);                  // line 4
  const u32* len_at = a.A01p + (in.range - 1);                                           // line 5
  paper::compressA01p<<<blocks_for(in.range), kBlock, 0, in.stream>>>(in.min_val, in.range, a.A, a.A01p, a.C,
                                                                       a.iC);            // lines 7-11
  SB_CUDA_CHECK_LAUNCH();
  prefix_sums(in, a.temp, a.temp_bytes, a.C, a.Cp, 1, a.m + 1, 0);                       // line 12
  SB_CUDA_CHECK(cudaMemsetAsync(a.B, 0, in.n * sizeof(u32), in.stream));                // line 13
  SB_CUDA_CHECK(cudaMemsetAsync(a.Cp, 0, sizeof(u32), in.stream));                       // line 14
  SB_CUDA_CHECK(cudaMemsetAsync(a.iC, 0, sizeof(u32), in.stream));                       // line 15
  paper::expandToB<<<blocks_for(a.m), kBlock, 0, in.stream>>>(len_at, a.Cp, a.iC, a.B);  // line 16
  SB_CUDA_CHECK_LAUNCH();
  prefix_sums(in, a.temp, a.temp_bytes, a.B, in.y, 0, in.n, 0);                          // line 17
  return 1;
}

template <typename Arrays, typename... Sizes>
std::size_t layout_bytes(Sizes... sizes) {
  Workspace w;
  Arrays a(w, sizes...);
  return w.size();
}

Algorithm paper_member(std::string name, std::string source) {
  Algorithm a = family_base(std::move(name), Backend::gpu, std::move(source));
  a.unsupported = common_limits;
  return a;
}

}  // namespace

void add_paper(Registry& r) {
  Algorithm hp = paper_member("hp", "seed 004 Algorithm 2 (H-P sort), paper kernels (section 5)");
  hp.workspace_bytes = [](const SortProblem& p) { return layout_bytes<HpArrays>(p.n(), problem_range(p)); };
  hp.run_device = run_hp;
  hp.details = [](const SortProblem& p) { return Details{{"count_bits", "32"}, traffic_detail(TrafficPath::paper, p)}; };
  r.add(hp);

  Algorithm one = paper_member("hp-1", "seed 004 Algorithm 3 (1-H-P sort), paper kernels (figure 2)");
  one.constraints = "distinct keys only";
  one.unsupported = [](const SortProblem& p) -> std::optional<std::string> {
    if (!p.keys_distinct()) return std::string("needs distinct keys");
    return common_limits(p);
  };
  one.workspace_bytes = [](const SortProblem& p) { return layout_bytes<OneHpArrays>(problem_range(p)); };
  one.run_device = run_one_hp;
  // The keys counted, the scan, the keys written from the marks: the shared path's bytes.
  one.details = [](const SortProblem& p) { return Details{{"count_bits", "32"}, traffic_detail(TrafficPath::shared, p)}; };
  r.add(one);

  Algorithm zc = paper_member("hp-0c", "seed 004 Algorithm 5 (0-compressed H-P sort), paper kernels (figures 3-5)");
  zc.workspace_bytes = [](const SortProblem& p) {
    return layout_bytes<ZeroCompressedArrays>(p.n(), problem_range(p));
  };
  zc.run_device = run_zero_compressed;
  zc.details = [](const SortProblem& p) { return Details{{"count_bits", "32"}, traffic_detail(TrafficPath::paper, p)}; };
  r.add(zc);
}

}  // namespace sb::hp
