# The Node.js client of zarrgpu's IPC (docs/ipc.md, "Node.js"): a Node-API
# addon over the C++ library (include/zarrgpu/ipc.hpp, ipc_client.hpp), built
# with node-gyp against Node's headers (Debian: nodejs, node-gyp, libnode-dev):
#   ZARRGPU_BUILD=<cmake build dir> node-gyp rebuild --nodedir=/usr
# links <build>/src/libzarrgpu.a (position-independent, as the Python
# extension needs it too) and the libraries it uses (ZARRGPU_NODE_LIBS: more).
{
  "targets": [{
    "target_name": "zarrgpu_ipc",
    "sources": ["zarrgpu_ipc.cpp"],
    "include_dirs": ["../../include", "../../src"],
    "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17"],
    "cflags_cc": ["-std=c++20", "-fexceptions", "-Wall", "-Wextra"],
    "defines": ["NAPI_VERSION=8"],
    "libraries": [
      "<!(node -p \"require('path').resolve(process.env.ZARRGPU_BUILD || '../../build', 'src/libzarrgpu.a')\")",
      "-lzstd", "-llz4", "-lblosc", "-lbz2", "-llzma", "-lz", "-lcrypto", "-lpthread", "-ldl",
      # A CUDA build's library needs the CUDA runtime too, e.g.
      # ZARRGPU_NODE_LIBS="-L/usr/local/cuda/lib64 -lcudart_static -lrt".
      "<!@(node -p \"process.env.ZARRGPU_NODE_LIBS || '-lpthread'\")"
    ]
  }]
}
