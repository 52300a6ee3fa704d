#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect capture [--python PATH | --venv DIR] [--repo NAME=PATH ...] [--via 'PREFIX ...'] -o FILE`.
struct CaptureOptions {
  std::string python;              // --python: the interpreter to read; empty: python3 on PATH
  std::string venv;                // --venv: a virtual environment folder (its bin/python)
  std::vector<std::string> repos;  // --repo NAME=PATH, repeatable
  std::string via;                 // --via: a command prefix the probes run through ("ssh root@h pct exec 200 --")
  std::string out_path;            // -o: the state file; the facts go to its .facts.json sibling
  std::string rootfs;              // --rootfs: a root filesystem on this machine, recorded as the state's
                                   // container base with its Debian packages
};

// Read the live environment into a state file that `diff` and `run` load, plus a facts file
// (docs/CAPTURE.md); print where they went and any warning on `out`. Throw Error: bad_input for bad
// options (every problem listed, nothing written), environment when the probe cannot run.
ExitCode run_capture(const CaptureOptions& options, std::ostream& out);

// Return the facts file written next to state file `state_path` ("good.json" -> "good.facts.json").
std::string facts_path_for(const std::string& state_path);

}  // namespace envbisect
