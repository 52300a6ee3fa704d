#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/runner.hpp"

namespace envbisect {

// What the probe is asked to read besides the interpreter, its packages, caches, GPUs and host.
struct ProbeRequest {
  std::string python = "python3";           // the target interpreter (a path or a name on its PATH)
  std::vector<std::string> prefix;          // --via words prepended to the probe's argv; empty: local
  std::map<std::string, std::string> git_repos;  // NAME -> path read with the git CLI (remote captures)
  std::string checkpoints_dir;              // list its entries with mtimes; empty: none
  bool timeline = false;                    // also list the uv cache and the wheel folders
  std::string uv_cache_dir;                 // empty: UV_CACHE_DIR or ~/.cache/uv when it exists
  std::vector<std::string> wheel_dirs;      // folders whose *.whl names are listed
  bool torch = true;                        // import torch when it is installed to read its versions
};

// Return the argv that runs the probe for `request`: [prefix...] python -c SCRIPT CONFIG_JSON.
std::vector<std::string> probe_argv(const ProbeRequest& request);

// Return the environment a probe is started with: the allow-listed variables of `parent` (PATH, HOME,
// USER, ...) plus its variables a capture records (TORCH*, CUDA*, ...) and the ones that locate the
// caches (UV_CACHE_DIR, XDG_CACHE_HOME), so the probe sees what a job started from this shell sees.
std::map<std::string, std::string> probe_env(const std::map<std::string, std::string>& parent);

// Return the variables of the current process as a map.
std::map<std::string, std::string> current_process_env();

// Run the probe through `runner` with `env`, its output kept in `work_dir`, and return its JSON
// report. Throw Error (environment) naming the argv's program and the end of stderr when it cannot
// start, fails, times out or prints no JSON.
nlohmann::json run_python_probe(Runner& runner, const ProbeRequest& request,
                                const std::map<std::string, std::string>& env, const std::string& work_dir);

}  // namespace envbisect
