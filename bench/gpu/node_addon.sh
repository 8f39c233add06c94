#!/usr/bin/env bash
# Builds the Node.js addon (bindings/node) on the GPU machine, which gets
# Debian's Node.js and its headers from .deps (bench/gpu/prepare.sh) but has no
# node-gyp: the one compile and link binding.gyp describes, with the system
# compiler, against build/'s CUDA library. Then
#   ZARRGPU_NODE_PREBUILT=1 pytest tests/python/test_ipc_node.py
# tests it as node-gyp's build would be.
#   bash bench/gpu/node_addon.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
build=$(cd "${1:-build}" && pwd)
[ -f /usr/include/node/node_api.h ] || { echo "node_addon: no Node.js headers (/usr/include/node)"; exit 1; }
cudart=$(sed -n 's/^CUDA_cudart_static_LIBRARY:[A-Z]*=//p' "$build/CMakeCache.txt")
mkdir -p bindings/node/build/Release
c++ -shared -fPIC -O2 -std=c++20 -fexceptions -Wall -Wextra -DNAPI_VERSION=8 \
  -I/usr/include/node -Iinclude -Isrc bindings/node/zarrgpu_ipc.cpp \
  "$build/src/libzarrgpu.a" -lzstd -llz4 -lblosc -lbz2 -llzma -lz -lcrypto -lpthread -ldl \
  ${cudart:+"$cudart" -lrt} -o bindings/node/build/Release/zarrgpu_ipc.node
echo "node_addon: built bindings/node/build/Release/zarrgpu_ipc.node ($(node --version))"
