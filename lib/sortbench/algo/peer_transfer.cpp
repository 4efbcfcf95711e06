// The exchange's plain data (peer_transfer.hpp): pairing two ranks' transfers, and --param link.
#include "sortbench/algo/peer_transfer.hpp"

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {

std::vector<PeerCopy> pair_transfers(int from, const std::vector<PeerTransfer>& sender, int to,
                                     const std::vector<PeerTransfer>& receiver) {
  std::vector<const PeerTransfer*> sends, receives;
  for (const PeerTransfer& t : sender)
    if (t.peer == to) sends.push_back(&t);
  for (const PeerTransfer& t : receiver)
    if (t.peer == from) receives.push_back(&t);
  if (sends.size() != receives.size())
    throw Error(ExitCode::internal, fmt::format("rank {} lists {} transfers with rank {}, which lists {} with it; "
                                                "report it",
                                                from, sends.size(), to, receives.size()));
  std::vector<PeerCopy> copies;
  for (std::size_t k = 0; k < sends.size(); ++k) {
    if (sends[k]->send_bytes != receives[k]->recv_bytes)
      throw Error(ExitCode::internal, fmt::format("rank {} sends {} bytes in its transfer {} with rank {}, which "
                                                  "receives {}; report it",
                                                  from, sends[k]->send_bytes, k, to, receives[k]->recv_bytes));
    if (sends[k]->send_bytes) copies.push_back({receives[k]->recv, sends[k]->send, sends[k]->send_bytes});
  }
  return copies;
}

ExchangeLink exchange_link_param(const Params& params) {
  const auto it = params.find("link");
  if (it == params.end() || it->second == "auto") return ExchangeLink::automatic;
  if (it->second == "copy") return ExchangeLink::copy;
  if (it->second == "nccl") return ExchangeLink::nccl;
  throw UsageError(fmt::format("--param link={} is not auto, copy or nccl", it->second));
}

const char* exchange_link_name(ExchangeLink link) {
  switch (link) {
    case ExchangeLink::copy: return "copy";
    case ExchangeLink::nccl: return "nccl";
    default: return "auto";
  }
}

}  // namespace sb
