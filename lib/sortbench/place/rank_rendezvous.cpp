// The ranks' rendezvous (rank_rendezvous.hpp).
#include "sortbench/place/rank_rendezvous.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"
#include "sortbench/timing/measure.hpp"

namespace sb {

namespace {

// How long a rank waits for the other processes at the rendezvous (SORTBENCH_RENDEZVOUS_TIMEOUT
// seconds, default 300): a rank that never starts must not leave the others waiting forever.
double rendezvous_timeout_s() {
  const char* v = std::getenv("SORTBENCH_RENDEZVOUS_TIMEOUT");
  return v && *v ? std::atof(v) : 300.0;
}

Error rendezvous_timeout(int rank, int world, const std::string& dir, const std::string& what) {
  return Error(ExitCode::usage,
               fmt::format("rank {}: {} in {} after {:.0f} s; start every rank 0..{} with --world {} and the same "
                           "--rendezvous (an empty directory on a file system they share)",
                           rank, what, dir, rendezvous_timeout_s(), world - 1, world));
}

Error tcp_failure(int rank, int world, const std::string& rendezvous, const std::string& what) {
  return Error(ExitCode::usage,
               fmt::format("rank {}: {} at {}; start every rank 0..{} under the same launcher, with MASTER_ADDR and "
                           "MASTER_PORT naming rank 0's host and a free port every rank can reach",
                           rank, what, rendezvous, world - 1));
}

// A socket closed with its owner.
struct Socket {
  int fd = -1;
  Socket() = default;
  explicit Socket(int f) : fd(f) {}
  Socket(Socket&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  Socket& operator=(Socket&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  Socket(const Socket&) = delete;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

// host and port of tcp://HOST:PORT.
std::pair<std::string, std::string> tcp_endpoint(const std::string& rendezvous, int rank, int world) {
  const std::string rest = rendezvous.substr(6);
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size())
    throw tcp_failure(rank, world, rendezvous, "the rendezvous is not tcp://HOST:PORT");
  return {rest.substr(0, colon), rest.substr(colon + 1)};
}

// Waits until fd is readable (or writable) or the deadline passes; false on the deadline.
bool wait_for(int fd, short events, double deadline) {
  for (;;) {
    const double left = deadline - steady_now_s();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

// Moves all bytes through io(p, left) (send or recv: the bytes done, 0 or less on failure).
template <typename Io>
bool all_bytes(char* p, std::size_t bytes, Io io) {
  while (bytes) {
    const ssize_t n = io(p, bytes);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

bool send_all(int fd, const void* data, std::size_t bytes) {
  return all_bytes(static_cast<char*>(const_cast<void*>(data)), bytes,
                   [fd](char* p, std::size_t left) { return ::send(fd, p, left, MSG_NOSIGNAL); });
}

bool recv_all(int fd, void* data, std::size_t bytes, double deadline) {
  return all_bytes(static_cast<char*>(data), bytes, [fd, deadline](char* p, std::size_t left) -> ssize_t {
    if (!wait_for(fd, POLLIN, deadline)) return 0;
    return ::recv(fd, p, left, 0);
  });
}

// The run's FailureLink over the rendezvous's connections (rank_rendezvous.hpp, TcpMeeting).
// Frames: 'F', the exit code and the message's length (4 bytes each), the message: a failure;
// 'D': the sender finished the run. Rank 0 passes each failure it hears to every other rank.
class TcpFailureLink final : public FailureLink {
 public:
  struct Peer {
    int rank;
    Socket socket;
    std::string unread;        // bytes received, not yet a whole frame
    bool done = false, gone = false;  // its 'D' came; its end of the connection closed
  };
  TcpFailureLink(int rank, std::vector<Peer> peers) : rank_(rank), peers_(std::move(peers)) {}
  ~TcpFailureLink() override {
    // Unread bytes would make close() reset the connection, which can drop what was sent on it.
    for (Peer& p : peers_) {
      ::shutdown(p.socket.fd, SHUT_WR);
      drain(p, 0);
    }
  }

  void publish(ExitCode code, const std::string& message) override {
    if (!finished_) tell_all(failure_frame(code, message), -1);
  }

  std::optional<Heard> heard() override {
    if (finished_) return std::nullopt;
    std::optional<Heard> first;
    for (Peer& p : peers_) {
      if (p.gone) continue;
      read_ready(p);
      while (auto frame = next_frame(p)) {
        if (frame->code == ExitCode::ok) {
          p.done = true;
          continue;
        }
        if (rank_ == 0) tell_all(failure_frame(frame->code, frame->message), p.rank);
        if (!first) first = std::move(frame);
      }
      if (p.gone && !p.done && !first) {
        first = Heard{ExitCode::usage,
                      fmt::format("rank {} went away during the run without a word (its process ended: killed, or "
                                  "out of host memory?); every rank stopped",
                                  p.rank)};
        if (rank_ == 0) tell_all(failure_frame(first->code, first->message), p.rank);
      }
    }
    return first;
  }

  void finish() override {
    finished_ = true;
    const char done = 'D';
    for (Peer& p : peers_) {  // a peer that finished first still reads, up to our end
      send_all(p.socket.fd, &done, 1);
      ::shutdown(p.socket.fd, SHUT_WR);
    }
    // Every process finishes the run at its last collective, so each peer's own finish (its end
    // of the connection) follows within moments: read up to it, so that no close resets.
    const double deadline = steady_now_s() + 10.0;
    for (Peer& p : peers_) drain(p, deadline);
  }

 private:
  static std::string failure_frame(ExitCode code, const std::string& message) {
    const auto c = static_cast<std::int32_t>(code);
    const auto bytes = static_cast<std::uint32_t>(message.size());
    std::string frame(1 + sizeof c + sizeof bytes, 'F');
    std::memcpy(&frame[1], &c, sizeof c);
    std::memcpy(&frame[1 + sizeof c], &bytes, sizeof bytes);
    return frame + message;
  }
  // Sends a frame to every rank but `except` (to one gone, the send fails and says nothing).
  void tell_all(const std::string& frame, int except) {
    for (Peer& p : peers_)
      if (p.rank != except) send_all(p.socket.fd, frame.data(), frame.size());
  }
  // Takes what has arrived, without waiting; an ended or broken connection is gone.
  static void read_ready(Peer& p) {
    char buffer[4096];
    for (;;) {
      const ssize_t got = ::recv(p.socket.fd, buffer, sizeof buffer, MSG_DONTWAIT);
      if (got > 0) {
        p.unread.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (got < 0 && errno == EINTR) continue;
      p.gone = true;
      return;
    }
  }
  // The next whole frame received from p: a failure, or code ok for 'D'.
  static std::optional<Heard> next_frame(Peer& p) {
    if (p.unread.empty()) return std::nullopt;
    if (p.unread[0] == 'D') {
      p.unread.erase(0, 1);
      return Heard{ExitCode::ok, {}};
    }
    std::int32_t c = 0;
    std::uint32_t bytes = 0;
    const std::size_t header = 1 + sizeof c + sizeof bytes;
    if (p.unread.size() < header) return std::nullopt;
    std::memcpy(&c, &p.unread[1], sizeof c);
    std::memcpy(&bytes, &p.unread[1 + sizeof c], sizeof bytes);
    if (p.unread.size() < header + bytes) return std::nullopt;
    Heard h{static_cast<ExitCode>(c), p.unread.substr(header, bytes)};
    p.unread.erase(0, header + bytes);
    return h;
  }
  // Reads p until its end of the connection closes or the deadline passes (0: what is there).
  static void drain(Peer& p, double deadline) {
    for (;;) {
      read_ready(p);
      p.unread.clear();
      if (p.gone || !wait_for(p.socket.fd, POLLIN, deadline)) return;
    }
  }

  int rank_;
  std::vector<Peer> peers_;
  bool finished_ = false;
};

TcpMeeting serve_payload(const std::string& rendezvous, int world, const std::string& payload, double deadline) {
  const auto [host, port] = tcp_endpoint(rendezvous, 0, world);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (::getaddrinfo(nullptr, port.c_str(), &hints, &found) != 0 || !found)
    throw tcp_failure(0, world, rendezvous, fmt::format("port {} is not a port", port));
  Socket listener(::socket(found->ai_family, found->ai_socktype, found->ai_protocol));
  const int on = 1;
  ::setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const bool bound = listener.fd >= 0 && ::bind(listener.fd, found->ai_addr, found->ai_addrlen) == 0 &&
                     ::listen(listener.fd, world) == 0;
  const int bind_errno = errno;
  ::freeaddrinfo(found);
  if (!bound)
    throw tcp_failure(0, world, rendezvous, fmt::format("rank 0 cannot listen on port {} ({})", port,
                                                        std::strerror(bind_errno)));
  std::vector<TcpFailureLink::Peer> peers;
  std::vector<bool> seen(static_cast<std::size_t>(world), false);
  seen[0] = true;
  while (static_cast<int>(peers.size()) < world - 1) {
    if (!wait_for(listener.fd, POLLIN, deadline))
      throw tcp_failure(0, world, rendezvous,
                        fmt::format("{} of {} ranks came after {:.0f} s", peers.size() + 1, world, rendezvous_timeout_s()));
    Socket peer(::accept(listener.fd, nullptr, nullptr));
    if (peer.fd < 0) continue;
    std::uint32_t who = 0;
    if (!recv_all(peer.fd, &who, sizeof who, deadline)) continue;  // not a rank, or one that left
    if (who == 0 || who >= static_cast<std::uint32_t>(world) || seen[who])
      throw tcp_failure(0, world, rendezvous, fmt::format("a second rank {} (or one past the world) came", who));
    seen[who] = true;
    peers.push_back({static_cast<int>(who), std::move(peer)});
  }
  const std::uint32_t bytes = static_cast<std::uint32_t>(payload.size());
  for (const auto& p : peers)
    if (!send_all(p.socket.fd, &bytes, sizeof bytes) || !send_all(p.socket.fd, payload.data(), payload.size()))
      throw tcp_failure(0, world, rendezvous, "a rank left before it had the NCCL id");
  return {payload, std::make_unique<TcpFailureLink>(0, std::move(peers))};
}

TcpMeeting fetch_payload(const std::string& rendezvous, int rank, int world, double deadline) {
  const auto [host, port] = tcp_endpoint(rendezvous, rank, world);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  for (;;) {
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) == 0 && found) {
      Socket s(::socket(found->ai_family, found->ai_socktype, found->ai_protocol));
      const bool connected = s.fd >= 0 && ::connect(s.fd, found->ai_addr, found->ai_addrlen) == 0;
      ::freeaddrinfo(found);
      if (connected) {
        const std::uint32_t who = static_cast<std::uint32_t>(rank);
        std::uint32_t bytes = 0;
        if (!send_all(s.fd, &who, sizeof who) || !recv_all(s.fd, &bytes, sizeof bytes, deadline))
          throw tcp_failure(rank, world, rendezvous,
                            fmt::format("not every rank came after {:.0f} s", rendezvous_timeout_s()));
        std::string payload(bytes, '\0');
        if (!recv_all(s.fd, payload.data(), bytes, deadline))
          throw tcp_failure(rank, world, rendezvous, "rank 0 left before it sent the NCCL id");
        std::vector<TcpFailureLink::Peer> rank0;
        rank0.push_back({0, std::move(s)});
        return {std::move(payload), std::make_unique<TcpFailureLink>(rank, std::move(rank0))};
      }
    }
    if (steady_now_s() > deadline)
      throw tcp_failure(rank, world, rendezvous,
                        fmt::format("rank 0 did not answer after {:.0f} s", rendezvous_timeout_s()));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

TcpMeeting tcp_exchange(const std::string& rendezvous, int rank, int world, const std::string& payload) {
  const double deadline = steady_now_s() + rendezvous_timeout_s();
  return rank == 0 ? serve_payload(rendezvous, world, payload, deadline)
                   : fetch_payload(rendezvous, rank, world, deadline);
}

bool StartGate::arrive_and_wait(RunFailure& failure, int rank) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    cv_.notify_all();
    while (arrived_ < ranks_ && !failure.any()) cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  if (failure.any()) return false;
  if (dir_.empty()) return true;
  std::ofstream(dir_ + "/ready-" + std::to_string(rank)) << "ready\n";
  const double deadline = steady_now_s() + rendezvous_timeout_s();
  for (int q = 0; q < world_; ++q)
    while (!std::filesystem::exists(dir_ + "/ready-" + std::to_string(q))) {
      if (failure.any()) return false;
      if (steady_now_s() > deadline)
        throw rendezvous_timeout(rank, world_, dir_, fmt::format("rank {} is not ready", q));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  return true;
}

void StartGate::wake() {
  std::lock_guard<std::mutex> lock(mutex_);
  cv_.notify_all();
}

ncclUniqueId shared_unique_id(const DistributedRequest& request, RunFailure& failure) {
  ncclUniqueId id{};
  const int rank = std::max(request.process_rank, 0);
  if (request.process_rank <= 0) SB_NCCL_CHECK(ncclGetUniqueId(&id), rank);
  if (request.process_rank < 0) return id;
  if (is_tcp_rendezvous(request.rendezvous)) {
    TcpMeeting met =
        tcp_exchange(request.rendezvous, request.process_rank, request.process_world,
                     request.process_rank == 0 ? std::string(id.internal, sizeof id.internal) : std::string());
    if (met.payload.size() != sizeof id.internal)
      throw Error(ExitCode::internal, fmt::format("rank {}: the NCCL id from {} has {} bytes, not {}", rank,
                                                  request.rendezvous, met.payload.size(), sizeof id.internal));
    std::memcpy(id.internal, met.payload.data(), sizeof id.internal);
    failure.attach(std::move(met.link));
    return id;
  }
  const std::string path = request.rendezvous + "/nccl-id";
  if (request.process_rank == 0) {
    const std::string aside = path + ".partial";
    std::ofstream(aside, std::ios::binary).write(id.internal, sizeof id.internal);
    std::filesystem::rename(aside, path);
    return id;
  }
  const double deadline = steady_now_s() + rendezvous_timeout_s();
  while (!std::filesystem::exists(path)) {
    if (failure.any()) throw Error(failure.code(), failure.message());
    if (steady_now_s() > deadline)
      throw rendezvous_timeout(rank, request.process_world, request.rendezvous, "no nccl-id");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ifstream(path, std::ios::binary).read(id.internal, sizeof id.internal);
  return id;
}

}  // namespace sb
