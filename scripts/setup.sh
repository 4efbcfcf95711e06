#!/usr/bin/env bash
# Makes sure sortbench can be built here, installing only what is missing and only where it
# can; safe to run twice. It asks whether the tools and libraries the build uses are usable,
# not which packages are installed:
#
#   required  cmake >= the version CMakeLists.txt names; make (ninja when CMAKE_GENERATOR or
#             CMAKE_ARGS name Ninja); g++ (or $CXX) in the range nvcc accepts, C++17; nvcc 13
#             from $CUDA_HOME/bin, PATH or /usr/local/cuda/bin; the CMake packages CLI11,
#             nlohmann_json >= 3.10, fmt and GTest (GTest also as headers + library)
#   optional  NCCL (nccl.h + libnccl), NVML headers (nvml.h), numpy, matplotlib, Boost.Sort
#             headers (libboost-dev: the cpu-boost-* rows)
#
# A tool on PATH counts as present whatever put it there (pip, a virtual environment, conda,
# spack, a module). A library counts when CMake would find it: its package config under
# -D<Pkg>_DIR= in CMAKE_ARGS, <Pkg>_DIR or <Pkg>_ROOT, or a prefix of CMAKE_PREFIX_PATH
# (environment or CMAKE_ARGS), CONDA_PREFIX, the parent of each bin/ on PATH, /usr/local or /usr.
# SORTBENCH_SETUP_PREFIXES (colon-separated) replaces that prefix list (the tests use it).
#
# Installs: the required parts with apt-get or dnf, only as root or with sudo that needs no
# password; cmake (and ninja) with pip where the package manager could not give them; the optional parts with pip
# (into the user's site when the interpreter's is not writable), but Boost.Sort's headers as the
# required parts. SORTBENCH_SETUP_INSTALL=0
# only checks. Package manager output goes to $SETUP_LOG (default ${TMPDIR:-/tmp}/sortbench-setup.log).
#
# The Python face (issue 39), on request:
#   --python           also nanobind (the module's build), scikit-build-core (pip install .) and
#                      pytest (tests/python), each installed only when it does not import (and,
#                      optional, pyarrow and pandas for those tests, from an index only): from
#                      ./wheels/ with pip --no-index when that folder holds wheels (a machine that
#                      reaches no index), else from the index. One line: "setup: python ok (...)".
#   --download-wheels  only pip-download those (pure-Python) wheels and their dependencies into
#                      ./wheels/ (ignored by git), to carry to such a machine; then exit.
#
# Exit codes:
#   0  everything required is usable; an optional part that is missing is named on one line
#      ("setup: skipping ...") with how to get it
#   3  something required is missing and could not be installed here: one line each on
#      stderr ("setup: missing ...") says what and how to get it
#   other  setup itself failed unexpectedly (a bug: report it with the log)
set -euo pipefail
cd "$(dirname "$0")/.."

log=${SETUP_LOG:-${TMPDIR:-/tmp}/sortbench-setup.log}
: >"$log" 2>/dev/null || log=/dev/null
py=${SORTBENCH_PYTHON:-python3}
install_allowed=${SORTBENCH_SETUP_INSTALL:-1}
want_python=0 download_wheels=0
for arg in "$@"; do
  case $arg in
    --python) want_python=1 ;;
    --download-wheels) download_wheels=1 ;;
    *) echo "setup: unknown argument $arg; give --python, --download-wheels or nothing" >&2; exit 2 ;;
  esac
done
wheel_dir=wheels
# The Python part's packages: import name -> pip name. Their wheels are pure Python (any
# interpreter, any platform); tomli and exceptiongroup are what they need below Python 3.11.
declare -A py_part=([nanobind]=nanobind [scikit_build_core]=scikit-build-core [pytest]=pytest)
py_part_order=(nanobind scikit_build_core pytest)
py_part_extra=(tomli exceptiongroup)
if [ "$download_wheels" = 1 ]; then
  mkdir -p "$wheel_dir"
  wanted=()
  for mod in "${py_part_order[@]}"; do wanted+=("${py_part[$mod]}"); done
  # Resolved for the oldest Python these packages share (3.10), pure-Python wheels only, so the
  # folder serves whichever interpreter the other machine has.
  if ! "$py" -m pip download --quiet --only-binary=:all: --platform any --implementation py --abi none \
      --python-version 3.10 --dest "$wheel_dir" "${wanted[@]}" "${py_part_extra[@]}" >>"$log" 2>&1; then
    echo "setup: pip download into $wheel_dir/ failed (its output: $log)" >&2
    exit 3
  fi
  echo "setup: wheels in $wheel_dir/ ($(ls "$wheel_dir" | wc -l) files): carry the folder, then bash scripts/setup.sh --python there"
  exit 0
