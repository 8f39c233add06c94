#!/usr/bin/env bash
# Fetches what the GPU machine lacks, on a machine with network (it has none):
#   .deps/       Debian packages unpacked there by bench/gpu/prepare.sh (the -dev
#                packages of scripts/setup.sh that its image does not have)
#   .deps-node/  Debian's Node.js, for the Node client's tests there
#   .whl-peers/  PyPI wheels of the peers the benchmarks and GPU tests compare
#                against (zarr-python, numcodecs, KvikIO, dask), for the GPU
#                machine's Python 3.12
#   .whl/        nvCOMP's wheel (the Zstd benchmark's peer)
# Then carry what a call needs: run(carry=[".deps", ".whl", ".whl-peers"], ...),
# plus ".deps-node" for the Node.js tests. All are git-ignored; a call carries
# at most 64 MiB (.deps 5 MB, .deps-node 21, .whl 29, .whl-peers 12).
#   bash bench/gpu/fetch_deps.sh [--no-nvcomp]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
mkdir -p .deps .whl .whl-peers

debs=(nlohmann-json3-dev libblosc-dev libblosc1 libsnappy1v5 libgtest-dev libgmock-dev libxxhash-dev
      liblz4-dev libzstd-dev libssl-dev libdeflate-dev libdeflate0 libbz2-dev liblzma-dev
      libcurl4-openssl-dev libcurl4)
[ -f /var/lib/apt/lists/lock ] && ls /var/lib/apt/lists/*Packages* >/dev/null 2>&1 || apt-get update -qq
(cd .deps && apt-get download "${debs[@]}" >/dev/null)
# Debian's Node.js, its libraries and headers, for the Node client's tests, in
# .deps-node (21 MB: carried only by calls that run those tests; prepare.sh
# unpacks them only where the image has no node). Debian's own version even
# where another Node.js (e.g. NodeSource's) is installed.
debian_version() { apt-cache madison "$1" | awk -F' [|] ' '$3 ~ /debian\.org/ {print $2; exit}'; }
node_debs=("nodejs=$(debian_version nodejs)" "libnode108=$(debian_version libnode108)"
           "libnode-dev=$(debian_version libnode-dev)" libicu72 libuv1 libc-ares2 node-acorn node-xtend
           node-cjs-module-lexer node-undici node-busboy)
mkdir -p .deps-node && (cd .deps-node && apt-get download "${node_debs[@]}" >/dev/null)
echo "fetch_deps: $(ls .deps | wc -l) Debian packages in .deps/"

pyget() {  # wheels for CPython 3.12 on manylinux x86-64, no dependencies
  local dest=$1; shift
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_34_x86_64 \
    --platform any -d "$dest" "$@"
}
# zarr-python and what it needs beyond the GPU image's packages; KvikIO for the
# zarr-python + GDS rows; dask for xarray's chunks= tests.
pyget .whl-peers "zarr>=3.1" "numcodecs>=0.15" donfig crc32c google-crc32c msgspec "dask>=2024.1" partd locket
pyget .whl-peers kvikio-cu13 libkvikio-cu13 rapids-logger || echo "fetch_deps: no KvikIO wheel (its rows will be skipped)"
# nvCOMP's Python API: row 3 of bench/zarr_python (zarr-python PR #2863's Zstd codec).
pyget .whl-peers nvidia-nvcomp-cu13 || echo "fetch_deps: no nvidia-nvcomp-cu13 wheel (bench/zarr_python row 3 will be skipped)"
if [ "${1:-}" != --no-nvcomp ]; then
  pyget .whl nvidia-libnvcomp-cu13 || echo "fetch_deps: no nvCOMP wheel"
fi
du -sh .deps .deps-node .whl .whl-peers
