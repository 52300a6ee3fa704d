#include "util/hash.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "util/error.hpp"

namespace envbisect {

namespace {

EVP_MD_CTX* context(void* opaque) { return static_cast<EVP_MD_CTX*>(opaque); }

std::string to_hex(const unsigned char* digest, unsigned int length) {
  static const char* k_hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += k_hex[digest[i] >> 4];
    out += k_hex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace

Sha256::Sha256() : m_context(EVP_MD_CTX_new()) {
  // EVP_sha256() is the implicitly fetched default-provider digest: no per-call provider lookup.
  if (m_context == nullptr || EVP_DigestInit_ex(context(m_context), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context(m_context));
    throw Error("internal error: OpenSSL could not start a SHA-256 digest", ExitCode::environment);
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context(m_context)); }

void Sha256::update(std::string_view data) {
  if (!data.empty()) {
    EVP_DigestUpdate(context(m_context), data.data(), data.size());
  }
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context(m_context), digest, &length);
  return to_hex(digest, length);
}

std::string file_digest_hex(const std::string& path, const std::string& algorithm) {
  const EVP_MD* md = algorithm == "sha256" ? EVP_sha256()
                     : algorithm == "sha384" ? EVP_sha384()
                     : algorithm == "sha512" ? EVP_sha512()
                                             : nullptr;
  if (md == nullptr) {
    throw Error("no digest '" + algorithm + "' (sha256, sha384 or sha512)", ExitCode::bad_input);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error("cannot read " + path + ": " + std::strerror(errno), ExitCode::environment);
  }
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1) {
    throw Error("internal error: OpenSSL could not start a " + algorithm + " digest", ExitCode::environment);
  }
  std::string buffer(1 << 16, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) {
      EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
  }
  if (in.bad()) {
    throw Error("cannot read " + path, ExitCode::environment);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  return to_hex(digest, length);
}

std::string sha256_hex(std::string_view data) {
  Sha256 digest;
  digest.update(data);
  return digest.hex_digest();
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
           data.size(), digest, &length) == nullptr) {
    throw Error("internal error: OpenSSL could not compute an HMAC", ExitCode::environment);
  }
  return to_hex(digest, length);
}

}  // namespace envbisect
