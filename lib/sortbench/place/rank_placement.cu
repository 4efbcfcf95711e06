// The ranks placement (issue 15; docs/architecture.md, "NCCL ranks"): one thread per rank in this process,
// each with its device, stream and NCCL communicator (ncclCommInitRank over one unique id), or
// one process per rank meeting in a rendezvous directory. Each rank fills its slice of the
// input, then samples through the one measurement loop (measure.hpp): the pristine slice is
// copied into the work buffer and L2 flushed (untimed, as on one GPU), an all-reduce of one
// word lines the ranks up, then CUDA events on each rank bracket its sort; the ranks agree on
// each sample through the stop rule (the slowest rank's time, by an all-reduce of the max), so
// all stop together. Verification on the GPUs: each slice non-decreasing, the last key of every
// non-empty slice not above the first of the next, and the fingerprint sums of the input slices
// and of the output slices, all-reduced (sums modulo 2^64 reduce exactly), equal; with a payload
// the sums run over (key, value) pairs (verify.hpp pair_fingerprint, issue 38), so a value that
// left its key fails as a lost element does.
#include "sortbench/place/rank_placement.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>

#include <fmt/format.h>

#include "sortbench/algo/ranks.hpp"
#include "sortbench/core/cuda_check.hpp"
#include "sortbench/core/device_buffer.hpp"
#include "sortbench/core/launch.hpp"
#include "sortbench/core/slices.hpp"
#include "sortbench/device/device_info.hpp"
#include "sortbench/timing/device_timing.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/place/launch_env.hpp"
#include "sortbench/place/rank_rendezvous.hpp"
#include "sortbench/timing/measure.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {

