#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect versions NAME --wheels DIR...`.
struct VersionsOptions {
  std::string name;                     // distribution name, compared PEP 503 normalised
  std::vector<std::string> wheel_dirs;  // folders of wheel files (only the file names are read)
};

// Print the distinct versions of the distribution found in the wheel folders, in PEP 440 order, one
// per line on `out`; warn on `err` about wheel files with an invalid name or version. Return ok.
// Throw Error (bad_input) naming every folder that is missing or unreadable, before printing anything.
ExitCode run_versions(const VersionsOptions& options, std::ostream& out, std::ostream& err);

}  // namespace envbisect
