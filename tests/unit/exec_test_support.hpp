#pragma once

// Helpers shared by the exec unit tests (test_exec_*.cpp): a shell spec, searching an argv, a stand-in
// ssh (plus test_support.hpp's temporary folder and file reading). Header-only: everything is inline in envbisect::test.

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "exec/runner.hpp"
#include "test_support.hpp"
#include "util/error.hpp"

namespace envbisect::test {

// Return a spec that runs `script` with `sh -c`, with PATH=/usr/bin:/bin as its whole environment.
inline ProcessSpec shell_spec(const std::string& script) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  return spec;
}

// Return whether `argv` holds `word` as one whole item.
inline bool contains(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

// Return the index of the first occurrence of the consecutive items `needle` in `argv`, or npos.
inline std::size_t find_seq(const std::vector<std::string>& argv, const std::vector<std::string>& needle) {
  auto it = std::search(argv.begin(), argv.end(), needle.begin(), needle.end());
  return it == argv.end() ? std::string::npos : static_cast<std::size_t>(it - argv.begin());
}

// Puts a stand-in `ssh` first on PATH for one test: it runs the remote line with a local sh (a loopback
// host sharing nothing but this machine's /), and refuses any line containing `refuse` with exit 255
// as a dropped connection does. PATH is restored at scope end.
class LoopbackSsh {
public:
  LoopbackSsh(const std::filesystem::path& dir, const std::string& refuse) : m_old(std::getenv("PATH")) {
    std::ofstream(dir / "ssh") << "#!/bin/sh\n"
                                  "for last; do :; done\n"
                                  "case \"$last\" in *'" << refuse << "'*) echo 'Connection reset by peer' >&2; exit 255;; esac\n"
                                  "exec sh -c \"$last\"\n";
    std::filesystem::permissions(dir / "ssh", std::filesystem::perms::owner_all);
    ::setenv("PATH", (dir.string() + ":" + m_old).c_str(), 1);
  }
  ~LoopbackSsh() { ::setenv("PATH", m_old.c_str(), 1); }
  LoopbackSsh(const LoopbackSsh&) = delete;
  LoopbackSsh& operator=(const LoopbackSsh&) = delete;

private:
  std::string m_old;
};

}  // namespace envbisect::test
