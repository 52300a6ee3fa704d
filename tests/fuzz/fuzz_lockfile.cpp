// Fuzz target: the lock-file readers (uv.lock, pylock.toml, requirements / pip freeze), whose input is
// whatever a repository held at some revision. The first byte picks the format, the rest is the file.
// Any bytes give packages or an Error naming the file; the packages are sorted by name, each with a
// name and a version, and a sha256 that is empty or 64 hex digits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "capture/lockfile.hpp"
#include "core/marker.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  static const envbisect::MarkerEnvironment target = envbisect::linux_marker_environment("3.12");
  const envbisect::LockFormat formats[] = {envbisect::LockFormat::uv_lock, envbisect::LockFormat::pylock,
                                           envbisect::LockFormat::requirements};
  const envbisect::LockFormat format = formats[data[0] % 3];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const envbisect::LockRead read = envbisect::read_lock(format, text, "fuzz.lock", target);
    for (std::size_t i = 0; i < read.packages.size(); ++i) {
      const envbisect::LockedPackage& package = read.packages[i];
      if (package.name.empty() || package.version.empty()) {
        std::abort();
      }
      if (i > 0 && read.packages[i - 1].name > package.name) {
        std::abort();  // the readers promise packages sorted by name
      }
      if (!package.sha256.empty() && package.sha256.size() != 64) {
        std::abort();
      }
    }
  } catch (const envbisect::Error&) {
  }
  return 0;
}
