#!/usr/bin/env bash
# Runs scripts/setup.sh against stub commands (first on PATH in a temporary folder) and fake
# CMake prefixes, one case per situation setup.sh must handle, without touching the machine:
# nothing is installed, and every install command the script tries is recorded instead.
#
#   bash tests/scripts/setup_test.sh [REPO_ROOT]
#
# SHOW=1 prints every case's output; KEEP=1 keeps the temporary folder.
set -uo pipefail

root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
bin=$tmp/bin calls=$tmp/calls
mkdir -p "$bin"

stub() {  # stub NAME BODY: a bash script NAME in $bin
  printf '#!/usr/bin/env bash\n%s\n' "$2" >"$bin/$1"
  chmod +x "$bin/$1"
}
record='echo "$(basename "$0") $*" >>"$STUB_CALLS"'
stub cmake 'echo "cmake version ${STUB_CMAKE_VERSION:-4.1.2}"; echo; echo "CMake suite maintained and supported by Kitware (kitware.com/cmake)."'
stub dpkg "$record"'; echo "dpkg-query: package is not installed" >&2; exit 1'
stub apt-get "$record"'; echo "E: Unable to locate package (stub apt-get noise)"; echo "E: stub apt-get failure" >&2; exit 100'
stub dnf "$record"'; echo "Error: stub dnf noise" >&2; exit 1'
stub sudo "$record"'; echo "sudo: a password is required" >&2; exit 1'
stub id 'if [ "${1:-}" = -u ]; then echo "${STUB_UID:-1000}"; else exit 1; fi'
stub nvcc 'printf "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release %s, V%s.88\n" "${STUB_NVCC:-13.0}" "${STUB_NVCC:-13.0}"'
stub g++ 'case "$1" in
  --version) echo "g++ (Ubuntu ${STUB_GXX:-13.3.0}) ${STUB_GXX:-13.3.0}" ;;
  -dumpfullversion) echo "${STUB_GXX:-13.3.0}" ;;
  *) exit 1 ;;
esac'
stub make 'exit 0'
# python3: "import X" succeeds for X in STUB_PY_MODULES; pip answers when STUB_PIP=1 and
# every install fails (and is recorded).
stub python3 'if [ "${1:-}" = -m ] && [ "${2:-}" = pip ]; then
  [ "${STUB_PIP:-0}" = 1 ] || { echo "No module named pip" >&2; exit 1; }
  case "${3:-}" in
    --version) echo "pip 24.0 (stub)" ;;
    install) echo "python3 -m pip $*" | cut -d" " -f1,4- >>"$STUB_CALLS"; echo "ERROR: stub pip cannot reach an index" >&2; exit 1 ;;
    *) exit 1 ;;
  esac
  exit 0
fi
if [ "${1:-}" = -c ]; then
  for m in ${STUB_PY_MODULES:-}; do [[ "$2" == "import $m"* ]] && exit 0; done
  [[ "$2" == *os.access* ]] && exit 0
  exit 1
fi
exit 1'

# A prefix with the four CMake package configs (in the layouts Debian and others use), NCCL
# and NVML headers; one with only the libraries; an empty one.
full=$tmp/full libs_only=$tmp/libs empty=$tmp/empty
for p in "$full" "$libs_only"; do
  mkdir -p "$p/lib/cmake/CLI11" "$p/share/cmake/nlohmann_json" "$p/lib/x86_64-linux-gnu/cmake/fmt" "$p/lib/cmake/GTest"
  touch "$p/lib/cmake/CLI11/CLI11Config.cmake" "$p/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake" \
    "$p/lib/x86_64-linux-gnu/cmake/fmt/fmt-config.cmake" "$p/lib/cmake/GTest/GTestConfig.cmake"
  echo 'set(PACKAGE_VERSION "3.11.3")' >"$p/share/cmake/nlohmann_json/nlohmann_jsonConfigVersion.cmake"
done
mkdir -p "$full/include/boost/sort" "$full/lib" "$empty"
touch "$full/include/nccl.h" "$full/include/nvml.h" "$full/lib/libnccl.so.2" "$full/include/boost/sort/sort.hpp"

passed=0 failed=0
out="" rc=0
# run_setup [VAR=VALUE...]: setup.sh with the stubs first on PATH and nothing of this
# machine's CUDA, compiler or CMake settings leaking in.
run_setup() {
  : >"$calls"
  out=$(cd "$root" && env -u CUDA_HOME -u CUDACXX -u CMAKE_ARGS -u CMAKE_PREFIX_PATH -u CMAKE_GENERATOR \
    -u CXX -u CONDA_PREFIX -u NCCL_HOME -u NCCL_ROOT -u NVML_HOME -u NVML_ROOT -u SORTBENCH_PYTHON \
    -u SORTBENCH_SETUP_INSTALL PATH="$bin:$PATH" STUB_CALLS="$calls" SETUP_LOG="$tmp/setup.log" \
    SORTBENCH_SETUP_PREFIXES="$full" STUB_PY_MODULES="numpy matplotlib" "$@" bash scripts/setup.sh 2>&1)
  rc=$?
  [ -z "${SHOW:-}" ] || printf "== %s (exit %s)\n%s\n" "$*" "$rc" "$out"
}
check() {  # check DESCRIPTION CONDITION...: one test line
  local what=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL [$case_name] $what"
    echo "  exit code $rc, output:"
    sed 's/^/    /' <<<"$out"
    echo "  recorded calls:"
    sed 's/^/    /' "$calls"
  fi
}
has() { grep -qE -- "$1" <<<"$out"; }
lacks() { ! grep -qE -- "$1" <<<"$out"; }
called() { grep -qE -- "$1" "$calls"; }
not_called() { ! grep -qE -- "$1" "$calls"; }
count() { grep -cE -- "$1" <<<"$out"; }

