#!/usr/bin/env bash
# Builds the store fuzzer with clang (the library with -fsanitize=fuzzer-no-link,
# address and undefined) and runs it for a bounded time over seeds made here
# and the conformance corpus (tests/corpus/data, or $ZARRGPU_CORPUS_DIR). Crashing inputs
# are copied to fuzz/store/regressions/ (commit them: ctest replays that folder,
# tests/fuzz_store/).
#   fuzz/store/run.sh [SECONDS=60] [JOBS=1]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
jobs=${2:-1}
build=${STORE_FUZZ_BUILD:-$root/build-store-fuzz}
CXX=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14 || true)}
CC=${CC_FUZZ:-$(command -v clang || command -v clang-14 || true)}
[ -n "$CXX" ] && [ -n "$CC" ] || { echo "clang not found"; exit 2; }
if [ ! -f "$build/build.ninja" ]; then
  # -O1 with line tables only, as libFuzzer's documentation builds: less to
  # compile than RelWithDebInfo's full debug info, and reports keep file and line.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_CXX_COMPILER="$CXX" -DZARRGPU_CUDA=OFF -DZARRGPU_FUZZ=ON \
    -DZARRGPU_SANITIZE=address,undefined,fuzzer-no-link -DZARRGPU_BUILD_TESTS=OFF -DZARRGPU_BUILD_TOOLS=OFF \
    -DZARRGPU_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" --target store_fuzzer -j "${ZARRGPU_JOBS:-$(nproc)}"
corpus="$build/corpus"
mkdir -p "$corpus"
[ -n "$(ls -A "$corpus")" ] || python3 "$here/store_archive.py" seeds "$corpus" "${ZARRGPU_CORPUS_DIR:-$root/tests/corpus/data}"
exec "$here/../bounded_run.sh" "$build/fuzz/store/store_fuzzer" "$corpus" "$here/regressions" "$build" "$secs" "$jobs" \
  -max_len=300000 -malloc_limit_mb=1024