fi
cmake_args=${CMAKE_ARGS:-}

version_ge() {  # version_ge A B: A >= B, dotted numbers
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# --- what the build needs -------------------------------------------------------------------

cmake_min=$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt | head -n1)
cmake_min=${cmake_min:-3.25}

# The libraries by CMake package name, their minimum versions (- for any), and each piece's
# package name for apt-get, dnf, conda and spack.
libs=(CLI11 nlohmann_json fmt GTest)
declare -A lib_min=([CLI11]=- [nlohmann_json]=3.10 [fmt]=- [GTest]=-)
declare -A apt_pkg=([cmake]=cmake [make]=make [ninja]=ninja-build [g++]=g++
  [CLI11]=libcli11-dev [nlohmann_json]=nlohmann-json3-dev [fmt]=libfmt-dev [GTest]=libgtest-dev [boost]=libboost-dev)
declare -A dnf_pkg=([cmake]=cmake [make]=make [ninja]=ninja-build [g++]=gcc-c++
  [CLI11]=cli11-devel [nlohmann_json]=json-devel [fmt]=fmt-devel [GTest]=gtest-devel [boost]=boost-devel)
declare -A conda_pkg=([cmake]=cmake [make]=make [ninja]=ninja [g++]=gxx
  [CLI11]=cli11 [nlohmann_json]=nlohmann_json [fmt]=fmt [GTest]=gtest)
declare -A spack_pkg=([cmake]=cmake [make]=gmake [ninja]=ninja [g++]=gcc
  [CLI11]=cli11 [nlohmann_json]=nlohmann-json [fmt]=fmt [GTest]=googletest)

# The value of -D<name>=... (or -D<name>:TYPE=...) in CMAKE_ARGS, if any.
cmake_arg() {
  local word
  for word in $cmake_args; do
    case $word in
      -D"$1"=* | -D"$1":*=*) echo "${word#*=}" ;;
    esac
  done
}

# Prefixes CMake's find_package searches (the parts of its procedure that matter here).
prefixes=()
if [ -n "${SORTBENCH_SETUP_PREFIXES+set}" ]; then
  IFS=: read -r -a prefixes <<<"$SORTBENCH_SETUP_PREFIXES"
else
  IFS=: read -r -a prefixes <<<"${CMAKE_PREFIX_PATH:-}"
  IFS=';' read -r -a more <<<"$(cmake_arg CMAKE_PREFIX_PATH)"
  prefixes+=("${more[@]}" "${CONDA_PREFIX:-}")
  IFS=: read -r -a path_dirs <<<"$PATH"
  for dir in "${path_dirs[@]}"; do
    case $dir in */bin | */sbin) prefixes+=("${dir%/*}") ;; esac
  done
  prefixes+=(/usr/local /usr)
fi

