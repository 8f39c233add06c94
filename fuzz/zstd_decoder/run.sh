#!/usr/bin/env bash
# Builds the decoder's libFuzzer target with clang and runs it for a bounded
# time. Crashing inputs are copied to fuzz/zstd_decoder/regressions/ (commit
# them: the host test suite replays that folder).
#   fuzz/zstd_decoder/run.sh [SECONDS=60] [JOBS=1]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
jobs=${2:-1}
build=${ZSTD_FUZZ_BUILD:-$root/build-zstd-fuzz}
CXX=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14 || true)}
[ -n "$CXX" ] || { echo "clang++ not found"; exit 2; }
mkdir -p "$build"
# Direct compile: one translation unit, no CMake configure of the whole project.
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$root/src" "$here/zstd_decoder_fuzzer.cpp" -o "$build/zstd_decoder_fuzzer" $(pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
corpus="$build/corpus"
mkdir -p "$corpus"
[ -n "$(ls -A "$corpus")" ] || python3 "$here/make_seeds.py" "$corpus"
exec "$here/../bounded_run.sh" "$build/zstd_decoder_fuzzer" "$corpus" "$here/regressions" "$build" "$secs" "$jobs" \
  -max_len=200000
