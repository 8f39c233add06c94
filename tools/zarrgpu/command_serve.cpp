// zarrgpu serve: the cache service (docs/ipc.md, "The cache service").
#include <csignal>
#include <iostream>

#include "byte_size.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "ipc/cache_service.hpp"
#include "zarrgpu/device.hpp"

namespace zarrgpu::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"socket", true, "PATH", "the socket (default $XDG_RUNTIME_DIR/zarrgpu/cache.sock); its directory must be this user's, mode 700"},
    {"budget", true, "BYTES", "shared memory the cache may hold, all devices together, e.g. 8GiB (default 1GiB)"},
    {"device", true, "DEV[,DEV]", "cpu: host memory (memfd); cuda:N: GPU memory (default: cuda:0 when a GPU is present); several GPUs: cuda:0,cuda:1 (requests name one; the first is the default)"},
    {"allow-uid", true, "UID[,UID]", "users besides this one that may connect"},
    {"store-root", true, "DIR", "serve stores beneath DIR only (for allowed users)"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu serve [--socket PATH] [--budget BYTES] [--device cpu|cuda:N] [--allow-uid UID]\n"
    "\n"
    "Keeps arrays read from Zarr stores, and named arrays clients create, in shared memory\n"
    "(GPU memory, or host memory without a GPU) within a byte budget, and lends them to\n"
    "clients of this user on the same machine (zarrgpu.ipc.CacheClient, the C++ and Node.js\n"
    "clients) over a Unix socket: the answer is a descriptor and a lease. Runs until\n"
    "SIGINT or SIGTERM. No network listener.\n"
    "\noptions:\n";

ipc::CacheService* g_service = nullptr;

extern "C" void stop_service_on_signal(int) {
  if (g_service) g_service->stop();
}

}  // namespace

int run_serve(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  if (!args.positionals().empty()) throw UsageError("serve takes no positional arguments");
  ipc::ServiceOptions o;
  o.socket_path = args.value_or("socket", "");
  if (auto b = args.value("budget")) {
    auto n = parse_byte_size(*b);
    if (!n) throw UsageError("--budget: not a byte size: " + *b);
    o.budget = *n;
  }
  const std::string devices = args.value_or("device", cuda_available() ? "cuda:0" : "cpu");
  for (std::size_t start = 0; start <= devices.size();) {
    const std::size_t end = std::min(devices.find(',', start), devices.size());
    const Device d = Device::parse(devices.substr(start, end - start));
    if (d.kind == Device::Kind::cuda) require_cuda_device(d);
    if (start == 0) o.device = d;
    else if (d.kind == Device::Kind::cpu || o.device.kind == Device::Kind::cpu) throw UsageError("--device: several devices must all be GPUs");
    else o.more_devices.push_back(d);
    start = end + 1;
  }
  if (auto uids = args.value("allow-uid")) {
    std::size_t start = 0;
    while (start <= uids->size()) {
      const std::size_t end = std::min(uids->find(',', start), uids->size());
      auto n = parse_integer(std::string_view(*uids).substr(start, end - start));
      if (!n || *n < 0) throw UsageError("--allow-uid: not a user id list: " + *uids);
      o.allow_uids.push_back(static_cast<uid_t>(*n));
      start = end + 1;
    }
  }
  o.store_root = args.value_or("store-root", "");
  ipc::CacheService service(o);
  service.bind();
  g_service = &service;
  std::signal(SIGINT, stop_service_on_signal);
  std::signal(SIGTERM, stop_service_on_signal);
  std::signal(SIGPIPE, SIG_IGN);  // a client that dies mid-answer is an error on its connection only
  std::cout << "zarrgpu serve: listening on " << service.socket_path() << " (" << o.device.to_string() << " memory, budget "
            << o.budget << " bytes, instance " << service.instance() << ")" << std::endl;
  service.run();
  g_service = nullptr;
  return 0;
}

}  // namespace zarrgpu::cli
