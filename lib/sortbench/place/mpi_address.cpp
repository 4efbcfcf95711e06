// The mpirun rendezvous address by an MPI broadcast (mpi_address.hpp).
#include "sortbench/place/mpi_address.hpp"

#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {

namespace {

// The calls this needs, by Open MPI's ABI (libmpi.so.40, Open MPI 3 to 5): handles are pointers,
// MPI_COMM_WORLD and MPI_BYTE the addresses of its predefined objects.
struct OpenMpi {
  void* library = nullptr;
  int (*initialized)(int*) = nullptr;
  int (*init)(int*, char***) = nullptr;
  int (*comm_rank)(void*, int*) = nullptr;
  int (*comm_size)(void*, int*) = nullptr;
  int (*bcast)(void*, int, void*, int, void*) = nullptr;
  int (*finalize)() = nullptr;
  void* comm_world = nullptr;
  void* byte = nullptr;
};

template <typename F>
bool find_call(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(library, name));
  return f != nullptr;
}

// Open MPI from the loader's path (mpirun puts its lib/ on LD_LIBRARY_PATH), else from the prefix
// mpirun exports (OPAL_PREFIX).
std::optional<OpenMpi> load_open_mpi(std::string& why) {
  OpenMpi m;
  m.library = ::dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
  if (!m.library)
    if (const char* prefix = std::getenv("OPAL_PREFIX"); prefix && *prefix)
      m.library = ::dlopen((std::string(prefix) + "/lib/libmpi.so.40").c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!m.library) {
    const char* error = ::dlerror();
    why = fmt::format("Open MPI's library cannot be loaded: {}", error ? error : "libmpi.so.40 not found");
    return std::nullopt;
  }
  m.comm_world = ::dlsym(m.library, "ompi_mpi_comm_world");
  m.byte = ::dlsym(m.library, "ompi_mpi_byte");
  const bool calls = find_call(m.library, "MPI_Initialized", m.initialized) &&
                     find_call(m.library, "MPI_Init", m.init) && find_call(m.library, "MPI_Comm_rank", m.comm_rank) &&
                     find_call(m.library, "MPI_Comm_size", m.comm_size) && find_call(m.library, "MPI_Bcast", m.bcast) &&
                     find_call(m.library, "MPI_Finalize", m.finalize);
  if (!calls || !m.comm_world || !m.byte) {
    why = "the libmpi.so.40 found is not Open MPI's (its MPI calls or predefined objects are missing)";
    return std::nullopt;
  }
  return m;
}

// A port no process on this host listens on now (the kernel's pick for port 0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok)
    throw Error(ExitCode::usage,
                "rank 0 found no free port for the ranks to meet at; export MASTER_ADDR and MASTER_PORT");
  return ntohs(a.sin_port);
}

}  // namespace

std::optional<std::string> mpi_rendezvous_address(int rank, int world, std::string& why) {
  // MPI starts once in a process: a second call answers what the first learned.
  static std::optional<std::string> learned;
  if (learned) return learned;
  const std::optional<OpenMpi> mpi = load_open_mpi(why);
  if (!mpi) return std::nullopt;
  int initialized = 0;
  mpi->initialized(&initialized);
  if (!initialized && mpi->init(nullptr, nullptr) != 0)
    throw Error(ExitCode::usage, fmt::format("rank {}: MPI_Init failed; start every rank with mpirun, or export "
                                             "MASTER_ADDR and MASTER_PORT",
                                             rank));
  int mpi_rank = -1, mpi_world = -1;
  mpi->comm_rank(mpi->comm_world, &mpi_rank);
  mpi->comm_size(mpi->comm_world, &mpi_world);
  if (mpi_rank != rank || mpi_world != world)
    throw Error(ExitCode::usage, fmt::format("mpirun's variables say rank {} of {} but MPI says rank {} of {}; start "
                                             "sortbench directly under mpirun",
                                             rank, world, mpi_rank, mpi_world));
  char address[256] = {};
  if (rank == 0) {
    char host[200] = {};
    ::gethostname(host, sizeof host - 1);
    fmt::format_to_n(address, sizeof address - 1, "tcp://{}:{}", host, free_port());
  }
  mpi->bcast(address, sizeof address, mpi->byte, 0, mpi->comm_world);
  // The ranks need MPI no further: the run's failures travel over the rendezvous's connections.
  if (!initialized) mpi->finalize();
  learned = std::string(address);
  return learned;
}

std::string launched_rendezvous(const LaunchedRank& rank, std::string& why) {
  if (!rank.rendezvous.empty() || rank.launcher != "mpirun") return rank.rendezvous;
  return mpi_rendezvous_address(rank.rank, rank.world, why).value_or("");
}

}  // namespace sb