namespace {

using u64 = std::uint64_t;

std::string gib(u64 bytes) { return fmt::format("{:.2f} GiB", bytes / double(u64{1} << 30)); }

// Verification counts of one rank (summed over ranks by an all-reduce of u64 words).
struct SliceCounts {
  unsigned long long unsorted, fp_in_a, fp_in_b, fp_out_a, fp_out_b, unstable;
};
constexpr int kCountWords = 6;

// The summand of element i: its key's, or its (key, value) pair's when V is a value type.
template <typename K, typename V>
__device__ Fingerprint element_fingerprint(const K* keys, const V* vals, u64 i) {
  if constexpr (std::is_same_v<V, NoValue>) return fingerprint_of(keys[i]);
  else return pair_fingerprint(keys[i], vals[i]);
}

template <typename K, typename V>
__global__ void slice_check_kernel(const K* in, const V* in_vals, u64 n_in, const K* out, const V* out_vals, u64 n_out,
                                   Payload payload, bool check_stable, SliceCounts* c) {
  unsigned long long unsorted = 0, ia = 0, ib = 0, oa = 0, ob = 0, unstable = 0;
  const u64 stride = u64{gridDim.x} * blockDim.x;
  for (u64 i = blockIdx.x * u64{blockDim.x} + threadIdx.x; i < (n_in > n_out ? n_in : n_out); i += stride) {
    if (i < n_in) {
      const Fingerprint f = element_fingerprint(in, in_vals, i);
      ia += f.a, ib += f.b;
    }
    if (i < n_out) {
      const Fingerprint f = element_fingerprint(out, out_vals, i);
      oa += f.a, ob += f.b;
      if (i + 1 < n_out && out_of_order(out, i)) ++unsorted;
      if constexpr (!std::is_same_v<V, NoValue>) {
        u64 position = 0, next = 0;
        if (check_stable && i + 1 < n_out && decode_value<V>(payload, out_vals[i], position) &&
            decode_value<V>(payload, out_vals[i + 1], next) && breaks_stability(out, position, next, i))
          ++unstable;
      }
    }
  }
  atomicAdd(&c->unsorted, unsorted);
  atomicAdd(&c->unstable, unstable);
  atomicAdd(&c->fp_in_a, ia);
  atomicAdd(&c->fp_in_b, ib);
  atomicAdd(&c->fp_out_a, oa);
  atomicAdd(&c->fp_out_b, ob);
}

// The rank's verification: local counts all-reduced, and every rank's (count, first, last)
// gathered so the boundaries are checked on the host, identically on every rank. V: the
// payload's value type (the values beside in and out), or NoValue. check_stable: the values
// name input positions (generated) and the algorithm claims stability, so equal keys must keep
// increasing positions inside every slice and across the ranks' boundaries. offset: where this
// rank's part begins in the global order.
template <typename K, typename V>
VerifyReport verify_slices(const Rank& rank, const K* in, const V* in_vals, u64 n_in, const K* out, const V* out_vals,
                           u64 n_out, u64 n, Payload payload, bool check_stable, u64* offset) {
  const int world = rank.world();
  DeviceBuffer counts(sizeof(SliceCounts));
  SB_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, sizeof(SliceCounts), rank.stream()));
  const u64 items = std::max<u64>(std::max(n_in, n_out), 1);
  slice_check_kernel<K, V><<<grid_for(items, 256, 4096), 256, 0, rank.stream()>>>(
      in, in_vals, n_in, out, out_vals, n_out, payload, check_stable, counts.as<SliceCounts>());
  SB_CUDA_CHECK_LAUNCH();
  SB_NCCL_CHECK(ncclAllReduce(counts.get(), counts.get(), kCountWords, ncclUint64, ncclSum, rank.comm(), rank.stream()),
                rank.rank());
  // Each rank's [count, first key bits, last key bits, first and last input positions (with
  // check_stable)] as u64 words.
  constexpr int kEndWords = 5;
  DeviceBuffer ends(kEndWords * sizeof(u64) * world);
  u64 mine[kEndWords] = {n_out, 0, 0, 0, 0};
  if (n_out) {
    K first{}, last{};
    rank.to_host(&first, out, sizeof(K));
    rank.to_host(&last, out + n_out - 1, sizeof(K));
    [[maybe_unused]] std::conditional_t<std::is_same_v<V, NoValue>, u64, V> first_val{}, last_val{};
    if constexpr (!std::is_same_v<V, NoValue>) {
      if (check_stable) {
        rank.to_host(&first_val, out_vals, sizeof(V));
        rank.to_host(&last_val, out_vals + n_out - 1, sizeof(V));
      }
    }
    mine[1] = KeyTraits<K>::ordered(first);
    mine[2] = KeyTraits<K>::ordered(last);
    if constexpr (!std::is_same_v<V, NoValue>) {
      // A value naming no position shows in the fingerprints; here it only must not pass as one.
      if (check_stable && !decode_value<V>(payload, first_val, mine[3])) mine[3] = ~u64{0};
      if (check_stable && !decode_value<V>(payload, last_val, mine[4])) mine[4] = 0;
    }
  }
  SB_CUDA_CHECK(cudaMemcpyAsync(ends.as<u64>() + kEndWords * rank.rank(), mine, sizeof mine, cudaMemcpyHostToDevice,
                                rank.stream()));
  SB_NCCL_CHECK(ncclAllGather(ends.as<u64>() + kEndWords * rank.rank(), ends.get(), kEndWords, ncclUint64, rank.comm(),
                              rank.stream()),
                rank.rank());
  SliceCounts c{};
  std::vector<u64> all(kEndWords * world);
  rank.to_host(&c, counts.get(), sizeof c);
  rank.to_host(all.data(), ends.get(), all.size() * sizeof(u64));
  u64 total = 0;
  std::vector<SliceEnds> slices(world);
  std::vector<SliceEndPositions> positions(world);
  for (int r = 0; r < world; ++r) {
    const u64* e = all.data() + kEndWords * r;
    slices[r] = {e[0], e[1], e[2]};
    positions[r] = {e[3], e[4]};
    if (r == rank.rank()) *offset = total;
    total += e[0];
  }
  int previous = 0;
  if (const int r = first_boundary_violation(slices.data(), world, &previous); r >= 0)
    return {false, fmt::format("not sorted across ranks: the first key of rank {} is below the last key of rank {}", r,
                               previous)};
  if (total != n)
    return {false, fmt::format("the ranks hold {} elements in all, not the input's {}", total, n)};
  const u64 unstable_across = check_stable ? unstable_boundaries(slices.data(), positions.data(), world) : 0;
  VerifyCounts v;
  v.unsorted = c.unsorted;
  v.first_unsorted = n;  // a rank-local position would mislead; the count says how many
  v.fp_in_a = c.fp_in_a, v.fp_in_b = c.fp_in_b, v.fp_out_a = c.fp_out_a, v.fp_out_b = c.fp_out_b;
  v.unstable = c.unstable + unstable_across;
  v.first_unstable = n;
  VerifyReport report = summarize(v, n, !std::is_same_v<V, NoValue>);
  if (!report.ok && c.unsorted && c.fp_in_a == c.fp_out_a && c.fp_in_b == c.fp_out_b)
    report.message = fmt::format("not sorted: {} adjacent pairs out of order inside the ranks' slices", c.unsorted);
  else if (!report.ok && !c.unsorted && v.unstable && c.fp_in_a == c.fp_out_a && c.fp_in_b == c.fp_out_b)
    report.message = fmt::format("not stable: {} equal-key pairs out of input order ({} inside the ranks' slices, {} "
                                 "across their boundaries)",
                                 v.unstable, c.unstable, unstable_across);
  return report;
}

