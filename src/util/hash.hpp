#pragma once

#include <string>
#include <string_view>

namespace envbisect {

// Return the SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view data);

// Return the digest of the file at `path` by `algorithm` ("sha256", "sha384" or "sha512") as
// lower-case hex. Throw Error (environment) when the file cannot be read, Error (bad_input) for
// another algorithm.
std::string file_digest_hex(const std::string& path, const std::string& algorithm);

// Return HMAC-SHA256 of `data` under `key` as 64 lower-case hex digits.
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

// Incremental SHA-256 for data that arrives in pieces (files), computed by OpenSSL's libcrypto
// (5-8x the throughput of a portable C++ loop on these machines: bench/hash/run.sh).
class Sha256 {
public:
  // Start a new digest. Throw Error when libcrypto cannot allocate a digest context.
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  // Add bytes to the digest.
  void update(std::string_view data);
  // Finish and return the digest as 64 lower-case hex digits; the object must not be reused.
  std::string hex_digest();

private:
  void* m_context;  // EVP_MD_CTX*, kept opaque so that callers do not include OpenSSL's headers
};

}  // namespace envbisect
