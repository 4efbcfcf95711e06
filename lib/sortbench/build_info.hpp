// Version and commit of this build (generated at configure time, so a new commit
// recompiles one file, not the library).
#pragma once

namespace sb {
const char* build_version();
const char* build_git_commit();
}  // namespace sb
