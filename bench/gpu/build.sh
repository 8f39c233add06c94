#!/usr/bin/env bash
# Configures build/ for the GPU machine (Release, CUDA, the Python extension)
# and builds it: the given targets, or everything without any.
#   bash bench/gpu/build.sh LOGDIR TAG [TARGET...]
# bench/gpu/run.sh builds everything; the read benchmarks (read_ab.sh,
# read_profile.sh) only bench_gpu_read and zarrgpu_cli, a fraction of it.
# Logs: LOGDIR/configure_TAG.log, LOGDIR/build_TAG.log.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
logs=${1:-${OUT:-/tmp}}
tag=${2:-all}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p "$logs"
source bench/gpu/prepare.sh > /dev/null
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DZARRGPU_CUDA=ON -DZARRGPU_BUILD_PYTHON=ON \
    -DPython_EXECUTABLE="$(command -v python3)" -DZARRGPU_CORPUS_DIR="$ZARRGPU_CORPUS_DIR" \
    > "$logs/configure_$tag.log" 2>&1 || { tail -40 "$logs/configure_$tag.log"; exit 1; }
fi
cmake --build build ${1:+--target "$@"} -j "$(nproc)" > "$logs/build_$tag.log" 2>&1 ||
  { grep -E "error" -A3 "$logs/build_$tag.log" | head -60; exit 1; }
