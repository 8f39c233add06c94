#!/usr/bin/env bash
# One entry point for the GPU machine: builds with CUDA, then the stages named
# on the command line, in order:
#   test    every GoogleTest suite (GPU ones included) and the Python tests
#           (GPU ones included) through an editable install into build/
#   read    bench/gpu/read.sh: device-read sanitizer runs and the read benchmark
#   cpu     bench/cpu_read/run_cpu_read.py: host reads vs TensorStore
#   zstd    bench/gpu/zstd.sh: the GPU Zstd decoder benchmark
#   xarray  bench/gpu/xarray.sh: open_dataset().load() to the GPU vs zarr-python's GPU mode
#   zarr_python  bench/gpu/zarr_python.sh: zarr-python into GPU buffers, issue 37's five rows
#   ipc     the IPC tests (issue 38) and bench/ipc/bench_ipc.py (time to first tensor, requests/s)
#   codecs  the GPU LZ4 / Blosc decoders (issue 36): their GPU tests, then
#           bench/gpu_codecs/run_codecs.py: ERA5-like Blosc-LZ4 and LZ4 stores read
#           into GPU memory with the GPU decoder forced on, off and auto (~2-3 min)
#   bench/gpu/run.sh test read cpu
# Results stay as files in $OUT (or bench/results); logs go into one logs.tgz,
# since the device tool returns at most 8 files.
source "$(dirname "${BASH_SOURCE[0]}")/stage_env.sh"
stages=("$@"); [ ${#stages[@]} -gt 0 ] || stages=(test)
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 ))s; }
gb=${ZARRGPU_BENCH_GB:-8}

echo "== build ($(elapsed))"
bash bench/gpu/build.sh "$out" all || exit 1
echo "built ($(elapsed))"

for s in "${stages[@]}"; do
  case $s in
    test)
      echo "== GoogleTest ($(elapsed))"
      ctest --test-dir build -j 8 --timeout 300 --output-on-failure > "$out/ctest.log" 2>&1
      echo "ctest exit $?"; grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|Timeout" "$out/ctest.log" | head -30
      echo "== pytest ($(elapsed))"
      # The extension built above, importable from python/ (no reinstall needed).
      source bench/gpu/python_pkg.sh
      ZARRGPU_BIN=$root/build/tools/zarrgpu/zarrgpu \
        timeout 400 python3 -m pytest -q -p no:cacheprovider tests/python > "$out/pytest.log" 2>&1
      echo "pytest exit $?"; grep -E "passed|failed|FAILED|Error" "$out/pytest.log" | tail -25 ;;
    read)   echo "== device read ($(elapsed))"; bash bench/gpu/read.sh --skip-build --skip-tests --gb "$gb" ${ZARRGPU_READ_BUDGET:+--budget $ZARRGPU_READ_BUDGET} ;;
    cpu)    echo "== host read ($(elapsed))"; python3 bench/cpu_read/run_cpu_read.py --bin build --gb "$gb" --out "$out" ;;
    zstd)   echo "== zstd ($(elapsed))"; bash bench/gpu/zstd.sh ;;
    xarray) echo "== xarray ($(elapsed))"; bash bench/gpu/xarray.sh ;;
    zarr_python) echo "== zarr-python ($(elapsed))"; bash bench/gpu/zarr_python.sh ;;
    ipc)    echo "== ipc ($(elapsed))"  # issue 38: IPC tests on the GPU, then bench/ipc/bench_ipc.py
            ctest --test-dir build -R Ipc --output-on-failure > "$out/ipc_ctest.log" 2>&1
            echo "ctest exit $?"; grep -E "tests passed|tests failed|\(Failed\)|Skipped" "$out/ipc_ctest.log" | head -20
            source bench/gpu/python_pkg.sh
            ZARRGPU_BIN=$root/build/tools/zarrgpu/zarrgpu timeout 500 python3 -m pytest -q -p no:cacheprovider -rs \
              tests/python/test_ipc_descriptor.py tests/python/test_ipc_gpu.py tests/python/test_ipc_service.py \
              tests/python/test_ipc_node.py > "$out/ipc_pytest.log" 2>&1
            echo "pytest exit $?"; grep -E "passed|failed|FAILED|SKIPPED" "$out/ipc_pytest.log" | tail -20
            python3 bench/ipc/bench_ipc.py --zarrgpu build/tools/zarrgpu/zarrgpu --out "$out" \
              ${ZARRGPU_IPC_SIZES:+--sizes $ZARRGPU_IPC_SIZES} ;;
    codecs) echo "== codecs ($(elapsed))"  # issue 36: GPU LZ4/Blosc decoders on the read path
            ctest --test-dir build -R 'Lz4Gpu|BloscGpu|DeviceRead|DeviceChain|DeviceChoice' --timeout 300 --output-on-failure > "$out/codecs_ctest.log" 2>&1
            echo "ctest exit $?"; grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)" "$out/codecs_ctest.log" | head -20
            source bench/gpu/python_pkg.sh
            ZARRGPU_BIN=$root/build/tools/zarrgpu/zarrgpu timeout 300 python3 -m pytest -q -p no:cacheprovider -rs \
              tests/python/test_gpu_lz4_blosc.py > "$out/codecs_pytest.log" 2>&1
            echo "pytest exit $?"; grep -E "passed|failed|FAILED|SKIPPED" "$out/codecs_pytest.log" | tail -10
            timeout 420 python3 bench/gpu_codecs/run_codecs.py --bin build --gb "${ZARRGPU_CODECS_GB:-2}" --out "$out" \
              2>&1 | tee "$out/codecs.log" | tail -30 ;;
    *)      echo "unknown stage $s" ;;
  esac
done
(cd "$out" && ls *.log >/dev/null 2>&1 && tar czf logs.tgz *.log && rm -f *.log)
echo "== done ($(elapsed))"
