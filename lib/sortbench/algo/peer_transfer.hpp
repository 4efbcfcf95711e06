// What a rank's exchange moves, as plain data (issue 51): the transfers a distributed family lists
// for Rank::exchange (algo/ranks.hpp), how two ranks' lists pair into the copies of an exchange
// over peer memory, and the link the exchange takes. No NCCL, so it is built and tested on the
// CPU with or without NCCL (tests/distributed).
#pragma once

#include <cstddef>
#include <vector>

#include "sortbench/algo/algorithm.hpp"

namespace sb {

// One column of what this rank sends to and receives from one peer in an exchange (keys, or
// values). Transfers with the same peer pair up in the order given, as NCCL's sends and
// receives do: the k-th transfer naming peer q on this rank meets the k-th naming this rank
// on q, and its send_bytes are that one's recv_bytes.
struct PeerTransfer {
  int peer = 0;
  const void* send = nullptr;
  std::size_t send_bytes = 0;
  void* recv = nullptr;
  std::size_t recv_bytes = 0;
};

// One copy of an exchange over peer memory: bytes from the sender's src to the receiver's dst.
struct PeerCopy {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
};

// The copies rank `from` makes into rank `to` (nonempty ones): from's transfers naming `to`
// paired in order with to's naming `from`. Error(internal) naming both ranks where their
// transfers disagree in number or size (a family's bug: NCCL would hang on it).
std::vector<PeerCopy> pair_transfers(int from, const std::vector<PeerTransfer>& sender, int to,
                                     const std::vector<PeerTransfer>& receiver);

// How the ranks move elements to one another (--param link, issue 51: "the exchange at the
// link"). copy: the ranks are threads of this process on GPUs with peer access to one another,
// and each copies its pieces straight into the receiving GPU's memory with the copy engines
// (cudaMemcpyPeerAsync over NVLink), which leaves the SMs to the work the exchange overlaps;
// nccl: NCCL's grouped send/receive, SM-driven, which ranks in separate processes use (peer
// copies between processes would need CUDA IPC handles). auto (the default): copy where the
// ranks can, nccl elsewhere. docs/distributed.md has the two measured.
enum class ExchangeLink { automatic, copy, nccl };
// The problem's --param link; UsageError naming the value where it is none of the three.
ExchangeLink exchange_link_param(const Params& params);
const char* exchange_link_name(ExchangeLink link);

}  // namespace sb
