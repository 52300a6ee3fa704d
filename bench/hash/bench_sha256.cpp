// Side by side in one process: SHA-256 of one file by the portable C++ implementation envbisect used
// to carry and by OpenSSL's libcrypto (what envbisect uses now, util/hash), same buffer size, same
// file (read once before timing, so the page cache holds it for both). Prints MB/s for each and the
// ratio, and fails when the two digests differ.
// Usage: bench_sha256 FILE [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "hash/portable_sha256.hpp"
#include "util/hash.hpp"

namespace {

template <class Digest>
std::pair<std::string, double> hash_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buffer(1 << 20);
  Digest digest;
  auto start = std::chrono::steady_clock::now();
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    digest.update(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
  std::string hex = digest.hex_digest();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {hex, seconds};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_sha256 FILE [rounds]\n";
    return 2;
  }
  const std::string path = argv[1];
  const int rounds = argc > 2 ? std::stoi(argv[2]) : 3;
  std::ifstream probe(path, std::ios::binary | std::ios::ate);
  const double megabytes = static_cast<double>(probe.tellg()) / 1e6;
  hash_file<envbisect::Sha256>(path);  // warm the page cache
  double best_portable = 1e300;
  double best_openssl = 1e300;
  for (int round = 0; round < rounds; ++round) {
    // Alternate the order each round so neither always runs first on a cooling or heating machine.
    std::pair<std::string, double> portable;
    std::pair<std::string, double> openssl;
    if (round % 2 == 0) {
      portable = hash_file<envbisect::bench::PortableSha256>(path);
      openssl = hash_file<envbisect::Sha256>(path);
    } else {
      openssl = hash_file<envbisect::Sha256>(path);
      portable = hash_file<envbisect::bench::PortableSha256>(path);
    }
    const auto& [portable_hex, portable_s] = portable;
    const auto& [openssl_hex, openssl_s] = openssl;
    if (portable_hex != openssl_hex) {
      std::cerr << "digests differ: portable " << portable_hex << " openssl " << openssl_hex << "\n";
      return 1;
    }
    best_portable = std::min(best_portable, portable_s);
    best_openssl = std::min(best_openssl, openssl_s);
    std::printf("round %d: %.0f MB, portable %.3f s, openssl %.3f s\n", round + 1, megabytes, portable_s, openssl_s);
  }
  std::printf("sha256_mb_s_portable: %.0f\n", megabytes / best_portable);
  std::printf("sha256_mb_s_openssl: %.0f\n", megabytes / best_openssl);
  std::printf("sha256_mb_s: %.0f\n", megabytes / best_openssl);
  std::printf("sha256_openssl_vs_portable: %.2f\n", best_portable / best_openssl);
  return 0;
}
