#pragma once

#include <string>
#include <string_view>

namespace envbisect {

// Return the SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view data);

// Incremental SHA-256 for data that arrives in pieces (files).
class Sha256 {
public:
  // Start a new digest.
  Sha256();
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

}  // namespace envbisect
