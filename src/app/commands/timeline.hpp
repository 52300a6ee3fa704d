#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect timeline [--python PATH | --venv DIR] [--via 'PREFIX'] [--checkpoints DIR]
// [--uv-cache DIR] [--wheels DIR ...] [--repo NAME=PATH ...] [--as-of TIME -o FILE] [--json]`.
struct TimelineOptions {
  std::string python;                   // --python: the interpreter to read; empty: python3 on PATH
  std::string venv;                     // --venv: a virtual environment folder
  std::string via;                      // --via: a command prefix the probe runs through
  std::vector<std::string> repos;       // --repo NAME=PATH: repositories of the reconstructed state
  std::string checkpoints_dir;          // --checkpoints: folder whose entries are checkpoint saves
  std::string uv_cache_dir;             // --uv-cache: uv's cache (default UV_CACHE_DIR or ~/.cache/uv)
  std::vector<std::string> wheel_dirs;  // --wheels: wheelhouses, repeatable
  std::string as_of;                    // --as-of: @EPOCH, a date-time or a checkpoint name
  std::string out_path;                 // -o: where the reconstructed state goes (needs --as-of)
  bool json = false;                    // --json: print the timeline as JSON
};

// Print what happened on the machine in time order (installs, cache entries, checkpoint saves; installs
// after the newest checkpoint flagged) and the other builds of each package restorable offline; with
// --as-of and -o also write the state proposed for that time, each guessed field's source in its
// facts file. Throw Error: bad_input for bad options, environment when the probe cannot run.
ExitCode run_timeline(const TimelineOptions& options, std::ostream& out);

}  // namespace envbisect
