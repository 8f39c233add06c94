#!/usr/bin/env bash
# Runs every test: set-up, build, a CUDA syntax check of the GPU Zstd decoder,
# GoogleTest suites (ctest), the Python tests
# (pytest), the corpus and corrupt-input suites again under AddressSanitizer and
# UBSan (with the hostile-input suites: tests/engine/hostile_test.cpp, and the CLI
# cases of tests/python/test_hostile.py), and bounded fuzzing runs of the Zstd,
# LZ4 and Blosc decoders and of whole stores.
# GPU tests skip themselves on a machine without a GPU.
#   ZARRGPU_TEST_QUICK=1  skips the sanitizer build and the fuzzer.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
"$root/scripts/setup.sh"
jobs=${ZARRGPU_JOBS:-$(nproc)}
# The conformance corpus is in the repository; ../shared/corpus adds its arrays when present.
corpus=$(realpath "${ZARRGPU_CORPUS_DIR:-$root/tests/corpus/data}")
export ZARRGPU_CORPUS_DIR="$corpus"
extra_corpus=$(realpath -m "${ZARRGPU_EXTRA_CORPUS_DIR:-$root/../shared/corpus}")
export ZARRGPU_EXTRA_CORPUS_DIR="$extra_corpus"
status=0
# What failed, repeated at the end: CI shows only the last lines of a long run.
failures=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed() { status=1; failures+=("$*"); }

step() { printf '\n==== %s\n' "$*"; }

step "build (build/): the library, tools, tests, benchmarks and the Python extension"
# One build tree serves ctest, the CLI and Python: pip's editable install
# (scikit-build-core) configures and builds everything into build/.
CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$root/.venv/bin/python" -m pip install -q --no-build-isolation -e . \
  -Cbuild-dir=build -Ccmake.define.ZARRGPU_BUILD_TESTS=ON -Ccmake.define.ZARRGPU_BUILD_TOOLS=ON \
  -Ccmake.define.ZARRGPU_BUILD_BENCH=ON -Ccmake.define.ZARRGPU_CORPUS_DIR="$corpus" \
  -Ccmake.define.ZARRGPU_EXTRA_CORPUS_DIR="$extra_corpus"

step "CUDA type check (clang, no CUDA SDK needed): GPU Zstd decoder, CUDA host code, GPU tests"
tests/cuda_syntax/check.sh || failed "CUDA type check"

step "GoogleTest suites"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900 2>&1 | tee "$logs/ctest.log" ||
  failed "GoogleTest suites:" $(sed -n '/tests FAILED:/,$p' "$logs/ctest.log" | grep -oE ' - [A-Za-z0-9_./]+' | sed 's/^ - //')

step "Python tests"
export ZARRGPU_BIN="$root/build/tools/zarrgpu/zarrgpu"
# setup.sh installed Node.js and node-gyp: the Node.js IPC tests must run, not skip.
export ZARRGPU_REQUIRE_NODE=1
# setup.sh installed nginx and moto's S3 server: the HTTP and S3 store tests must run, not skip.
export ZARRGPU_REQUIRE_SERVERS=1
set +e
"$root/.venv/bin/python" -m pytest -q tests/python 2>&1 | tee "$logs/pytest.log"
rc=${PIPESTATUS[0]}
set -e
# Exit code 5 means no tests were collected: treat as failure only if tests exist.
if [ $rc -ne 0 ] && ! { [ $rc -eq 5 ] && [ -z "$(ls tests/python/test_*.py 2>/dev/null)" ]; }; then
  failed "Python tests (exit $rc):" $(grep -E '^(FAILED|ERROR) ' "$logs/pytest.log" | awk '{print $2}')
fi

if [ "${ZARRGPU_TEST_QUICK:-0}" != 1 ]; then
  step "AddressSanitizer + UBSan build (build-asan/): corpus, codecs, decoder, engine"
  if [ ! -f build-asan/build.ninja ]; then
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZARRGPU_CUDA=OFF \
      -DZARRGPU_SANITIZE=address,undefined -DZARRGPU_BUILD_BENCH=OFF -DZARRGPU_CORPUS_DIR="$corpus" \
      -DZARRGPU_EXTRA_CORPUS_DIR="$extra_corpus" >/dev/null
  fi
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 1800 2>&1 | tee "$logs/ctest-asan.log" ||
    failed "AddressSanitizer + UBSan suites:" $(sed -n '/tests FAILED:/,$p' "$logs/ctest-asan.log" | grep -oE ' - [A-Za-z0-9_./]+' | sed 's/^ - //')
  # The hostile-input cases through the sanitized CLI (the Python ones need the Release extension).
  ZARRGPU_BIN="$root/build-asan/tools/zarrgpu/zarrgpu" "$root/.venv/bin/python" -m pytest -q tests/python/test_hostile.py \
    -k hostile_case_cli || failed "hostile-input cases through the sanitized CLI"

  if [ -x fuzz/zstd_decoder/run.sh ]; then
    step "fuzzing the Zstd decoder (bounded)"
    fuzz/zstd_decoder/run.sh "${ZARRGPU_FUZZ_SECONDS:-60}" || failed "Zstd decoder fuzzer"
  fi
  if [ -x fuzz/lz4_blosc_decoder/run.sh ]; then
    step "fuzzing the LZ4 and Blosc decoders (bounded)"
    fuzz/lz4_blosc_decoder/run.sh "${ZARRGPU_FUZZ_SECONDS:-60}" || failed "LZ4 and Blosc decoder fuzzer"
  fi
  if [ -x fuzz/store/run.sh ]; then
    step "fuzzing whole stores: metadata and chunks of v2, v3 and sharded arrays (bounded)"
    fuzz/store/run.sh "${ZARRGPU_FUZZ_SECONDS:-60}" || failed "store fuzzer"
  fi
fi

step "done"
if [ $status -ne 0 ]; then
  echo "FAILED"
  for f in "${failures[@]}"; do echo "  - $f"; done
else
  echo "all test steps passed"
fi
exit $status
