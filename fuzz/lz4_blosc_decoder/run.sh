#!/usr/bin/env bash
# Builds the LZ4 / Blosc decoders' libFuzzer target with clang and runs it for
# a bounded time. Crashing inputs are copied to fuzz/lz4_blosc_decoder/regressions/
# (commit them: the host test suite replays that folder).
#   fuzz/lz4_blosc_decoder/run.sh [SECONDS=60] [JOBS=1]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
jobs=${2:-1}
build=${LZ4_BLOSC_FUZZ_BUILD:-$root/build-lz4-blosc-fuzz}
CXX=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14 || true)}
[ -n "$CXX" ] || { echo "clang++ not found"; exit 2; }
mkdir -p "$build"
libs="-llz4 -lblosc $(pkg-config --libs libzstd 2>/dev/null || echo -lzstd) -lz"
# Direct compile: one translation unit, no CMake configure of the whole project.
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$root/src" "$here/lz4_blosc_decoder_fuzzer.cpp" -o "$build/lz4_blosc_decoder_fuzzer" $libs
corpus="$build/corpus"
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
  "$CXX" -std=c++20 -O1 "$here/make_seeds.cpp" -o "$build/make_seeds" $libs
  "$build/make_seeds" "$corpus"
fi
exec "$here/../bounded_run.sh" "$build/lz4_blosc_decoder_fuzzer" "$corpus" "$here/regressions" "$build" "$secs" "$jobs" \
  -max_len=200000