// NCCL connects its channels lazily, on a communicator's first collective of each algorithm and
// first send to each peer: one round of each kind the families use, untimed, so that the first
// timed sample (--warmup 0) does not pay for the connections (a 2^28-key sample took 229 ms
// instead of 4.6 without it, issue 38).
void connect_links(const Rank& rank) {
  const int world = rank.world(), me = rank.rank();
  if (world == 1) return;
  // Past NCCL's small-message protocols, so the ring's large-message buffers connect too.
  constexpr std::size_t kLargeBytes = std::size_t{16} << 20, kSmallBytes = 1024;
  DeviceBuffer scratch(kLargeBytes + (world + 1) * kSmallBytes);
  SB_CUDA_CHECK(cudaMemsetAsync(scratch.get(), 0, scratch.bytes(), rank.stream()));
  char* large = scratch.as<char>();
  char* small = large + kLargeBytes;  // a word to reduce, then one 1 KB slot a rank
  SB_NCCL_CHECK(ncclAllReduce(large, large, kLargeBytes / 4, ncclUint32, ncclSum, rank.comm(), rank.stream()), me);
  SB_NCCL_CHECK(ncclAllReduce(small, small, 1, ncclUint64, ncclMax, rank.comm(), rank.stream()), me);
  SB_NCCL_CHECK(ncclAllGather(small + kSmallBytes * (me + 1), small + kSmallBytes, kSmallBytes, ncclUint8,
                              rank.comm(), rank.stream()),
                me);
  // Point to point, small and large, over the run's link (a peer copy's first use maps the
  // peer's memory): rank q's part of each buffer is its own slot.
  const std::size_t chunk = kLargeBytes / world;
  for (const bool big : {false, true}) {
    std::vector<PeerTransfer> transfers;
    for (int q = 0; q < world; ++q) {
      if (q == me) continue;
      char* base = big ? large : small + kSmallBytes;
      const std::size_t bytes = big ? chunk : kSmallBytes;
      transfers.push_back({q, base + me * bytes, bytes, base + q * bytes, bytes});
    }
    rank.exchange(transfers);
  }
  rank.wait();
}