case_name="a: pip cmake 4, dpkg knows nothing, root with apt-get"
run_setup STUB_UID=0
check "exit code 0" [ "$rc" = 0 ]
check "one line, setup: ok" [ "$out" = "setup: ok (nvcc 13.0, cmake 4.1.2, g++ 13.3.0; optional: nccl nvml numpy matplotlib boost)" ]
check "no apt-get, dnf, dpkg or pip install" not_called '^(apt-get|dnf|dpkg|python3 -m pip install)'

case_name="b: every library missing (empty prefix), root, apt-get fails"
run_setup STUB_UID=0 SORTBENCH_SETUP_PREFIXES="$empty"
check "exit code 3" [ "$rc" = 3 ]
check "tried apt-get install of the four -dev packages" called '^apt-get install .*libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev'
check "the failed install is one line" [ "$(count '^setup: apt-get install .* failed')" = 1 ]
check "no apt-get output" lacks 'stub apt-get'
check "one missing line per library" [ "$(count '^setup: missing ')" = 4 ]
for lib in CLI11 nlohmann_json fmt GTest; do
  check "names $lib and its _DIR" has "^setup: missing $lib .*-D${lib}_DIR="
done
check "no setup: ok" lacks 'setup: ok'

case_name="c: not root, sudo needs a password, fmt missing"
rm -rf "$tmp/nofmt" && cp -r "$libs_only" "$tmp/nofmt" && rm -rf "$tmp/nofmt/lib/x86_64-linux-gnu/cmake/fmt"
run_setup STUB_UID=1000 SORTBENCH_SETUP_PREFIXES="$tmp/nofmt"
check "exit code 3" [ "$rc" = 3 ]
check "no install tried" not_called '^(apt-get|dnf|python3 -m pip install)|^sudo (apt|dnf|env)'
check "one line for fmt, with the ways to get it" has '^setup: missing fmt .*not root.*apt-get install libfmt-dev.*conda install -c conda-forge fmt.*spack install fmt.*-Dfmt_DIR='
check "only fmt is missing" [ "$(count '^setup: missing ')" = 1 ]

case_name="c2: the same fmt, given as -Dfmt_DIR in CMAKE_ARGS"
run_setup STUB_UID=1000 SORTBENCH_SETUP_PREFIXES="$tmp/nofmt" CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -Dfmt_DIR=$libs_only/lib/x86_64-linux-gnu/cmake/fmt"
check "exit code 0" [ "$rc" = 0 ]

case_name="d: optional parts missing, pip installs fail"
run_setup STUB_UID=1000 SORTBENCH_SETUP_PREFIXES="$libs_only" STUB_PY_MODULES= STUB_PIP=1
check "exit code 0" [ "$rc" = 0 ]
check "one skip line each" [ "$(count '^setup: skipping ')" = 5 ]
check "tried pip for each wheel" [ "$(grep -cE '^python3 -m pip install .*(nvidia-nccl-cu13|nvidia-nvml-dev|numpy|matplotlib)$' "$calls")" = 4 ]
check "NCCL line names the wheel" has '^setup: skipping nccl.*pip install nvidia-nccl-cu13'
check "NVML line names the wheel" has '^setup: skipping nvml.*pip install nvidia-nvml-dev'
check "Boost line names the packages, no pip" has '^setup: skipping boost.*apt-get install libboost-dev or dnf install boost-devel$'
check "ends with setup: ok" [ "$(tail -n1 <<<"$out")" = "setup: ok (nvcc 13.0, cmake 4.1.2, g++ 13.3.0)" ]

case_name="d2: optional parts missing, no pip"
run_setup STUB_UID=1000 SORTBENCH_SETUP_PREFIXES="$libs_only" STUB_PY_MODULES=
check "exit code 0" [ "$rc" = 0 ]
check "one skip line each" [ "$(count '^setup: skipping ')" = 5 ]
check "no install tried" not_called 'install'

case_name="d3: Boost.Sort missing, root, apt-get fails"
run_setup STUB_UID=0 SORTBENCH_SETUP_PREFIXES="$libs_only" STUB_PY_MODULES="numpy matplotlib"
check "exit code 0" [ "$rc" = 0 ]
check "tried apt-get install libboost-dev" called '^apt-get install .*libboost-dev$'
check "the skip line says the install failed" has '^setup: skipping boost.*\(apt-get install failed here'

case_name="e: cmake too old, pip cannot install one"
run_setup STUB_UID=1000 STUB_CMAKE_VERSION=3.22.1 STUB_PIP=1
check "exit code 3" [ "$rc" = 3 ]
check "tried pip install cmake" called '^python3 -m pip install .*cmake$'
check "one line naming cmake and pip" has '^setup: missing cmake >= 3\.25 .*3\.22\.1.*pip install cmake'

case_name="f: nvcc 12, g++ 16"
run_setup STUB_UID=0 STUB_NVCC=12.4 STUB_GXX=16.1.0
check "exit code 3" [ "$rc" = 3 ]
check "names nvcc 13 and CUDA_HOME" has '^setup: missing nvcc 13 .*release 12\.4.*CUDA_HOME'
check "names the g++ range" has '^setup: missing g\+\+ 9 to 15.*16\.1\.0'
check "installs neither" not_called '^(apt-get|dnf)'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
