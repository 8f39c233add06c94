#!/usr/bin/env bash
# Installs what zarrgpu needs on a fresh Debian/Ubuntu machine, idempotently:
# the system libraries (Debian -dev packages) and a Python virtual environment
# (.venv) with the test peers (zarr-python, TensorStore, xarray…).
# Quick when everything is already there.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

apt_packages=(build-essential cmake ninja-build pkg-config git python3-venv
  libzstd-dev liblz4-dev libblosc-dev zlib1g-dev libdeflate-dev libxxhash-dev libbz2-dev liblzma-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev libssl-dev libcurl4-openssl-dev zstd clang
  nginx-light)  # nginx: the HTTP store's tests serve the corpus with it
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing system packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Node.js IPC client's toolchain (bindings/node, tests/python/test_ipc_node.py):
# Debian's nodejs, node-gyp and Node's headers, unless a Node.js with its headers
# and a node-gyp (its own, or npm's bundled one) is installed already.
if ! { command -v node >/dev/null && [ -f /usr/include/node/node_api.h ] &&
       { command -v node-gyp >/dev/null || [ -f /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js ]; }; }; then
  echo "setup: installing Node.js, node-gyp and Node's headers"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs node-gyp libnode-dev >/dev/null
fi

venv="$root/.venv"
stamp="$venv/.requirements.sha256"
want=$(cat requirements-dev.txt 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: creating the Python environment in .venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  [ -f requirements-dev.txt ] && "$venv/bin/python" -m pip install -q -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
# zarr-python's wheel ships no tests: fetch the installed version's suite (sdist from PyPI)
# into .cache/ for tests/python/zarr_suite; offline, that suite skips.
"$venv/bin/python" tests/python/zarr_suite/fetch_zarr_tests.py >/dev/null \
  || echo "setup: zarr-python's test suite not fetched (offline?); tests/python/test_zarr_python_suite.py will skip"
