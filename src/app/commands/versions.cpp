#include "app/commands/versions.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <system_error>

#include "core/wheel_name.hpp"

namespace envbisect {

namespace {

// Return the paths "DIR/FILE" of the entries of `dir` that are not folders, sorted; add a problem
// to `problems` (and return nothing) when the folder is missing or cannot be read.
std::vector<std::string> list_files(const std::string& dir, std::vector<std::string>& problems) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    problems.push_back(dir + ": " + (fs::exists(dir, ec) ? "not a directory" : "no such directory"));
    return {};
  }
  std::vector<std::string> paths;
  const std::string prefix = dir.ends_with('/') ? dir : dir + "/";
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_directory(type_ec)) {
      paths.push_back(prefix + it->path().filename().string());
    }
  }
  if (ec) {
    problems.push_back(dir + ": cannot read wheel directory: " + ec.message());
    return {};
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

ExitCode run_versions(const VersionsOptions& options, std::ostream& out, std::ostream& err) {
  // Validate every input first and report all problems together.
  std::vector<std::string> problems;
  if (options.name.empty()) {
    problems.push_back("versions: the distribution name is empty");
  }
  if (options.wheel_dirs.empty()) {
    problems.push_back("versions: no wheel directory given (--wheels DIR)");
  }
  std::vector<std::string> paths;
  for (const std::string& dir : options.wheel_dirs) {
    std::vector<std::string> files = list_files(dir, problems);
    paths.insert(paths.end(), files.begin(), files.end());
  }
  if (!problems.empty()) {
    std::string message = problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) {
      message += "; " + problems[i];
    }
    throw Error(message, ExitCode::bad_input);
  }

  // At this point every folder was read; what is left is pure: names -> versions.
  const WheelVersions found = list_wheel_versions(options.name, paths);
  for (const InvalidWheel& wheel : found.invalid) {
    err << "envbisect: warning: " << wheel.path << ": " << wheel.reason << "\n";
  }
  if (found.versions.empty()) {
    err << "envbisect: warning: no wheel of '" << options.name << "' in the given wheel directories\n";
  }
  for (const Version& version : found.versions) {
    out << version.to_string() << "\n";
  }
  return ExitCode::ok;
}

}  // namespace envbisect