// Min and max of the keys over all ranks, in ordered form (the facts range-aware sorts read).
OrderedBounds global_key_facts(const Rank& rank, KeyType key, const void* keys, u64 count) {
  DeviceBuffer d_facts(2 * sizeof(u64));
  u64 h_facts[2];
  // The rank's own extremes (an empty slice gives the identities ~0 and 0).
  discover_key_facts_device(key, keys, count, d_facts.as<u64>(), h_facts, rank.stream());
  SB_NCCL_CHECK(ncclAllReduce(d_facts.as<u64>(), d_facts.as<u64>(), 1, ncclUint64, ncclMin, rank.comm(), rank.stream()),
                rank.rank());
  SB_NCCL_CHECK(
      ncclAllReduce(d_facts.as<u64>() + 1, d_facts.as<u64>() + 1, 1, ncclUint64, ncclMax, rank.comm(), rank.stream()),
      rank.rank());
  rank.to_host(h_facts, d_facts.get(), sizeof h_facts);
  return {h_facts[0], h_facts[1]};
}

// CUDA events around a rank's sample; the wait for them watches the other ranks (Rank::wait),
// so a rank whose peer failed stops instead of blocking in a collective.
class RankEventTimer final : public SampleTimer {
 public:
  explicit RankEventTimer(const Rank& rank) : rank_(rank) {}
  void start() override { SB_CUDA_CHECK(cudaEventRecord(events_.start(), rank_.stream())); }
  void stop() override {
    SB_CUDA_CHECK(cudaEventRecord(events_.stop(), rank_.stream()));
    SB_CUDA_CHECK_LAUNCH();
  }
  double elapsed_ms() override {
    rank_.wait();
    return events_.elapsed_ms();
  }
  void wait_idle() override { rank_.wait(); }
  const EventPair& events() const { return events_; }

 private:
  const Rank& rank_;
  EventPair events_;
};

// The ranks agree on every sample (measure.hpp's StopRule): the slowest rank's time, the longest
// wall time and whether every rank kept it, by one all-reduce of the maxima.
class RankAgreement final : public StopRule {
 public:
  RankAgreement(const MeasureSettings& settings, const Rank& rank, double* d_words)
      : StopRule(settings), rank_(rank), d_words_(d_words) {}
  Reading agree(const Reading& own) override {
    const double mine[3] = {own.sample_ms, own.elapsed_s, own.keep ? 0.0 : 1.0};
    double agreed[3];
    SB_CUDA_CHECK(cudaMemcpyAsync(d_words_, mine, sizeof mine, cudaMemcpyHostToDevice, rank_.stream()));
    SB_NCCL_CHECK(ncclAllReduce(d_words_, d_words_, 3, ncclFloat64, ncclMax, rank_.comm(), rank_.stream()),
                  rank_.rank());
    rank_.to_host(agreed, d_words_, sizeof agreed);
    return {agreed[0], agreed[1], agreed[2] == 0.0};
  }

 private:
  const Rank& rank_;
  double* d_words_;
};

// Each kept sample's phase times on this rank (the phases' end marks after the start event).
class PhaseRecorder final : public SampleCollector {
 public:
  PhaseRecorder(const PhaseMarks& marks, const EventPair& events, std::vector<std::vector<double>>& out)
      : marks_(marks), events_(events), out_(out) {}
  void record(double) override { out_.push_back(marks_.phase_ms(events_.start())); }

 private:
  const PhaseMarks& marks_;
  const EventPair& events_;
  std::vector<std::vector<double>>& out_;
};

struct RankReport {
  std::vector<double> samples_ms;                 // the same on every rank
  std::vector<std::vector<double>> phase_samples;  // this rank's phases, per sample
  u64 out_count = 0;
  VerifyReport verification;
};

// Process mode's rendezvous directory, where the ranks' files go (their readiness, a failure, the
// NCCL id); empty for threads of one process and for a tcp:// rendezvous, which needs no files.
std::string rendezvous_directory(const DistributedRequest& r) {
  return r.process_rank >= 0 && !is_tcp_rendezvous(r.rendezvous) ? r.rendezvous : std::string();
}

