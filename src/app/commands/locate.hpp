#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect locate NAME==VERSION [--wheels DIR]... [--uv-cache DIR]...`.
struct LocateOptions {
  std::string requirement;              // "NAME==VERSION", local label included ("fauxtorch==2.11.0+cu128")
  std::vector<std::string> wheel_dirs;  // wheelhouse folders
  std::vector<std::string> uv_caches;   // uv cache roots (the CLI's default: default_uv_cache_dir())
};

// Print every place the exact build can be restored from, one per line on `out` ("wheel PATH" or
// "uv cache archive DIR (DIST-INFO)"), wheel folders first. When there is none, say so on `err`,
// naming the sources searched and the builds of NAME they do hold, and return inconclusive (1);
// else return ok. A uv cache that does not exist is noted on `err` and searched no further. Throw
// Error (bad_input) when the requirement is not NAME==VERSION with a PEP 440 version, or a wheel
// folder is missing.
ExitCode run_locate(const LocateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace envbisect
