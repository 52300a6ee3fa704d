#pragma once

#include <string>
#include <string_view>

namespace envbisect::bench {

// A portable SHA-256 in plain C++ (FIPS 180-4), the baseline OpenSSL's is measured against.
class PortableSha256 {
public:
  // Start a new digest.
  PortableSha256();
  // Add bytes to the digest.
  void update(std::string_view data);
  // Finish and return the digest as 64 lower-case hex digits; the object must not be reused.
  std::string hex_digest();

private:
  void compress(const unsigned char* block);
  unsigned int m_state[8];
  unsigned char m_buffer[64];
  std::size_t m_buffered = 0;
  unsigned long long m_length = 0;
};

}  // namespace envbisect::bench