struct Shared {
  const RankAlgorithm& algo;
  const SortProblem& problem;
  const DistributedRequest& request;
  int world;
  int first_local;  // the lowest rank this process runs: it fills the outcome
  RunFailure failure;
  StartGate gate;
  std::unique_ptr<PeerCopies> peers;  // where the ranks exchange by peer copies (--param link)
  ncclUniqueId id{};
  std::vector<RankReport> reports;
  Details details;  // the algorithm's, from the first local rank's problem (its facts and plan)
  KeyFacts facts;   // the first local rank's, once the ranks agreed on min and max
  // Every rank's median phase times and output count: [rank][phase..., count].
  std::vector<std::vector<double>> rank_rows;

  Shared(const RankAlgorithm& a, const SortProblem& p, const DistributedRequest& r)
      : algo(a),
        problem(p),
        request(r),
        world(r.process_rank >= 0 ? r.process_world : static_cast<int>(r.devices.size())),
        first_local(std::max(r.process_rank, 0)),
        failure(rendezvous_directory(r)),
        gate(r.process_rank >= 0 ? 1 : world, rendezvous_directory(r), world),
        reports(world),
        rank_rows(world) {}
  // The ranks this process runs and the device of each.
  std::vector<int> local_ranks() const {
    if (request.process_rank >= 0) return {request.process_rank};
    std::vector<int> ranks(world);
    for (int r = 0; r < world; ++r) ranks[r] = r;
    return ranks;
  }
  int device_of(int rank) const { return request.process_rank >= 0 ? request.devices.at(0) : request.devices.at(rank); }
};

// A rank's shard of the input onto its GPU (issue 38): a file it cannot open or read stops every
// rank with one line naming the rank and the file (exit 2).
void fill_shard(const InputSource& source, const RankSlice& slice, int r, void* d_keys, void* d_vals,
                cudaStream_t stream) {
  try {
    source.slice(slice.begin, slice.count)->fill_device(d_keys, d_vals, stream);
  } catch (const UsageError& e) {
    throw Error(ExitCode::usage, fmt::format("rank {}: cannot read {}", r, e.what()));
  }
}

// An error message that names its rank.
std::string with_rank(int r, int device, const std::string& message) {
  return message.rfind("rank ", 0) == 0 ? message : fmt::format("rank {} (GPU {}): {}", r, device, message);
}

