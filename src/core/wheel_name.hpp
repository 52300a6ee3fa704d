#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.hpp"

namespace envbisect {

// The fields of a wheel file name (PEP 427): {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl
struct WheelName {
  std::string name;            // PEP 503 normalised distribution name ("Faux_Torch" -> "faux-torch")
  Version version;             // may carry a local label ("2.11.0+cu128")
  std::string version_text;    // the version as written in the file name
  std::string build;           // build tag ("1", "2abc"), "" when absent
  std::string python_tag;      // e.g. "cp311", "py2.py3"
  std::string abi_tag;         // e.g. "cp311", "none"
  std::string platform_tag;    // e.g. "linux_x86_64", "any"
};

// Parse a wheel file name (no directory part). Return nullopt when it does not end in ".whl", has
// other than 5 or 6 dash-separated fields, an invalid distribution name, build tag (must start with a
// digit) or tag, or a version that is not PEP 440.
std::optional<WheelName> parse_wheel_name(std::string_view file_name);

// A wheel file that looks like a wheel but cannot be used, and why.
struct InvalidWheel {
  std::string path;    // as given to list_wheel_versions
  std::string reason;  // "invalid version '1.0.x'" or "invalid wheel file name"
};

// The versions of one distribution found among wheel files.
struct WheelVersions {
  std::vector<Version> versions;       // distinct by normalised text, in PEP 440 order
  std::vector<InvalidWheel> invalid;   // in the order given
};

// Return the versions of distribution `name` (compared PEP 503 normalised) among `paths` (file
// names, or paths whose last "/"-separated part is the file name). Files not ending in ".whl" are
// ignored; a ".whl" whose fields are malformed is reported as invalid whatever its name, and one of
// `name` whose version is not PEP 440 is reported with that version text (never guessed).
WheelVersions list_wheel_versions(std::string_view name, const std::vector<std::string>& paths);

}  // namespace envbisect
