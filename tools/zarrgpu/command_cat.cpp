// zarrgpu cat STORE --array PATH [--select SEL] --out FILE.npy [--device cpu|cuda:N]
#include <unistd.h>

#include <iostream>

#include "zarrgpu/memory_limit.hpp"
#include "engine/node_documents.hpp"
#include "byte_size.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "node_tree.hpp"
#include "npy_file.hpp"

#ifdef ZARRGPU_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace zarrgpu::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"array", true, "PATH", "the array inside STORE (default: found from STORE[/PATH])"},
    {"path", true, "PATH", "same as --array"},
    {"select", true, "SEL", "NumPy basic indexing per dimension: 0:10,:,5  ::2,-1  (default: everything)"},
    {"out", true, "FILE.npy", "where to write the selection (required; '-': standard output)"},
    {"device", true, "DEV", "cpu (default) or cuda[:N]: read through the GPU path, then copy to the host"},
    {"quiet", false, "", "print nothing on success"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu cat STORE[/PATH] [--array PATH] [--select SEL] --out FILE.npy [--device cpu|cuda:0]\n"
    "\n"
    "Reads a selection of an array and writes it as a NumPy .npy file (format 1.0,\n"
    "C order, little-endian; written to a temporary name and renamed, so the file is\n"
    "complete or absent). Integer selections drop their dimension, as in NumPy.\n"
    "bool is '|b1', complex64/128 '<c8'/'<c16'. bfloat16 has no NumPy type: it is\n"
    "written as '|V2' (the raw bfloat16 bits); np.load(f).view('<u2') gives the bits,\n"
    ".view(ml_dtypes.bfloat16) the values. The selection is read into memory whole:\n"
    "it must fit in host (and, with --device cuda, GPU) memory. --out - writes the .npy\n"
    "to standard output (np.load(io.BytesIO(sys.stdin.buffer.read())) reads it back).\n"
    "\noptions:\n";

void read_through_cuda(const Array& a, const Selection& sel, Device dev, std::span<std::byte> host) {
#ifdef ZARRGPU_HAVE_CUDA
  require_cuda_device(dev);
  if (cudaSetDevice(dev.index) != cudaSuccess)
    throw Error(ErrorKind::device, "cannot select " + dev.to_string());
  void* d = nullptr;
  if (!host.empty() && cudaMalloc(&d, host.size()) != cudaSuccess)
    throw Error(ErrorKind::device, "cannot allocate " + std::to_string(host.size()) + " bytes on " + dev.to_string());
  try {
    a.read(sel, d, host.size(), dev);
    if (!host.empty() && cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost) != cudaSuccess)
      throw Error(ErrorKind::device, "cannot copy the selection from " + dev.to_string() + " to the host");
  } catch (...) {
    cudaFree(d);
    throw;
  }
  cudaFree(d);
#else
  (void)a; (void)sel; (void)host;
  throw Error(ErrorKind::unsupported, "this build has no CUDA path (asked for " + dev.to_string() +
                                          "); rebuild with -DZARRGPU_CUDA=ON or use --device cpu");
#endif
}

}  // namespace

int run_cat(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  if (args.positionals().size() != 1) throw UsageError("cat needs exactly one STORE argument");
  auto out = args.value("out");
  if (!out || out->empty()) throw UsageError("cat needs --out FILE.npy");
  auto path = args.value("array");
  if (!path) path = args.value("path");
  Device device;
  try {
    device = Device::parse(args.value_or("device", "cpu"));
  } catch (const Error& e) {
    throw UsageError("bad --device '" + args.value_or("device", "") + "': use cpu, cuda or cuda:N");
  }
  Selection sel;
  try {
    sel = Selection::parse(args.value_or("select", ""));
  } catch (const Error& e) {
    throw Error(ErrorKind::invalid_argument, "bad --select '" + args.value_or("select", "") + "': " + e.cause());
  }

  StoreLocation loc = locate_store(args.positionals()[0], path);
  auto store = open_store(loc.root, false);
  NodeMetadata node = open_node(*store, loc.path);
  if (std::holds_alternative<GroupMetadata>(node)) {
    std::string members;
    for (const auto& m : Group::open(store, loc.path).members()) members += (members.empty() ? "" : ", ") + m;
    throw Error(ErrorKind::invalid_argument,
                "'" + (loc.path.empty() ? std::string("/") : loc.path) +
                    "' is a group, not an array; choose one with --array (members: " + members + ")",
                {loc.path, "", "", store->describe()});
  }
  Array array = Array::open(store, loc.path);
  // .npy holds fixed-size elements; an object array would need pickle to load.
  if (is_variable_length(array.dtype()))
    throw Error(ErrorKind::unsupported,
                "cat writes .npy files of fixed-size elements; the array has the variable-length data type " +
                    describe(array.dtype()) + " (read it with zarrgpu.open in Python)",
                {loc.path, "", "", store->describe()});
  std::vector<DimRange> ranges;
  try {
    ranges = sel.resolve(array.shape());
  } catch (const Error& e) {
    throw e.with_context({loc.path, "", "", store->describe()});
  }
  auto shape = Selection::result_shape(ranges);
  std::uint64_t n = size_of(array.dtype());
  bool wraps = false;
  for (auto s : shape) wraps = __builtin_mul_overflow(n, s, &n) || wraps;
  for (auto s : shape) wraps = wraps && s != 0;  // an empty dimension empties the selection
  if (wraps)
    throw Error(ErrorKind::invalid_argument, "the selection [" + sel.to_string() + "] holds more than 2^64 bytes",
                {loc.path, "", "", store->describe()});
  check_allocation(n, "the selection [" + sel.to_string() + "] of " + describe(array.dtype()),
                   {loc.path, "", "", store->describe()});
  Bytes data(n);
  if (device.kind == Device::Kind::cpu) array.read(sel, data.span());
  else read_through_cuda(array, sel, device, data.span());
  const bool to_stdout = *out == "-";
  if (to_stdout) {
    std::cout.flush();
    write_npy_fd(STDOUT_FILENO, "standard output", array.dtype(), shape, data.span());
  } else {
    write_npy_atomic(*out, array.dtype(), shape, data.span());
  }
  if (!args.flag("quiet")) {
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    std::cerr << "wrote " << (to_stdout ? std::string("standard output") : *out) << ": " << describe(array.dtype()) << " (" << s << ") "
              << format_bytes(static_cast<double>(data.size())) << " from "
              << (loc.path.empty() ? std::string("/") : loc.path) << " on " << device.to_string() << "\n";
  }
  return 0;
}

}  // namespace zarrgpu::cli
