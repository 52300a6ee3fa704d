// Fuzz target: the PEP 440 parser. A parsed version's normal form parses to an equal version with the
// same normal form, and the ordering is reflexive and consistent with the public part.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto version = envbisect::Version::parse(text);
  if (!version) {
    return 0;
  }
  const std::string normal = version->to_string();
  const auto again = envbisect::Version::parse(normal);
  if (!again || !(*again == *version) || again->to_string() != normal) {
    std::abort();
  }
  if (!version->matches_exact(*version) || (*version <=> *again) != 0) {
    std::abort();
  }
  const auto public_part = envbisect::Version::parse(version->public_version());
  if (!public_part || public_part->has_local() || !version->matches_exact(*public_part) ||
      (version->has_local() && !(*public_part < *version))) {
    std::abort();
  }
  return 0;
}
