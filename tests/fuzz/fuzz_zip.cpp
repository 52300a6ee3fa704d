// Fuzz target: the zip reader that unpacks every wheel (src/env/unzip.cpp). Any bytes give a list of
// members or Error(bad_input), never a crash, a read outside the input or an allocation it cannot
// make; a member that unpacks gives exactly its declared size, and never more than the limits allow.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <string>

#include "env/unzip.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  envbisect::ZipLimits limits;
  limits.max_total_bytes = std::uint64_t{16} << 20;  // keeps each input fast; the checks are the same
  std::vector<envbisect::ZipMember> members;
  try {
    members = envbisect::read_zip_directory(data, size, "fuzz.whl", limits);
  } catch (const envbisect::Error& e) {
    if (e.code() != envbisect::ExitCode::bad_input) {
      std::abort();
    }
    return 0;
  }
  std::uint64_t total = 0;
  for (const envbisect::ZipMember& member : members) {
    // Every name is relative with no "..", "." or empty part ("..v/x.py" is a fine name).
    const std::string name = member.name.back() == '/' ? member.name.substr(0, member.name.size() - 1) : member.name;
    if (name.empty() || name.front() == '/') {
      std::abort();
    }
    for (std::size_t start = 0; start <= name.size();) {
      const std::size_t end = std::min(name.find('/', start), name.size());
      const std::string part = name.substr(start, end - start);
      if (part.empty() || part == "." || part == "..") {
        std::abort();
      }
      start = end + 1;
    }
    if (member.name.back() == '/') {
      continue;
    }
    std::uint64_t produced = 0;
    try {
      envbisect::unpack_member(data, size, member, "fuzz.whl",
                               [&](const unsigned char*, std::size_t n) { produced += n; });
    } catch (const envbisect::Error& e) {
      if (e.code() != envbisect::ExitCode::bad_input || produced > member.uncompressed) {
        std::abort();
      }
      continue;
    }
    if (produced != member.uncompressed) {
      std::abort();
    }
    total += produced;
  }
  if (total > limits.max_total_bytes) {
    std::abort();
  }
  return 0;
}