# The first folder holding NAME's package config under one of DIRS (or under those folders'
# CMake search layout), or nothing.
find_config() {
  local name=$1 lower dir sub candidate
  lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
  shift
  local -a subs=()
  for dir in "$@"; do
    [ -n "$dir" ] && [ -d "$dir" ] || continue
    shopt -s nullglob nocaseglob
    subs=("$dir" "$dir"/"$name"*/ "$dir"/"$name"*/{cmake,CMake}/
      "$dir"/{lib/*-linux-gnu,lib,lib64,lib32,libx32,share}/cmake/"$name"*/
      "$dir"/{lib/*-linux-gnu,lib,lib64,lib32,libx32,share}/"$name"*/
      "$dir"/{lib/*-linux-gnu,lib,lib64,lib32,libx32,share}/"$name"*/{cmake,CMake}/)
    shopt -u nullglob nocaseglob
    for sub in "${subs[@]}"; do
      sub=${sub%/}
      for candidate in "$sub/${name}Config.cmake" "$sub/${lower}-config.cmake"; do
        if [ -f "$candidate" ]; then
          echo "${candidate%/*}"
          return 0
        fi
      done
    done
  done
  return 1
}

# The version a config folder declares (its ConfigVersion file), or nothing.
config_version() {
  { cat "$1"/*[Vv]ersion.cmake 2>/dev/null || true; } |
    sed -n 's/.*set(PACKAGE_VERSION "\([0-9.]*\)").*/\1/p' | head -n1
}

# GTest without a config: FindGTest takes include/gtest/gtest.h and a libgtest.
gtest_module_found() {
  local dir
  for dir in "${prefixes[@]}"; do
    [ -n "$dir" ] && [ -f "$dir/include/gtest/gtest.h" ] || continue
    compgen -G "$dir/lib*/libgtest.*" >/dev/null && return 0
    compgen -G "$dir/lib/*-linux-gnu/libgtest.*" >/dev/null && return 0
  done
  return 1
}

declare -A missing_why=()   # piece -> what is wrong
nvcc_bin="" nvcc_release="" cmake_version="" cxx_label=""

check_cmake() {
  if ! command -v cmake >/dev/null 2>&1; then
    missing_why[cmake]="cmake >= $cmake_min (none on PATH)"
    return
  fi
  cmake_version=$(cmake --version 2>/dev/null | sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
  if [ -z "$cmake_version" ] || ! version_ge "$cmake_version" "$cmake_min"; then
    missing_why[cmake]="cmake >= $cmake_min ($(command -v cmake) is ${cmake_version:-unreadable})"
  fi
}

check_build_tool() {
  if [[ "${CMAKE_GENERATOR:-} $cmake_args" == *Ninja* ]]; then
    command -v ninja >/dev/null 2>&1 || missing_why[ninja]="ninja (the generator asked for is Ninja)"
  else
    command -v make >/dev/null 2>&1 || command -v gmake >/dev/null 2>&1 ||
      missing_why[make]="make (CMake's default generator runs it)"
  fi
}

# The nvcc the build will use, in build.sh's order: $CUDA_HOME/bin/nvcc when CUDA_HOME is set,
# else $CUDACXX, else the one on PATH, else /usr/local/cuda/bin/nvcc. It must be release 13.
nvcc_of() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9.]*\).*/\1/p' | head -n1; }
check_nvcc() {
  local candidates=() candidate release other=""
  nvcc_bin="" nvcc_release=""
  if [ -n "${CUDA_HOME:-}" ]; then
    candidates=("$CUDA_HOME/bin/nvcc")
  else
    candidates=("${CUDACXX:-}" "$(command -v nvcc 2>/dev/null || true)" /usr/local/cuda/bin/nvcc)
  fi
  for candidate in "${candidates[@]}"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    release=$(nvcc_of "$candidate")
    if [ "${release%%.*}" = 13 ]; then
      nvcc_bin=$candidate nvcc_release=$release
      return
    fi
    # The first nvcc found is the one the build takes; look for a 13 elsewhere to name it.
    for other in /usr/local/cuda/bin/nvcc /usr/local/cuda-13*/bin/nvcc; do
      [ "$other" != "$candidate" ] && [ -x "$other" ] && [ "$(nvcc_of "$other" | cut -d. -f1)" = 13 ] && break
      other=""
    done
    missing_why[nvcc]="nvcc 13 ($candidate is release ${release:-unreadable}${other:+; $other is 13: set CUDA_HOME=${other%/bin/nvcc}})"
    return
  done
  if [ -n "${CUDA_HOME:-}" ]; then
    missing_why[nvcc]="nvcc 13 (none at \$CUDA_HOME/bin = $CUDA_HOME/bin)"
  else
    missing_why[nvcc]="nvcc 13 (none on PATH or in /usr/local/cuda/bin)"
  fi
}

# The newest GCC major the found nvcc accepts (its host_config.h), else CUDA 13.0's 15.
gcc_max() {
  local header max=""
  if [ -n "$nvcc_bin" ]; then
    header="$(dirname "$(dirname "$nvcc_bin")")/include/crt/host_config.h"
    [ -f "$header" ] && max=$(sed -n 's/^#if __GNUC__ > \([0-9]*\).*/\1/p' "$header" | head -n1)
  fi
  echo "${max:-15}"
}

check_cxx() {
  local cxx=${CXX:-g++} major max version
  if ! command -v "$cxx" >/dev/null 2>&1; then
    missing_why[g++]="a C++17 compiler nvcc accepts ($cxx not found)"
    return
  fi
  if "$cxx" --version 2>/dev/null | head -n1 | grep -qi clang; then
    cxx_label="$cxx (clang $("$cxx" -dumpversion 2>/dev/null))"   # CMake's compiler check judges clang
    return
  fi
  version=$("$cxx" -dumpfullversion -dumpversion 2>/dev/null | head -n1)
  cxx_label="$cxx $version"
  major=${version%%.*}
  max=$(gcc_max)
  if ! [[ "$major" =~ ^[0-9]+$ ]] || [ "$major" -lt 9 ] || [ "$major" -gt "$max" ]; then
    missing_why[g++]="g++ 9 to $max, which nvcc 13 accepts and which has C++17 ($cxx is ${version:-unreadable})"
  fi
}

check_libs() {
  local name dir explicit version
  for name in "${libs[@]}"; do
    dir=""
    explicit=$(cmake_arg "${name}_DIR")
    [ -n "$explicit" ] || explicit=$(printenv "${name}_DIR" || true)
    if [ -n "$explicit" ]; then
      dir=$(find_config "$name" "$explicit" || true)
    fi
    [ -n "$dir" ] || dir=$(find_config "$name" "$(cmake_arg "${name}_ROOT")" \
      "$(printenv "${name}_ROOT" || true)" "${prefixes[@]}" || true)
    if [ -z "$dir" ]; then
      if [ "$name" = GTest ] && gtest_module_found; then continue; fi
      missing_why[$name]="$name (no ${name}Config.cmake or $(tr '[:upper:]' '[:lower:]' <<<"$name")-config.cmake where CMake looks)"
      continue
    fi
    version=$(config_version "$dir")
    if [ "${lib_min[$name]}" != - ] && [ -n "$version" ] && ! version_ge "$version" "${lib_min[$name]}"; then
      missing_why[$name]="$name >= ${lib_min[$name]} ($dir has $version)"
    fi
  done
}

check_required() {
  missing_why=()
  check_cmake
  check_build_tool
  check_nvcc
  check_cxx
  check_libs
}

# --- installing -----------------------------------------------------------------------------

sudo_cmd=none      # "" as root, "sudo -n" with passwordless sudo, none otherwise
if [ "$(id -u)" = 0 ]; then
  sudo_cmd=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  sudo_cmd="sudo -n"
fi
pm=""
if command -v apt-get >/dev/null 2>&1; then pm=apt-get; elif command -v dnf >/dev/null 2>&1; then pm=dnf; fi

declare -A failed_install=()   # piece -> the install that was tried and failed

system_install() {  # system_install PIECE...: one apt-get/dnf call for all of them
  local pkgs=() piece
  for piece in "$@"; do
    if [ "$pm" = apt-get ]; then pkgs+=("${apt_pkg[$piece]}"); else pkgs+=("${dnf_pkg[$piece]}"); fi
  done
  echo "setup: installing ${pkgs[*]} with $pm"
  local ok=1
  if [ "$pm" = apt-get ]; then
    # A failed update (no mirror reachable) still leaves the lists there were to install from.
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1 || true
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" \
      >>"$log" 2>&1 || ok=0
  else
    $sudo_cmd dnf install -y -q "${pkgs[@]}" >>"$log" 2>&1 || ok=0
  fi
  if [ "$ok" = 0 ]; then
    echo "setup: $pm install ${pkgs[*]} failed (its output: $log)" >&2
    for piece in "$@"; do failed_install[$piece]="$pm install"; done
  fi
}

# Where pip_install puts commands.
pip_scripts_dir() {
  "$py" -c 'import os, sysconfig
p = sysconfig.get_paths()
print(p["scripts"] if os.access(p["purelib"], os.W_OK) else sysconfig.get_paths(os.name + "_user")["scripts"])' 2>/dev/null || true
}

pip_works() { "$py" -m pip --version >/dev/null 2>&1; }

pip_install() {  # pip_install PACKAGE...: into the interpreter's site, or the user's when that is not writable
  local user=()
  "$py" -c 'import os, sys, sysconfig; sys.exit(0 if os.access(sysconfig.get_paths()["purelib"], os.W_OK) else 1)' \
    >/dev/null 2>&1 || user=(--user)
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip install --quiet --retries 1 --timeout 10 "${user[@]}" "$@" >>"$log" 2>&1
}

check_required
if ((${#missing_why[@]})) && [ "$install_allowed" != 0 ]; then
  # The package manager takes what it can give; nvcc never (no distribution packages CUDA 13
  # the same way), g++ only when there is none at all (a wrong version needs a choice).
  wanted=()
  for piece in cmake make ninja g++ "${libs[@]}"; do
    [ -n "${missing_why[$piece]:-}" ] || continue
    [ "$piece" = g++ ] && command -v "${CXX:-g++}" >/dev/null 2>&1 && continue
    wanted+=("$piece")
  done
  if ((${#wanted[@]})) && [ -n "$pm" ] && [ "$sudo_cmd" != none ]; then
    system_install "${wanted[@]}"
    hash -r
    check_required
  fi
  # cmake and ninja from pip when the system could not give them (or gave too old a cmake).
  for piece in cmake ninja; do
    [ -n "${missing_why[$piece]:-}" ] && pip_works || continue
    echo "setup: installing $piece with pip"
    if pip_install "$piece"; then
      bindir=$(pip_scripts_dir)
      hash -r
      check_required
      if [ -n "${missing_why[$piece]:-}" ] && [ -n "$bindir" ] && [ -x "$bindir/$piece" ]; then
        missing_why[$piece]="${missing_why[$piece]}; pip put $piece in $bindir, which is not first on PATH: export PATH=\"$bindir:\$PATH\""
      fi
    else
      echo "setup: pip install $piece failed (its output: $log)" >&2
      failed_install[$piece]="pip install $piece"
    fi
  done
fi

# --- what is still missing, one line each ---------------------------------------------------

how_to_get() {  # how_to_get PIECE: the ways, this machine's package manager first
  local piece=$1 ways=()
  case $piece in
    nvcc)
      echo "install the CUDA Toolkit 13 (https://developer.nvidia.com/cuda-downloads, conda install -c nvidia cuda-toolkit=13, spack install cuda@13, or module load cuda/13) and set CUDA_HOME to it"
      return ;;
    g++)
      echo "apt-get install g++-13, dnf install gcc-c++, conda install -c conda-forge gxx=13 or spack load gcc@13, then CXX=g++-13 CMAKE_ARGS=-DCMAKE_CUDA_HOST_COMPILER=g++-13 if it is not the g++ on PATH"
      return ;;
  esac
  case $pm in
    apt-get) ways+=("apt-get install ${apt_pkg[$piece]}") ;;
    dnf) ways+=("dnf install ${dnf_pkg[$piece]}") ;;
  esac
  [[ $piece == cmake || $piece == ninja ]] && ways+=("pip install $piece")
  [ "$pm" = apt-get ] || ways+=("apt-get install ${apt_pkg[$piece]}")
  [ "$pm" = dnf ] || ways+=("dnf install ${dnf_pkg[$piece]}")
  ways+=("conda install -c conda-forge ${conda_pkg[$piece]}" "spack install ${spack_pkg[$piece]}")
  local text
  text=$(printf '%s, ' "${ways[@]}")
  text=${text%, }
  if [[ " ${libs[*]} " == *" $piece "* ]]; then
    text="$text, or point CMake at it: CMAKE_ARGS=-D${piece}_DIR=<folder with its config> (or CMAKE_PREFIX_PATH=<prefix>)"
  elif [ "$piece" = ninja ]; then
    text="$text, or leave CMAKE_GENERATOR unset to use make"
  fi
  echo "$text"
}

if ((${#missing_why[@]})); then
  reason=""
  if [ "$install_allowed" = 0 ]; then
    reason="SORTBENCH_SETUP_INSTALL=0"
  elif [ "$sudo_cmd" = none ]; then
    reason="not root and no sudo without a password"
  elif [ -z "$pm" ]; then
    reason="no apt-get or dnf here"
  fi
  for piece in cmake make ninja g++ nvcc "${libs[@]}"; do
    [ -n "${missing_why[$piece]:-}" ] || continue
    why=""
    if [ -n "${failed_install[$piece]:-}" ]; then
      why=" [${failed_install[$piece]} failed]"
    elif [ -n "$reason" ] && [ "$piece" != nvcc ]; then
      why=" [not installed: $reason]"
    fi
    echo "setup: missing ${missing_why[$piece]}$why; get it: $(how_to_get "$piece")" >&2
  done
  exit 3
fi

# --- optional parts: install with pip where it works, else one line each -------------------

cuda_root=$(dirname "$(dirname "$nvcc_bin")")
have_py=0
command -v "$py" >/dev/null 2>&1 && have_py=1
py_can_pip=0
[ "$have_py" = 1 ] && pip_works && py_can_pip=1

# Where pip put a wheel's file, e.g. pip_file nvidia-nvml-dev nvml.h.
pip_file() {
  [ "$have_py" = 1 ] || return 1
  "$py" -m pip show -f "$1" 2>/dev/null | awk -v want="$2" '
    /^Location: / { loc = $2 }
    /^Files:/ { files = 1; next }
    files && $1 ~ ("(^|/)" want "$") { print loc "/" $1; exit }'
}

header_roots() {  # where a system header may be: the CUDA root, the prefixes, $1_HOME / $1_ROOT
  local var
  for var in "${1}_HOME" "${1}_ROOT"; do printenv "$var" || true; done
  echo "$cuda_root"
  printf '%s\n' "${prefixes[@]}"
}

nccl_found() {
  local root
  if [ "$have_py" = 1 ]; then
    root=$("$py" -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
    [ -n "$root" ] && [ -f "$root/include/nccl.h" ] && return 0
  fi
  while IFS= read -r root; do
    [ -n "$root" ] && [ -f "$root/include/nccl.h" ] || continue
    compgen -G "$root/lib*/libnccl.so*" >/dev/null && return 0
    compgen -G "$root/lib/*-linux-gnu/libnccl.so*" >/dev/null && return 0
  done < <(header_roots NCCL)
  return 1
}

nvml_found() {
  local root
  while IFS= read -r root; do
    [ -n "$root" ] && [ -f "$root/include/nvml.h" ] && return 0
  done < <(header_roots NVML)
  [ -n "$(pip_file nvidia-nvml-dev nvml.h)" ]
}

py_module_found() { [ "$have_py" = 1 ] && "$py" -c "import $1" >/dev/null 2>&1; }

boost_found() {  # Boost.Sort's headers where kernels/baselines/CMakeLists.txt looks
  local root
  while IFS= read -r root; do
    [ -n "$root" ] && [ -f "$root/include/boost/sort/sort.hpp" ] && return 0
  done < <(header_roots BOOST)
  return 1
}

optional=(nccl nvml numpy matplotlib boost)
declare -A opt_wheel=([nccl]=nvidia-nccl-cu13 [nvml]=nvidia-nvml-dev [numpy]=numpy [matplotlib]=matplotlib)
declare -A opt_use=([nccl]="multi-GPU collectives" [nvml]="NVML device queries"
  [numpy]="scripts/plot.py and the plotting tests" [matplotlib]="scripts/plot.py and the plotting tests"
  [boost]="the cpu-boost-* rows (Boost.Sort)")
opt_present() {
  case $1 in
    nccl) nccl_found ;;
    nvml) nvml_found ;;
    boost) boost_found ;;
    *) py_module_found "$1" ;;
  esac
}
present=()
for part in "${optional[@]}"; do
  if opt_present "$part"; then present+=("$part") && continue; fi
  note=""
  if [ -z "${opt_wheel[$part]:-}" ]; then
    # Headers a distribution packages, not a wheel: its package manager, where this user may use it.
    if [ -n "$pm" ] && [ "$sudo_cmd" != none ] && [ "$install_allowed" != 0 ]; then
      system_install "$part"
      if opt_present "$part"; then present+=("$part") && continue; fi
      note=" ($pm install failed here, its output: $log)"
    fi
    echo "setup: skipping $part, used by ${opt_use[$part]}: get it with apt-get install ${apt_pkg[$part]} or dnf install ${dnf_pkg[$part]}$note"
    continue
  fi
  if [ "$py_can_pip" = 1 ] && [ "$install_allowed" != 0 ]; then
    echo "setup: installing ${opt_wheel[$part]} with pip"
    if pip_install "${opt_wheel[$part]}" && opt_present "$part"; then present+=("$part") && continue; fi
    note=" (pip install failed here, its output: $log)"
  elif [ "$have_py" = 0 ]; then
    note=" (no $py here)"
  elif [ "$install_allowed" != 0 ]; then
    note=" (no pip for $py here)"
  fi
  echo "setup: skipping $part, used by ${opt_use[$part]}: get it with pip install ${opt_wheel[$part]}$note"
done

echo "setup: ok (nvcc $nvcc_release, cmake $cmake_version, $cxx_label${present[*]:+; optional: ${present[*]}})"

# --- the Python face, on request (--python) ----------------------------------------------------

if [ "$want_python" = 1 ]; then
  if [ "$have_py" = 0 ]; then
    echo "setup: missing $py, which the Python face needs; install Python 3.9 or newer (or set SORTBENCH_PYTHON)" >&2
    exit 3
  fi
  # The module compiles against the interpreter's headers (Python.h), which a distribution's
  # python3 keeps in a package of its own.
  py_headers() { [ -f "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ]; }
  if ! py_headers && [ -n "$pm" ] && [ "$sudo_cmd" != none ] && [ "$install_allowed" != 0 ]; then
    dev_pkg=python3-dev
    [ "$pm" = dnf ] && dev_pkg=python3-devel
    echo "setup: installing $dev_pkg with $pm"
    if [ "$pm" = apt-get ]; then
      $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$dev_pkg" \
        >>"$log" 2>&1 || true
    else
      $sudo_cmd dnf install -y -q "$dev_pkg" >>"$log" 2>&1 || true
    fi
  fi
  if ! py_headers; then
    echo "setup: missing Python.h for $py (the module's build needs the interpreter's headers); get it: apt-get install python3-dev, dnf install python3-devel, or a Python with its headers (pyenv, conda)" >&2
    exit 3
  fi
  py_missing=()
  for mod in "${py_part_order[@]}"; do py_module_found "$mod" || py_missing+=("$mod"); done
  if ((${#py_missing[@]})) && [ "$py_can_pip" = 1 ] && [ "$install_allowed" != 0 ]; then
    pkgs=()
    for mod in "${py_missing[@]}"; do pkgs+=("${py_part[$mod]}"); done
    if compgen -G "$wheel_dir/*.whl" >/dev/null; then
      echo "setup: installing ${pkgs[*]} with pip from $wheel_dir/ (no index)"
      pip_install --no-index --find-links "$wheel_dir" "${pkgs[@]}" || true
    else
      echo "setup: installing ${pkgs[*]} with pip"
      pip_install "${pkgs[@]}" || true
    fi
    still=()
    for mod in "${py_missing[@]}"; do py_module_found "$mod" || still+=("$mod"); done
    py_missing=("${still[@]}")
  fi
  if ((${#py_missing[@]})); then
    for mod in "${py_missing[@]}"; do
      echo "setup: missing ${py_part[$mod]} for $py (the Python face); get it: pip install ${py_part[$mod]}, or bash scripts/setup.sh --download-wheels where an index answers and carry wheels/ here (its output: $log)" >&2
    done
    exit 3
  fi
  # Optional for the Python face: tests/python's Arrow and pandas tests run only where these import
  # (issue 47 item 8: they were skipped unless installed by hand). From an index only; a machine
  # with wheels/ alone skips them, saying so.
  for mod in pyarrow pandas; do
    py_module_found "$mod" && continue
    if [ "$py_can_pip" = 1 ] && [ "$install_allowed" != 0 ] && ! compgen -G "$wheel_dir/*.whl" >/dev/null; then
      echo "setup: installing $mod with pip (tests/python's $mod tests)"
      pip_install "$mod" || true
    fi
    py_module_found "$mod" ||
      echo "setup: skipping $mod, used by tests/python's $mod tests: get it with pip install $mod (its output: $log)"
  done
  echo "setup: python ok ($("$py" -c 'import sys; print("python %d.%d" % sys.version_info[:2])'), nanobind $("$py" -c 'import nanobind; print(nanobind.__version__)'), pytest $("$py" -c 'import pytest; print(pytest.__version__)'))"
fi