void rank_body(Shared& s, int r) {
  const int world = s.world;
  const int device = s.device_of(r);
  const SortProblem& p = s.problem;
  SB_CUDA_CHECK(cudaSetDevice(device));
  struct Stream {
    cudaStream_t handle{};
    Stream() { SB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(handle); }
  } stream;
  DeviceContext ctx = make_device_context(device, stream.handle);
  ctx.rank = r;
  ctx.world = world;
  SortProblem problem = p;
  problem.device = &ctx;

  const u64 n = p.n();
  const RankSlice slice{n, slice_begin(r, n, world), slice_size(r, n, world)};
  const std::size_t kb = key_bytes(p.shape.key);
  const std::size_t vb = p.has_payload() ? payload_bytes(p.shape.payload) : 0;  // 0: no value column
  // The work buffers and workspace the algorithm asks for; checked here, before NCCL starts, so
  // a rank without memory stops the others before they wait for it; checked again once the
  // ranks have met and agreed on the key facts, its input slice already held.
  u64 held = 0;
  auto work_needs = [&](u64& capacity, std::size_t& ws) {
    capacity = std::max<u64>(s.algo.capacity(problem, n, world), 1);
    ws = s.algo.workspace_bytes(problem, slice, capacity, ctx);
    const u64 needed = slice.count * (kb + vb) + 2 * capacity * (kb + vb) + ws;
    std::size_t free_bytes = 0, total_bytes = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > free_bytes + held)
      throw Error(ExitCode::device_memory,
                  fmt::format("rank {} (GPU {}) needs {} (its input slice of {} {}, two work buffers of {} {} and "
                              "{} of workspace) but {} are free; lower -n or add GPUs (--gpus)",
                              r, device, gib(needed), slice.count, vb ? "keys with their values" : "keys", capacity,
                              vb ? "keys with their values" : "keys", gib(ws), gib(free_bytes)));
  };
  u64 capacity = 0;
  std::size_t ws = 0;
  work_needs(capacity, ws);
  DeviceBuffer pristine(slice.count * kb), pristine_vals(slice.count * vb);
  held = pristine.bytes() + pristine_vals.bytes();
  fill_shard(*s.request.source, slice, r, pristine.get(), vb ? pristine_vals.get() : nullptr, stream.handle);
  SB_CUDA_CHECK(cudaStreamSynchronize(stream.handle));
  std::optional<L2Flusher> l2;
  if (s.request.settings.flush_l2) l2.emplace();
  DeviceBuffer word(sizeof(std::uint32_t));
  SB_CUDA_CHECK(cudaMemset(word.get(), 0, sizeof(std::uint32_t)));
  DeviceBuffer decision(3 * sizeof(double));

  if (!s.gate.arrive_and_wait(s.failure, r)) throw PeerFailed("another rank failed");
  ncclComm_t comm = nullptr;
  SB_NCCL_CHECK(ncclCommInitRank(&comm, world, s.id, r), r);
  // Every rank has joined, so every rank has read the id: the next launch needs a new one.
  if (s.request.process_rank == 0 && !rendezvous_directory(s.request).empty())
    std::filesystem::remove(s.request.rendezvous + "/nccl-id");
  ctx.comm = comm;
  struct SideStream {
    Rank::Side side;
    SideStream() {
      SB_CUDA_CHECK(cudaStreamCreateWithFlags(&side.stream, cudaStreamNonBlocking));
      SB_CUDA_CHECK(cudaEventCreateWithFlags(&side.forked, cudaEventDisableTiming));
      SB_CUDA_CHECK(cudaEventCreateWithFlags(&side.done, cudaEventDisableTiming));
    }
    ~SideStream() {
      cudaEventDestroy(side.forked);
      cudaEventDestroy(side.done);
      cudaStreamDestroy(side.stream);
    }
  } side;
  Rank rank(ctx, s.failure, side.side, s.peers.get());
  if (s.peers) s.peers->join(r);
  struct CommGuard {
    const Rank& rank;
    RunFailure& failure;
    ~CommGuard() {
      // A failed run aborts (pending collectives are cancelled), unless a wait did already; a
      // good one destroys.
      if (failure.any() || rank.comm_aborted()) rank.abort_comm();
      else ncclCommDestroy(rank.comm());
    }
  } guard{rank, s.failure};
  try {
    connect_links(rank);
    const OrderedBounds facts = global_key_facts(rank, p.shape.key, pristine.get(), slice.count);
    // The facts describe the whole input, whatever the caller knew of it (a file sorted on ranks,
    // or a caller that passes none, hands over n = 0, which apply_key_facts reads as "no keys"
    // and would leave min = max = 0: a histogram of one bin for every key).
    problem.facts.n = n;
    apply_key_facts(problem.facts, p.shape.key, facts);
    // Sized again now that the key facts are global (the first look had the caller's facts,
    // which a file or a measured range leaves unknown: a histogram's workspace follows the
    // range) and the algorithm has planned.
    if (s.algo.plan) s.algo.plan(problem, rank);
    work_needs(capacity, ws);
    DeviceBuffer work0(capacity * kb), work1(capacity * kb), workspace(ws);
    DeviceBuffer vals0(capacity * vb), vals1(capacity * vb);
    if (s.algo.prepare) s.algo.prepare(problem, ctx);
    if (r == s.first_local) {
      s.facts = problem.facts;
      if (s.algo.details) s.details = s.algo.details(problem, world);
    }

    RankBuffers buffers;
    buffers.keys[0] = work0.get();
    buffers.keys[1] = work1.get();
    if (vb) {
      buffers.values[0] = vals0.get();
      buffers.values[1] = vals1.get();
    }
    buffers.capacity = capacity;
    buffers.workspace = workspace.get();
    buffers.workspace_bytes = ws;
    PhaseMarks marks(s.algo.phases.size());
    RankReport& report = s.reports[r];
    RankResult result;
    // A sample as on one GPU (the slice restored, L2 flushed before timed samples, both
    // untimed), then a barrier, so the ranks' start marks follow the last rank's arrival.
    int prepared = 0;
    SampleSteps steps;
    steps.prepare = [&] {
      if (slice.count)
        SB_CUDA_CHECK(cudaMemcpyAsync(work0.get(), pristine.get(), slice.count * kb, cudaMemcpyDeviceToDevice,
                                      stream.handle));
      if (slice.count && vb)
        SB_CUDA_CHECK(cudaMemcpyAsync(vals0.get(), pristine_vals.get(), slice.count * vb, cudaMemcpyDeviceToDevice,
                                      stream.handle));
      if (l2 && prepared++ >= s.request.settings.warmup) l2->flush(stream.handle);
      rank.barrier(word.get());
    };
    steps.run = [&](bool) { result = s.algo.run(problem, slice, buffers, rank, marks); };
    RankEventTimer timer(rank);
    PhaseRecorder phases(marks, timer.events(), report.phase_samples);
    RankAgreement rule(s.request.settings, rank, decision.as<double>());
    report.samples_ms = measure(rule, timer, steps, {&phases}).samples_ms;
    report.out_count = result.count;
    u64 out_offset = 0;
    report.verification = dispatch_element<ScalarKeys, AllValues>(p.shape.key, p.shape.payload, [&](auto k, auto v) {
      using K = decltype(k);
      using V = decltype(v);
      return verify_slices<K, V>(rank, pristine.as<K>(), static_cast<const V*>(pristine_vals.get()), slice.count,
                                 static_cast<const K*>(buffers.keys[result.buffer]),
                                 static_cast<const V*>(buffers.values[result.buffer]), result.count, n,
                                 p.shape.payload, s.request.check_stable, &out_offset);
    });
    // The verification is all-reduced, so every rank writes (and meets at the barrier) or none does.
    if (s.request.output && report.verification.ok) {
      s.request.output(RankOutput{r, device, buffers.keys[result.buffer], buffers.values[result.buffer], result.count, out_offset,
                                  stream.handle});
      rank.barrier(word.get());
      rank.wait();
    }
    // Per-rank medians of the phases and the output count, summed into every rank's table.
    const std::size_t cols = s.algo.phases.size() + 1;
    std::vector<double> table(cols * world, 0.0);
    for (std::size_t ph = 0; ph < s.algo.phases.size(); ++ph) {
      std::vector<double> v;
      for (const auto& smp : report.phase_samples) v.push_back(smp[ph]);
      table[r * cols + ph] = summarize_times(std::move(v)).median_ms;
    }
    table[r * cols + cols - 1] = static_cast<double>(result.count);
    DeviceBuffer d_table(table.size() * sizeof(double));
    SB_CUDA_CHECK(cudaMemcpyAsync(d_table.get(), table.data(), d_table.bytes(), cudaMemcpyHostToDevice, stream.handle));
    SB_NCCL_CHECK(ncclAllReduce(d_table.get(), d_table.get(), table.size(), ncclFloat64, ncclSum, comm, stream.handle),
                  r);
    rank.to_host(table.data(), d_table.get(), d_table.bytes());
    if (r == s.first_local)
      for (int q = 0; q < world; ++q)
        s.rank_rows[q].assign(table.begin() + q * cols, table.begin() + (q + 1) * cols);
  } catch (const PeerFailed&) {
    throw;
  } catch (const Error& e) {
    // Recorded before the guard aborts, so the others stop waiting on this rank.
    s.failure.set(e.code(), with_rank(r, device, e.what()), r);
    throw;
  } catch (const std::exception& e) {
    s.failure.set(ExitCode::internal, with_rank(r, device, e.what()), r);
    throw;
  }
}

