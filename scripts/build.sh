#!/usr/bin/env bash
# Configures and builds zarrgpu into build/ (CUDA when nvcc is found: ZARRGPU_CUDA=AUTO).
# Extra arguments go to cmake's configure step.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${ZARRGPU_BUILD_DIR:-build}
jobs=${ZARRGPU_JOBS:-$(nproc)}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZARRGPU_CUDA="${ZARRGPU_CUDA:-AUTO}" "$@" >/dev/null
fi
cmake --build "$build" -j "$jobs"
