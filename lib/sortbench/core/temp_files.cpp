// The registry of live temporaries and its signal handler (temp_files.hpp), issue 37.
#include "sortbench/core/temp_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {
namespace {

// A sort writes two files, a sweep one; 32 leaves room for a library user's own.
constexpr int kSlots = 32;
constexpr std::size_t kPathBytes = 4096;

enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes];
};
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' states");

extern "C" void remove_temporaries_and_reraise(int sig) {
  const int saved = errno;
  remove_live_temp_files();
  errno = saved;
  // SA_RESETHAND made the default action current; the signal is blocked while this handler
  // runs, so it is delivered, and ends the process as it would have, when the handler returns.
  raise(sig);
}

void install_handlers() {
  for (const int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

std::string temp_path_for(const std::string& target) { return fmt::format("{}.sortbench-{}.tmp", target, ::getpid()); }

int register_temp_file(const char* path) noexcept {
  static std::once_flag installed;
  try {
    std::call_once(installed, install_handlers);
  } catch (...) {
    // call_once throws only when the system cannot make a thread primitive: no handler then.
  }
  const std::size_t length = std::strlen(path);
  if (length >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    std::memcpy(g_slots[i].path, path, length + 1);
    g_slots[i].state.store(kLive, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_temp_file(int slot) noexcept {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(kFree, std::memory_order_release);
}

std::size_t live_temp_file_count() noexcept {
  std::size_t live = 0;
  for (const Slot& s : g_slots) live += s.state.load(std::memory_order_acquire) == kLive;
  return live;
}

void remove_live_temp_files() noexcept {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kLive) ::unlink(s.path);
}

TempOutput::TempOutput(std::string target) : target_(std::move(target)), temp_(temp_path_for(target_)) {
  slot_ = register_temp_file(temp_.c_str());
}

TempOutput::~TempOutput() { discard(); }

void TempOutput::commit() {
  if (done_) return;
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    discard();
    throw Error(ExitCode::output, fmt::format("cannot rename {} to {}: {}; choose another output path", temp_, target_,
                                              std::strerror(err)));
  }
  // Renamed first, unregistered after: a signal between the two unlinks a name that is gone.
  done_ = true;
  unregister_temp_file(slot_);
  slot_ = -1;
}

void TempOutput::discard() noexcept {
  if (done_) return;
  done_ = true;
  ::unlink(temp_.c_str());
  unregister_temp_file(slot_);
  slot_ = -1;
}

}  // namespace sb
