#include "util/hash.hpp"

#include <openssl/evp.h>

#include "util/error.hpp"

namespace envbisect {

namespace {

EVP_MD_CTX* context(void* opaque) { return static_cast<EVP_MD_CTX*>(opaque); }

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
  static const char* k_hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += k_hex[digest[i] >> 4];
    out += k_hex[digest[i] & 0xf];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 digest;
  digest.update(data);
  return digest.hex_digest();
}

}  // namespace envbisect
