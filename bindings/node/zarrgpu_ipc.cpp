// zarrgpu_ipc: the Node.js client of zarrgpu's IPC (docs/ipc.md, "Node.js"), a
// Node-API addon over the C++ library: open a descriptor (host memfd; device
// memory on a GPU), read its pointer, shape, strides and data type, copy it to a
// host TypedArray, share buffers of its own, and talk to `zarrgpu serve`.
#include <node_api.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ipc/unix_socket.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"
#include "zarrgpu/ipc_client.hpp"

namespace {

using zarrgpu::DataType;
using zarrgpu::DataTypeKind;
using zarrgpu::Error;
using zarrgpu::ipc::Descriptor;
using zarrgpu::ipc::SharedMemory;

// A JavaScript exception from a C++ one, with zarrgpu's error kind as `code`.
struct JsError {
  std::string message;
  std::string code;
};

#define NAPI(call)                                                       \
  do {                                                                   \
    if ((call) != napi_ok) throw JsError{"Node-API call failed: " #call, "ERR_ZARRGPU_NAPI"}; \
  } while (0)

std::string kind_code(zarrgpu::ErrorKind k) {
  switch (k) {
    case zarrgpu::ErrorKind::invalid_argument: return "invalid_argument";
    case zarrgpu::ErrorKind::not_found: return "not_found";
    case zarrgpu::ErrorKind::invalid_metadata: return "invalid_metadata";
    case zarrgpu::ErrorKind::unsupported: return "unsupported";
    case zarrgpu::ErrorKind::corrupt_data: return "corrupt_data";
    case zarrgpu::ErrorKind::io: return "io";
    case zarrgpu::ErrorKind::device: return "device";
    case zarrgpu::ErrorKind::internal: return "internal";
  }
  return "internal";
}

// Runs `body`, turning C++ errors into JavaScript exceptions.
template <class F>
napi_value guarded(napi_env env, F&& body) {
  try {
    return body();
  } catch (const Error& e) {
    napi_throw_error(env, kind_code(e.kind()).c_str(), e.what());
  } catch (const JsError& e) {
    napi_throw_error(env, e.code.c_str(), e.message.c_str());
  } catch (const std::exception& e) {
    napi_throw_error(env, "internal", e.what());
  }
  return nullptr;
}

struct Call {
  napi_env env;
  napi_value self = nullptr;
  std::vector<napi_value> args;
  Call(napi_env e, napi_callback_info info, std::size_t max) : env(e), args(max) {
    std::size_t n = max;
    NAPI(napi_get_cb_info(env, info, &n, args.data(), &self, nullptr));
    args.resize(n);
  }
  napi_value arg(std::size_t i) const {
    if (i >= args.size()) throw JsError{"missing argument " + std::to_string(i + 1), "invalid_argument"};
    return args[i];
  }
  bool has(std::size_t i) const {
    if (i >= args.size()) return false;
    napi_valuetype t;
    NAPI(napi_typeof(env, args[i], &t));
    return t != napi_undefined && t != napi_null;
  }
  std::string string(std::size_t i) const {
    std::size_t n = 0;
    if (napi_get_value_string_utf8(env, arg(i), nullptr, 0, &n) != napi_ok)
      throw JsError{"argument " + std::to_string(i + 1) + " must be a string", "invalid_argument"};
    std::string s(n, '\0');
    NAPI(napi_get_value_string_utf8(env, arg(i), s.data(), n + 1, &n));
    return s;
  }
  std::int64_t integer(std::size_t i) const {
    std::int64_t v = 0;
    if (napi_get_value_int64(env, arg(i), &v) != napi_ok)
      throw JsError{"argument " + std::to_string(i + 1) + " must be a number", "invalid_argument"};
    return v;
  }
  std::vector<std::uint64_t> shape(std::size_t i) const {
    bool is_array = false;
    NAPI(napi_is_array(env, arg(i), &is_array));
    if (!is_array) throw JsError{"the shape must be an array of integers", "invalid_argument"};
    std::uint32_t n = 0;
    NAPI(napi_get_array_length(env, arg(i), &n));
    std::vector<std::uint64_t> out;
    for (std::uint32_t k = 0; k < n; ++k) {
      napi_value e;
      NAPI(napi_get_element(env, arg(i), k, &e));
      std::int64_t v = -1;
      if (napi_get_value_int64(env, e, &v) != napi_ok || v < 0)
        throw JsError{"the shape must be an array of non-negative integers", "invalid_argument"};
      out.push_back(static_cast<std::uint64_t>(v));
    }
    return out;
  }
};

napi_value js_string(napi_env env, const std::string& s) {
  napi_value v;
  NAPI(napi_create_string_utf8(env, s.data(), s.size(), &v));
  return v;
}
napi_value js_number(napi_env env, double d) {
  napi_value v;
  NAPI(napi_create_double(env, d, &v));
  return v;
}
napi_value js_bool(napi_env env, bool b) {
  napi_value v;
  NAPI(napi_get_boolean(env, b, &v));
  return v;
}
template <class T>
napi_value js_array(napi_env env, const std::vector<T>& xs) {
  napi_value a;
  NAPI(napi_create_array_with_length(env, xs.size(), &a));
  for (std::size_t i = 0; i < xs.size(); ++i) NAPI(napi_set_element(env, a, static_cast<std::uint32_t>(i), js_number(env, double(xs[i]))));
  return a;
}

// One array in shared memory, as JavaScript sees it.
struct Shared {
  SharedMemory memory;
  Descriptor descriptor;
  std::string lease;  // set for arrays lent by the cache service
};

// The TypedArray holding one element per entry (complex: two; float16 and bfloat16: their bits).
napi_typedarray_type typed_array_type(DataType t, std::size_t* per_element) {
  *per_element = 1;
  switch (t.kind) {
    case DataTypeKind::bool_: case DataTypeKind::uint8: return napi_uint8_array;
    case DataTypeKind::int8: return napi_int8_array;
    case DataTypeKind::int16: return napi_int16_array;
    case DataTypeKind::uint16: case DataTypeKind::float16: case DataTypeKind::bfloat16: return napi_uint16_array;
    case DataTypeKind::int32: return napi_int32_array;
    case DataTypeKind::uint32: return napi_uint32_array;
    case DataTypeKind::int64: return napi_bigint64_array;
    case DataTypeKind::uint64: return napi_biguint64_array;
    case DataTypeKind::float32: return napi_float32_array;
    case DataTypeKind::float64: return napi_float64_array;
    case DataTypeKind::complex64: *per_element = 2; return napi_float32_array;
    case DataTypeKind::complex128: *per_element = 2; return napi_float64_array;
    default: throw JsError{"no TypedArray for " + zarrgpu::describe(t), "unsupported"};
  }
}

Shared& unwrap(napi_env env, napi_value self) {
  void* p = nullptr;
  NAPI(napi_unwrap(env, self, &p));
  return *static_cast<Shared*>(p);
}

// A C-order host copy of the view, gathered through its strides.
napi_value to_typed_array(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 0);
    Shared& s = unwrap(env, c.self);
    const Descriptor& d = s.descriptor;
    const std::size_t item = zarrgpu::size_of(d.data_type);
    std::uint64_t count = 1;
    for (auto e : d.shape) count *= e;
    std::size_t per = 1;
    const napi_typedarray_type type = typed_array_type(d.data_type, &per);
    void* out = nullptr;
    napi_value buffer, array;
    NAPI(napi_create_arraybuffer(env, count * item, &out, &buffer));
    NAPI(napi_create_typedarray(env, type, count * per, buffer, 0, &array));
    if (count == 0) return array;
    // The bytes the view spans, then the elements picked from them in C order.
    std::uint64_t below = 0;
    for (std::size_t i = 0; i < d.shape.size(); ++i)
      if (d.strides[i] < 0) below += (d.shape[i] - 1) * std::uint64_t(-d.strides[i]);
    const std::uint64_t first = d.byte_offset - below;
    std::vector<std::byte> span(d.span_bytes());
    s.memory.copy_out(first, span.data(), span.size());
    std::vector<std::uint64_t> index(d.shape.size(), 0);
    auto* dst = static_cast<std::byte*>(out);
    for (std::uint64_t k = 0; k < count; ++k) {
      std::int64_t at = static_cast<std::int64_t>(below);
      for (std::size_t i = 0; i < index.size(); ++i) at += std::int64_t(index[i]) * d.strides[i];
      std::memcpy(dst + k * item, span.data() + at, item);
      for (std::size_t i = index.size(); i-- > 0;) {
        if (++index[i] < d.shape[i]) break;
        index[i] = 0;
      }
    }
    return array;
  });
}

