#!/usr/bin/env bash
# Installs what sortbench needs and is missing; safe to run twice. Needs the CUDA Toolkit 13
# (nvcc) already installed: Debian has no CUDA 13 package to install it from.
set -euo pipefail

export PATH="/usr/local/cuda/bin:${PATH}"

debs=(cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev)
missing=()
for pkg in "${debs[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: nvcc not found; install the CUDA Toolkit 13 (https://developer.nvidia.com/cuda-downloads) and put its bin/ on PATH" >&2
  exit 1
fi

# matplotlib for scripts/plot.py, in the python3 that is on PATH.
if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  echo "setup: installing matplotlib"
  python3 -m pip install --quiet --disable-pip-version-check matplotlib >/dev/null 2>&1 ||
    { [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null; } ||
    echo "setup: matplotlib could not be installed; plotting tests will be skipped" >&2
fi
echo "setup: ok ($(nvcc --version | grep -o 'release [0-9.]*'), cmake $(cmake --version | head -1 | grep -o '[0-9.]*$'))"