std::string topology_text(const std::vector<int>& devices) {
  std::string out;
  for (const PeerLink& l : query_peer_links(devices))
    out += fmt::format("{}{}->{}: {}", out.empty() ? "" : "; ", l.from, l.to, describe(l));
  return out.empty() ? "one GPU" : out;
}

}  // namespace

DistributedOutcome run_on_ranks(const RankAlgorithm& algo, const SortProblem& problem, const DistributedRequest& request) {
  Shared s(algo, problem, request);
  const int world = s.world;
  s.peers = PeerCopies::for_run(exchange_link_param(problem.params), request.devices, request.process_rank >= 0,
                                s.failure);
  s.id = shared_unique_id(request, s.failure);
  std::vector<std::thread> threads;
  for (int r : s.local_ranks())
    threads.emplace_back([&s, r] {
      try {
        rank_body(s, r);
      } catch (const PeerFailed&) {
        // The rank that failed has recorded why.
      } catch (const Error& e) {
        s.failure.set(e.code(), with_rank(r, s.device_of(r), e.what()), r);
      } catch (const std::exception& e) {
        s.failure.set(ExitCode::internal, with_rank(r, s.device_of(r), e.what()), r);
      }
      s.gate.wake();
    });
  for (auto& t : threads) t.join();
  if (s.failure.any()) throw Error(s.failure.code(), s.failure.message());
  s.failure.finish();
  if (!rendezvous_directory(request).empty())  // a finished run leaves the directory as it found it
    std::filesystem::remove(request.rendezvous + "/ready-" + std::to_string(request.process_rank));

  DistributedOutcome out;
  out.samples_ms = s.reports[s.first_local].samples_ms;
  out.verification = s.reports[s.first_local].verification;
  out.facts = s.facts;
  Details& d = out.details;
  d = s.details;
  d.emplace_back("world", std::to_string(world));
  std::string devices;
  for (int dev : request.devices) devices += (devices.empty() ? "" : ",") + std::to_string(dev);
  d.emplace_back("devices", devices);
  if (request.process_rank >= 0) d.emplace_back("process_rank", std::to_string(request.process_rank));
  d.emplace_back("launcher", launcher_detail(request.launcher, request.process_rank >= 0));
  if (world > 1) d.emplace_back("link", exchange_link_name(s.peers ? ExchangeLink::copy : ExchangeLink::nccl));
  d.emplace_back("timing", "CUDA events on each rank after an NCCL all-reduce barrier; a sample is the slowest rank");
  double max_count = 0, sum_count = 0;
  for (int r = 0; r < world; ++r) {
    const auto& row = s.rank_rows[r];
    for (std::size_t ph = 0; ph < algo.phases.size(); ++ph)
      d.emplace_back(fmt::format("rank{}_{}_ms", r, algo.phases[ph]), fmt::format("{:.4f}", row[ph]));
    d.emplace_back(fmt::format("rank{}_count", r), fmt::format("{:.0f}", row.back()));
    max_count = std::max(max_count, row.back());
    sum_count += row.back();
  }
  if (sum_count > 0) d.emplace_back("imbalance", fmt::format("{:.4f}", max_count / (sum_count / world)));
  // A process holds its own rank's GPU alone, so it can say nothing of the ranks' links; the
  // context's topology lists every pair of GPUs the host shows it.
  d.emplace_back("topology", request.process_rank >= 0 && world > 1
                                 ? "ranks in separate processes, each with its own GPU: see context.topology"
                                 : topology_text(request.devices));
  return out;
}

}  // namespace sb
