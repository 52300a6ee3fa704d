#include "app/commands/locate.hpp"

#include <ostream>

#include "core/state.hpp"
#include "core/version.hpp"
#include "env/requirement.hpp"
#include "env/unzip.hpp"
#include "env/wheel_source.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

ExitCode run_locate(const LocateOptions& options, std::ostream& out, std::ostream& err) {
  // Validate everything before searching.
  std::vector<std::string> problems;
  const std::size_t eq = options.requirement.find("==");
  const std::string name = eq == std::string::npos ? "" : trim(options.requirement.substr(0, eq));
  const std::string version = eq == std::string::npos ? "" : trim(options.requirement.substr(eq + 2));
  if (name.empty() || !Version::parse(version) || version.find('*') != std::string::npos) {
    problems.push_back("'" + options.requirement + "': expected NAME==VERSION with a PEP 440 version (e.g. torch==2.11.0+cu128)");
  } else if (!is_valid_package_name(name)) {
    problems.push_back("'" + options.requirement + "': invalid package name '" + name + "'");
  }
  for (const std::string& dir : options.wheel_dirs) {
    if (!path_exists(dir)) {
      problems.push_back(dir + ": wheel folder not found");
    }
  }
  if (!problems.empty()) {
    throw Error(join(problems, "\n"), ExitCode::bad_input);
  }
  WheelSources sources{options.wheel_dirs, {}};
  for (const std::string& cache : options.uv_caches) {
    if (path_exists(cache + "/archive-v0")) {
      sources.uv_caches.push_back(cache);
    } else {
      err << "envbisect: note: " << cache << ": no uv cache here (no archive-v0)\n";
    }
  }

  // Every source holding exactly this build (local label included), in search order.
  const std::string wanted = Version::parse(version)->to_string();
  std::vector<std::string> others;
  bool found = false;
  std::vector<std::string> broken;  // files of the build that are not readable wheels
  for (const Distribution& dist : list_distributions(sources, name)) {
    const auto v = Version::parse(dist.version);
    if (v && v->to_string() == wanted) {
      if (dist.kind == SourceKind::wheel) {
        try {
          read_wheel_metadata(dist.path);  // the central directory and METADATA: nothing unpacked
        } catch (const Error& e) {
          broken.push_back(e.what());
          continue;
        }
      }
      out << describe(dist) << "\n";
      found = true;
    } else {
      others.push_back(dist.version);
    }
  }
  if (found) {
    return ExitCode::ok;
  }
  std::vector<std::string> searched;
  if (!options.wheel_dirs.empty()) {
    searched.push_back("wheel folders (" + join(options.wheel_dirs, ", ") + ")");
  }
  if (!sources.uv_caches.empty()) {
    searched.push_back("uv caches (" + join(sources.uv_caches, ", ") + ")");
  }
  err << normalize_package_name(name) << "==" << version << " cannot be restored: "
      << (searched.empty() ? "no wheel folder or uv cache to look in (--wheels, --uv-cache)"
                           : "no wheel or uv cache entry of that exact build in " + join(searched, " or "))
      << "\n";
  if (!others.empty()) {
    err << "  builds of " << normalize_package_name(name) << " found there: " << join(others, ", ") << "\n";
  }
  for (const std::string& unreadable : broken) {
    err << "  not a readable wheel: " << unreadable << "\n";
  }
  for (const std::string& unreadable : unreadable_wheel_files(sources, name)) {
    err << "  not read: " << unreadable << "\n";
  }
  return ExitCode::inconclusive;
}

}  // namespace envbisect
