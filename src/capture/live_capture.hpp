#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/snapshot.hpp"
#include "exec/runner.hpp"

namespace envbisect {

// Where and what to capture, as given on the command line.
struct LiveCaptureRequest {
  std::string python;                   // --python; empty with an empty venv: python3
  std::string venv;                     // --venv DIR: DIR/bin/python
  std::vector<std::string> repos;       // NAME=PATH
  std::string via;                      // command prefix text, split like a shell would
  std::string state_path;               // the state file to be written (names the state, anchors repo paths)
  bool timeline = false;                // also list checkpoints, the uv cache and wheel folders
  std::string checkpoints_dir;
  std::string uv_cache_dir;
  std::vector<std::string> wheel_dirs;
};

// A capture and the raw probe report it was made from.
struct LiveCapture {
  Capture capture;
  nlohmann::json probe;
  std::map<std::string, std::string> repo_paths;  // NAME -> path as read (absolute for local captures)
  bool local = true;                              // false when read through --via
};

// Check every option of `request` and throw one Error (bad_input) listing all problems: both --python
// and --venv, a venv without bin/python, --repo not NAME=PATH or named twice, a --via that does not
// split, local folders that do not exist. Nothing runs before this passes.
void check_live_capture_request(const LiveCaptureRequest& request);

// Run the probe (through the --via prefix when given), read the repositories (libgit2 locally, the
// target's git CLI through --via) and return the capture. Throw Error (environment) when the probe fails.
LiveCapture capture_live(Runner& runner, const LiveCaptureRequest& request);

}  // namespace envbisect
