#pragma once

// Helpers every unit test may use: a temporary folder and reading a file back. Header-only: everything
// is inline in envbisect::test (exec_test_support.hpp and env_test_support.hpp build on it).

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "util/error.hpp"

namespace envbisect::test {

// A fresh temporary folder named envbisect-<name>-XXXXXX, removed with everything in it at scope end.
class TempDir {
public:
  // Create the folder under the system's temp directory. Throw Error when it cannot be created.
  explicit TempDir(const std::string& name = "test") {
    std::string pattern = (std::filesystem::temp_directory_path() / ("envbisect-" + name + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error(pattern + ": cannot create a temporary folder: " + std::strerror(errno), ExitCode::environment);
    }
    path = pattern;
  }
  // Remove the folder and everything in it; errors are ignored.
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::filesystem::path path;
};

// Return the whole content of the file at `path`; "" when it is missing or unreadable.
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace envbisect::test
