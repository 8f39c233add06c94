#!/usr/bin/env bash
# Configures build/ as bench/gpu/run.sh does (Release, CUDA) and builds only
# what the read benchmarks run: bench_gpu_read and the zarrgpu CLI (a
# fraction of the whole project's build). Logs to $1 (default $OUT or
# /tmp), named after $2 (default "read").
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
logs=${1:-${OUT:-/tmp}}
tag=${2:-read}
mkdir -p "$logs"
source bench/gpu/prepare.sh > /dev/null
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DZARRGPU_CUDA=ON -DZARRGPU_BUILD_PYTHON=ON \
    -DPython_EXECUTABLE="$(command -v python3)" -DZARRGPU_CORPUS_DIR="$ZARRGPU_CORPUS_DIR" \
    > "$logs/configure_$tag.log" 2>&1 || { tail -40 "$logs/configure_$tag.log"; exit 1; }
fi
cmake --build build --target bench_gpu_read zarrgpu_cli -j "$(nproc)" > "$logs/build_$tag.log" 2>&1 ||
  { grep -E "error" -A3 "$logs/build_$tag.log" | head -30; exit 1; }
