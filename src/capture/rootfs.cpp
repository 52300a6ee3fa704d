#include "capture/rootfs.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

std::vector<std::string> dpkg_list_argv(const std::string& rootfs) {
  return {"dpkg-query", "--admindir", rootfs + "/var/lib/dpkg", "-W", "-f", "${Package}\\t${Version}\\t${db:Status-Abbrev}\\n"};
}

std::map<std::string, std::string> parse_dpkg_list(const std::string& text) {
  std::map<std::string, std::string> packages;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find('\t');
    const std::size_t second = first == std::string::npos ? std::string::npos : line.find('\t', first + 1);
    if (second == std::string::npos) {
      continue;
    }
    const std::string status = line.substr(second + 1);
    if (status.rfind("ii", 0) == 0 && first > 0 && second > first + 1) {
      packages[line.substr(0, first)] = line.substr(first + 1, second - first - 1);
    }
  }
  return packages;
}

std::map<std::string, std::string> read_rootfs_packages(Runner& runner, const std::string& rootfs) {
  if (!path_exists(rootfs + "/var/lib/dpkg/status")) {
    throw Error("--rootfs " + rootfs + ": no Debian package database (var/lib/dpkg/status)", ExitCode::bad_input);
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "envbisect-dpkg.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw Error(pattern + ": cannot create a scratch folder: " + std::strerror(errno), ExitCode::environment);
  }
  const std::string scratch = pattern;
  ProcessSpec spec;
  spec.argv = dpkg_list_argv(rootfs);
  spec.env = allowed_parent_env();
  spec.stdout_path = scratch + "/out.txt";
  spec.stderr_path = scratch + "/err.txt";
  spec.timeout = std::chrono::seconds(60);
  const ProcessResult result = runner.run(spec);
  const std::string listing = path_exists(spec.stdout_path) ? read_file(spec.stdout_path) : "";
  const std::string errors = path_exists(spec.stderr_path) ? read_file(spec.stderr_path) : "";
  remove_tree(scratch);
  if (!result.spawned || result.exit_code != 0) {
    throw Error("--rootfs " + rootfs + ": dpkg-query failed: " +
                    (result.spawned ? trim(errors) : result.spawn_error),
                ExitCode::environment);
  }
  return parse_dpkg_list(listing);
}

}  // namespace envbisect
