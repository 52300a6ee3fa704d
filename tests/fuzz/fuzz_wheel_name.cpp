// Fuzz target: the wheel file-name parser and list_wheel_versions. A parsed name has a normalised
// distribution name and a version that parses from its text; listing never throws.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/state.hpp"
#include "core/wheel_name.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Up to the first newline: a file name; the rest: more paths for list_wheel_versions.
  std::vector<std::string> paths;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = text.find('\n', begin);
    paths.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) {
      break;
    }
    begin = end + 1;
  }
  const auto wheel = envbisect::parse_wheel_name(paths.front());
  if (wheel) {
    const auto version = envbisect::Version::parse(wheel->version_text);
    if (wheel->name.empty() || envbisect::normalize_package_name(wheel->name) != wheel->name || !version ||
        !(*version == wheel->version)) {
      std::abort();
    }
  }
  const std::string wanted = wheel ? wheel->name : paths.front();
  const envbisect::WheelVersions listed = envbisect::list_wheel_versions(wanted, paths);
  for (std::size_t i = 1; i < listed.versions.size(); ++i) {
    if (listed.versions[i] < listed.versions[i - 1]) {
      std::abort();
    }
  }
  if (wheel && listed.versions.empty()) {
    std::abort();  // the first path is a valid wheel of `wanted`, so at least its version is listed
  }
  return 0;
}
