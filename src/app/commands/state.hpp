#pragma once

#include <iosfwd>
#include <string>

#include "capture/lockfile.hpp"
#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect state LOCKFILE [--at REV] [--python X.Y] [--machine M] [--name N] [-o FILE]`.
struct StateFromOptions {
  std::string lock_path;         // uv.lock, pylock.toml, requirements.txt or pip freeze output
  std::string at;                // a git revision to read the lock as of ("" = the file on disk)
  std::string python;            // the candidate interpreter's version; "" = the lock's requires-python, else 3.11
  std::string machine = "x86_64";
  std::string name;              // the state's name (default: the lock's file name and revision)
  std::string out_path;          // "" = stdout
  UvSelection uv;                // uv.lock: roots, groups and extras, as uv's flags choose them
  bool quiet = false;            // -q: print nothing on `err` but errors
};

// Write a state (format 1) holding the exact builds the lock names for the target interpreter, each
// with the wheel and sha256 the lock gives; print on `err` what was chosen and left out, and with
// --at which commit the revision resolved to (nothing with `quiet`). Throw Error (exit 2) naming the file, revision and
// place for any problem, writing nothing.
ExitCode run_state_from(const StateFromOptions& options, std::ostream& out, std::ostream& err);

}  // namespace envbisect