// Copies a TypedArray (C order, the view's element count) into C-contiguous shared memory.
napi_value set_values(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 1);
    Shared& s = unwrap(env, c.self);
    bool is_typed = false;
    NAPI(napi_is_typedarray(env, c.arg(0), &is_typed));
    if (!is_typed) throw JsError{"set() takes a TypedArray", "invalid_argument"};
    napi_typedarray_type type;
    std::size_t length = 0, offset = 0;
    void* data = nullptr;
    napi_value ab;
    NAPI(napi_get_typedarray_info(env, c.arg(0), &type, &length, &data, &ab, &offset));
    const Descriptor& d = s.descriptor;
    if (d.strides != zarrgpu::ipc::contiguous_strides(d.shape, d.data_type))
      throw JsError{"set(): the view is not C-contiguous", "invalid_argument"};
    std::size_t per = 1;
    if (type != typed_array_type(d.data_type, &per)) throw JsError{"set(): the TypedArray's type does not match " + zarrgpu::describe(d.data_type), "invalid_argument"};
    std::uint64_t count = 1;
    for (auto e : d.shape) count *= e;
    if (length != count * per) throw JsError{"set(): " + std::to_string(length) + " values for " + std::to_string(count * per), "invalid_argument"};
    s.memory.copy_in(d.byte_offset, data, count * zarrgpu::size_of(d.data_type));
    return static_cast<napi_value>(nullptr);
  });
}

