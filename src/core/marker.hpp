#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace envbisect {

// The interpreter and platform a lock's entries are chosen for: PEP 508 marker variables
// (python_version, python_full_version, sys_platform, platform_machine, platform_system, os_name,
// implementation_name, platform_python_implementation) plus the glibc version wheels are matched against.
struct MarkerEnvironment {
  std::map<std::string, std::string> variables;
  int glibc_major = 2;
  int glibc_minor = 36;  // Debian 12
  // The values `extra` holds: `extra == 'x'` is true for each (uv's conflict markers name chosen
  // extras and groups so: 'extra-7-nanochat-gpu', 'group-11-pydantic-ai-dev'); empty: no extra.
  std::set<std::string> extras;
};

// Return the environment of CPython `python_version` ("3.12" or "3.12.3") on Linux `machine` ("x86_64"),
// with platform_release and platform_version empty. Throw Error when the version is not N.N or N.N.N.
MarkerEnvironment linux_marker_environment(const std::string& python_version, const std::string& machine = "x86_64");

// Return the environment of an interpreter whose versions are known as it reports them
// (`python_version` "3.11", `python_full_version` "3.11.7") on Linux `machine`. platform_release and
// platform_version are left out: a marker naming them cannot be evaluated.
MarkerEnvironment cpython_linux_environment(const std::string& python_version, const std::string& python_full_version,
                                            const std::string& machine = "x86_64");

// Return whether PEP 508 marker `marker` holds in `environment` (an empty marker holds; `extra == 'x'` holds
// only for x in the environment's `extras`, so optional dependencies stay out unless chosen). Throw Error naming what could not be
// parsed when the marker is malformed.
bool evaluate_marker(std::string_view marker, const MarkerEnvironment& environment);

// Return evaluate_marker's answer, or nothing when the marker is malformed or names a variable
// `environment` lacks (a dependency's marker that cannot be evaluated is named, not guessed).
std::optional<bool> marker_holds(std::string_view marker, const MarkerEnvironment& environment);

}  // namespace envbisect
