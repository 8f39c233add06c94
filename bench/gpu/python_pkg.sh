# Sourced by bench/gpu/run.sh and bench/gpu/xarray.sh: makes the Python
# package importable from the extension built in build/ (no reinstall), with
# the xarray entry point registered, under /tmp/zpkg; exports PYTHONPATH.
so=$(find build/python -name '_zarrgpu*.so' | head -1)
if [ -z "$so" ]; then
  echo "python_pkg: no _zarrgpu extension under build/python (configure with -DZARRGPU_BUILD_PYTHON=ON)"
else
  rm -rf /tmp/zpkg && mkdir -p /tmp/zpkg/zarrgpu-0.1.0.dist-info
  cp -r python/zarrgpu /tmp/zpkg/ && cp "$so" /tmp/zpkg/zarrgpu/
  printf 'Metadata-Version: 2.1\nName: zarrgpu\nVersion: 0.1.0\n' > /tmp/zpkg/zarrgpu-0.1.0.dist-info/METADATA
  printf '[xarray.backends]\nzarrgpu = zarrgpu.xarray_backend:ZarrgpuBackendEntrypoint\n' \
    > /tmp/zpkg/zarrgpu-0.1.0.dist-info/entry_points.txt
  export PYTHONPATH=/tmp/zpkg:${PYTHONPATH:-}
fi
