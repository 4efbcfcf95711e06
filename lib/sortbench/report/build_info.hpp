// Version, commit and CUDA architectures of this build (generated at configure time, so a
// new commit recompiles one file, not the library).
#pragma once

#include <optional>
#include <string>

namespace sb {
const char* build_version();
const char* build_git_commit();
// CMAKE_CUDA_ARCHITECTURES of this build, e.g. "90" or "80-real;90".
const char* build_cuda_architectures();
// Whether code built for `archs` (a CMAKE_CUDA_ARCHITECTURES list) runs on a GPU of compute
// capability `cc` (major * 10 + minor): SASS of its major version and a minor up to its own,
// or PTX for an architecture up to it. nullopt when the list names no numbers (native, all).
std::optional<bool> cuda_archs_cover(const std::string& archs, int cc);
}  // namespace sb