void finalize_shared(napi_env, void* data, void*) { delete static_cast<Shared*>(data); }

// The JavaScript object of an array: properties and methods, owning `s`.
napi_value make_shared_object(napi_env env, std::unique_ptr<Shared> s) {
  napi_value o;
  NAPI(napi_create_object(env, &o));
  const Descriptor& d = s->descriptor;
  const auto pointer = reinterpret_cast<std::uintptr_t>(s->memory.data()) + (s->memory.data() ? d.byte_offset : 0);
  napi_value ptr;
  NAPI(napi_create_bigint_uint64(env, pointer, &ptr));
  std::vector<std::int64_t> strides(d.strides.begin(), d.strides.end());
  const napi_property_descriptor props[] = {
      {"descriptor", nullptr, nullptr, nullptr, nullptr, js_string(env, zarrgpu::ipc::to_json(d)), napi_enumerable, nullptr},
      {"pointer", nullptr, nullptr, nullptr, nullptr, ptr, napi_enumerable, nullptr},
      {"shape", nullptr, nullptr, nullptr, nullptr, js_array(env, d.shape), napi_enumerable, nullptr},
      {"strides", nullptr, nullptr, nullptr, nullptr, js_array(env, strides), napi_enumerable, nullptr},
      {"byteOffset", nullptr, nullptr, nullptr, nullptr, js_number(env, double(d.byte_offset)), napi_enumerable, nullptr},
      {"dtype", nullptr, nullptr, nullptr, nullptr, js_string(env, std::string(zarrgpu::v3_name(d.data_type))), napi_enumerable, nullptr},
      {"typestr", nullptr, nullptr, nullptr, nullptr, js_string(env, zarrgpu::numpy_str(d.data_type)), napi_enumerable, nullptr},
      {"device", nullptr, nullptr, nullptr, nullptr, js_string(env, d.device.to_string()), napi_enumerable, nullptr},
      {"readOnly", nullptr, nullptr, nullptr, nullptr, js_bool(env, d.read_only || !s->memory.writable()), napi_enumerable, nullptr},
      {"fd", nullptr, nullptr, nullptr, nullptr, js_number(env, s->memory.fd()), napi_enumerable, nullptr},
      {"lease", nullptr, nullptr, nullptr, nullptr, js_string(env, s->lease), napi_enumerable, nullptr},
      {"toTypedArray", nullptr, to_typed_array, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"set", nullptr, set_values, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  NAPI(napi_define_properties(env, o, sizeof props / sizeof props[0], props));
  NAPI(napi_wrap(env, o, s.get(), finalize_shared, nullptr, nullptr));
  s.release();
  return o;
}

// open(descriptor, fd?): the array a descriptor names (fd: the memfd or VMM fd received with it).
napi_value open_descriptor(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 2);
    auto s = std::make_unique<Shared>();
    s->descriptor = zarrgpu::ipc::parse_descriptor(c.string(0));
    s->memory = SharedMemory::open(s->descriptor, c.has(1) ? static_cast<int>(c.integer(1)) : -1);
    return make_shared_object(env, std::move(s));
  });
}

DataType data_type_named(const std::string& name) {
  auto t = zarrgpu::from_v3_name(name);
  if (!t || !zarrgpu::is_numeric(*t)) throw JsError{"cannot share data type \"" + name + "\" (numeric types only)", "invalid_argument"};
  return *t;
}

// empty(shape, dtype, device?): a zero-filled shareable array of this process's own
// (host memfd; "cuda:N": a VMM allocation with a POSIX fd).
napi_value empty(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 3);
    const auto shape = c.shape(0);
    const DataType t = data_type_named(c.has(1) ? c.string(1) : "float32");
    const zarrgpu::Device device = zarrgpu::Device::parse(c.has(2) ? c.string(2) : "cpu");
    std::uint64_t bytes = zarrgpu::size_of(t);
    for (auto e : shape)
      if (__builtin_mul_overflow(bytes, e, &bytes)) throw JsError{"the array's size overflows", "invalid_argument"};
    auto s = std::make_unique<Shared>();
    s->memory = device.kind == zarrgpu::Device::Kind::cpu ? SharedMemory::create_host(bytes, "zarrgpu-node")
                                                          : SharedMemory::create_device(bytes, device, /*vmm=*/true);
    s->descriptor = s->memory.describe(t, shape);
    return make_shared_object(env, std::move(s));
  });
}

