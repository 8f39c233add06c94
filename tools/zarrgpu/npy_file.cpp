#include "npy_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <unistd.h>

#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

std::string npy_descr(DataType t) {
  if (t == DataType::bfloat16) return "|V2";
  return numpy_str(t, Endian::little);
}

std::string npy_header(DataType t, std::span<const std::uint64_t> shape) {
  std::string dict = "{'descr': '" + npy_descr(t) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dict += ",";
  dict += "), }";
  // numpy/lib/format.py _write_array_header: room for the first axis to grow
  // to 21 digits, then spaces and '\n' so that magic (6) + version (2) +
  // length (2) + header is a multiple of 64 (a full 64 when already aligned).
  if (!shape.empty()) {
    std::size_t digits = std::to_string(shape[0]).size();
    if (digits < 21) dict.append(21 - digits, ' ');
  }
  const std::size_t padlen = 64 - ((10 + dict.size() + 1) % 64);
  dict.append(padlen, ' ');
  dict += '\n';
  const std::size_t hlen = dict.size();
  if (hlen > 0xFFFF) throw Error(ErrorKind::invalid_argument, "too many dimensions for a .npy 1.0 header");
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(hlen & 0xFF);
  h += static_cast<char>((hlen >> 8) & 0xFF);
  h += dict;
  return h;
}

namespace {
void write_all(int fd, const void* p, std::size_t n, const std::string& path) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::io, "cannot write '" + path + "': " + std::strerror(errno));
    }
    c += w;
    n -= static_cast<std::size_t>(w);
  }
}
}  // namespace

void write_npy_fd(int fd, const std::string& what, DataType t, std::span<const std::uint64_t> shape,
                  std::span<const std::byte> data) {
  const std::string header = npy_header(t, shape);
  write_all(fd, header.data(), header.size(), what);
  write_all(fd, data.data(), data.size(), what);
}

void write_npy_atomic(const std::string& path, DataType t, std::span<const std::uint64_t> shape,
                      std::span<const std::byte> data) {
  const std::string header = npy_header(t, shape);
  std::random_device rd;
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorKind::io, "cannot write '" + path + "': " + std::strerror(errno));
  try {
    write_all(fd, header.data(), header.size(), tmp);
    write_all(fd, data.data(), data.size(), tmp);
    if (::close(fd) != 0) {
      fd = -1;
      throw Error(ErrorKind::io, "cannot close '" + tmp + "': " + std::strerror(errno));
    }
    fd = -1;
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw Error(ErrorKind::io, "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace zarrgpu::cli
