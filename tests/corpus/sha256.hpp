// SHA-256 of decoded arrays, to compare with the corpus's digests (OpenSSL's
// libcrypto; link OpenSSL::Crypto).
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <span>
#include <string>

namespace zarrgpu::testing {

inline std::string sha256_hex(std::span<const std::byte> data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char hex[] = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += hex[md[i] >> 4];
    s += hex[md[i] & 15];
  }
  return s;
}

}  // namespace zarrgpu::testing