// sendDescriptor(socketFd, array): sends the array's descriptor and its fd over a
// connected Unix socket (a frame as the cache service's, SCM_RIGHTS).
napi_value send_descriptor(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 2);
    const int socket = static_cast<int>(c.integer(0));
    Shared& s = unwrap(env, c.arg(1));
    std::vector<int> fds;
    if (s.memory.fd() >= 0) fds.push_back(s.memory.fd());
    zarrgpu::ipc::send_frame(socket, zarrgpu::ipc::to_json(s.descriptor), fds);
    return static_cast<napi_value>(nullptr);
  });
}

// ---- the cache service --------------------------------------------------
using zarrgpu::ipc::CacheClient;

CacheClient& client_of(napi_env env, napi_value self) {
  void* p = nullptr;
  NAPI(napi_unwrap(env, self, &p));
  if (!p) throw JsError{"the client is closed", "invalid_argument"};
  return *static_cast<CacheClient*>(p);
}

napi_value lease_object(napi_env env, zarrgpu::ipc::CacheLease l) {
  auto s = std::make_unique<Shared>();
  s->descriptor = l.descriptor;
  s->memory = l.memory;
  s->lease = l.id;
  napi_value o = make_shared_object(env, std::move(s));
  NAPI(napi_set_named_property(env, o, "hit", js_bool(env, l.hit)));
  return o;
}

napi_value client_read(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 3);
    return lease_object(env, client_of(env, c.self).read(c.string(0), c.has(1) ? c.string(1) : "", c.has(2) ? c.string(2) : ""));
  });
}
napi_value client_create(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 3);
    return lease_object(env, client_of(env, c.self).create(c.string(0), data_type_named(c.string(2)), c.shape(1)));
  });
}
napi_value client_open(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 1);
    return lease_object(env, client_of(env, c.self).open(c.string(0)));
  });
}
napi_value client_publish(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 1);
    client_of(env, c.self).publish(c.string(0));
    return static_cast<napi_value>(nullptr);
  });
}
napi_value client_release(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 1);
    zarrgpu::ipc::CacheLease l;
    l.id = unwrap(env, c.arg(0)).lease;
    client_of(env, c.self).release(l);
    return static_cast<napi_value>(nullptr);
  });
}
napi_value client_stats(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 0);
    return js_string(env, client_of(env, c.self).stats_json());
  });
}
napi_value client_close(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 0);
    void* p = nullptr;
    if (napi_remove_wrap(env, c.self, &p) == napi_ok) delete static_cast<CacheClient*>(p);
    NAPI(napi_wrap(env, c.self, nullptr, nullptr, nullptr, nullptr));
    return static_cast<napi_value>(nullptr);
  });
}

void finalize_client(napi_env, void* data, void*) { delete static_cast<CacheClient*>(data); }

// connect(socketPath?): a client of `zarrgpu serve`.
napi_value connect(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    Call c(env, info, 1);
    auto client = std::make_unique<CacheClient>(c.has(0) ? c.string(0) : "");
    napi_value o;
    NAPI(napi_create_object(env, &o));
    const napi_property_descriptor props[] = {
        {"instance", nullptr, nullptr, nullptr, nullptr, js_string(env, client->instance()), napi_enumerable, nullptr},
        {"memory", nullptr, nullptr, nullptr, nullptr, js_string(env, client->memory()), napi_enumerable, nullptr},
        {"read", nullptr, client_read, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"create", nullptr, client_create, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"open", nullptr, client_open, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"publish", nullptr, client_publish, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"release", nullptr, client_release, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"stats", nullptr, client_stats, nullptr, nullptr, nullptr, napi_default, nullptr},
        {"close", nullptr, client_close, nullptr, nullptr, nullptr, napi_default, nullptr},
    };
    NAPI(napi_define_properties(env, o, sizeof props / sizeof props[0], props));
    NAPI(napi_wrap(env, o, client.get(), finalize_client, nullptr, nullptr));
    client.release();
    return o;
  });
}

napi_value init(napi_env env, napi_value exports) {
  const napi_property_descriptor fns[] = {
      {"open", nullptr, open_descriptor, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"empty", nullptr, empty, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sendDescriptor", nullptr, send_descriptor, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"connect", nullptr, connect, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof fns / sizeof fns[0], fns);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
