#!/usr/bin/env bash
# On the GPU machine (no network): bring in what its image lacks, from files
# carried with the call — Debian -dev packages in .deps/ and PyPI wheels in .whl/
# (see bench/gpu/README.md for how to fetch them). Source it: it exports paths.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
need() { [ -e "$1" ] || { for d in "${@:2}"; do f=$(ls "$root"/.deps/${d}_*.deb "$root"/.deps-node/${d}_*.deb 2>/dev/null | head -1); [ -n "$f" ] && dpkg -x "$f" / && echo "prepare: unpacked $(basename "$f")"; done; }; }
if [ -d "$root/.deps" ]; then
  need /usr/include/nlohmann/json.hpp nlohmann-json3-dev
  need /usr/include/blosc.h libblosc-dev libblosc1 libsnappy1v5
  need /usr/include/gtest/gtest.h libgtest-dev libgmock-dev
  need /usr/include/xxhash.h libxxhash-dev
  need /usr/include/lz4.h liblz4-dev
  need /usr/include/zstd.h libzstd-dev
  need /usr/include/openssl/sha.h libssl-dev
  need /usr/include/libdeflate.h libdeflate-dev libdeflate0
  need /usr/include/bzlib.h libbz2-dev
  need /usr/include/lzma.h liblzma-dev
  # The HTTP and S3 stores: headers, and the runtime only where the image has none.
  need /usr/include/x86_64-linux-gnu/curl/curl.h libcurl4-openssl-dev
  need /usr/lib/x86_64-linux-gnu/libcurl.so.4 libcurl4
  # Node.js for the Node client's tests (Debian's, with its libraries and
  # headers, from .deps-node when carried), only where the image has no node;
  # bench/gpu/node_addon.sh builds the addon without node-gyp.
  if ! command -v node >/dev/null; then
    need /usr/bin/node nodejs libnode108 libicu72 libuv1 libc-ares2 node-acorn node-xtend node-cjs-module-lexer \
      node-undici node-busboy
    need /usr/include/node/node_api.h libnode-dev
  fi
  ldconfig
fi
# .whl: nvCOMP (the Zstd benchmark); .whl-peers: zarr-python, numcodecs, KvikIO, zarrs.
wheels=$(ls "$root"/.whl/*.whl "$root"/.whl-peers/*.whl 2>/dev/null)
if [ -n "$wheels" ]; then
  # Scripts source this file in turn (run.sh, then read.sh or xarray.sh): install a set of wheels once.
  stamp=$(basename -a $wheels | sort | tr '\n' ' ')
  if [ "$(cat /tmp/site/.zarrgpu-wheels 2>/dev/null)" = "$stamp" ] ||
     python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $wheels; then
    echo "$stamp" > /tmp/site/.zarrgpu-wheels
    case ":${PYTHONPATH:-}:" in *:/tmp/site:*) ;; *) export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} ;; esac
  fi
fi
corpus="$root/.corpus"; [ -d "$corpus" ] || corpus="$root/tests/corpus/data"
export ZARRGPU_CORPUS_DIR="$corpus"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/prepare: GPU /'
