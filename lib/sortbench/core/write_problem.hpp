// What a failed write means to the user (issues 37 and 52): the errno's name is for a programmer,
// "the disk is full" for everyone. Shared by the output files (sink/column_writer.cpp) and the
// external sort's run files (algo/run_store.cpp).
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

namespace sb {

inline std::string write_problem(int err) {
  switch (err) {
    case ENOSPC: return "the disk is full";
    case EDQUOT: return "the disk quota is used up";
    case EFBIG: return "the file is larger than this system lets a process write";
    case EIO: return "the device reported an I/O error";
    default: return std::strerror(err);
  }
}

}  // namespace sb
