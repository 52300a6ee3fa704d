#pragma once

#include <map>
#include <string>
#include <vector>

#include "env/wheel_source.hpp"

namespace envbisect {

class Runner;

// What a candidate's Python environment must contain.
struct VenvRequest {
  std::string python;                            // interpreter used to make the venv ("python3" if empty)
  std::string python_version;                    // required prefix of its version ("3.11"); empty: any
  std::map<std::string, std::string> packages;   // normalised name -> exact version incl. local label
  std::map<std::string, WheelPin> pins;          // normalised name -> the wheel file its build must be
  std::vector<std::string> wheel_dirs;           // local wheel sources (--find-links)
  std::string index_url;                         // a package index for users with a network; "" = offline
  std::string env_dir;                           // venv to create; must not exist yet
  std::string log_dir;                           // build logs go here (created)
};

// A built environment, or why it could not be built (then the candidate is skipped, not an error).
struct VenvResult {
  bool ok = false;
  std::string reason;                                // why not ok: the resolver's or installer's words
  std::string python_path;                           // ENV/bin/python
  std::string builder;                               // "uv" or "pip"
  std::map<std::string, std::string> installed;      // what importlib.metadata reports inside the env
  std::vector<std::string> log_paths;
  // What a person should know about the build even when it succeeded: a file two distributions ship,
  // the later one's copy kept ("mmm 1.0 overwrites .../aaa/__init__.py"), as pip does silently.
  std::vector<std::string> warnings;
};

// Build a venv with exactly the requested packages from local wheels: `uv venv` + `uv pip install
// --offline` when uv is on PATH, else `python -m venv --without-pip` + `python -m pip --isolated
// --python ENV install --no-index --find-links DIR`; a pinned package is installed from the one wheel
// file its pin chooses. Then check installed == requested.
// Log paths are `log_dir`/{python-version,venv,install,installed}.{out,err}.log. Return ok=false with
// a reason (never throw) when the interpreter, the venv or the install fails, or the installed set
// differs; throw Error (environment) only when log_dir or env_dir's parent cannot be created, or
// env_dir already exists.
VenvResult build_venv(Runner& runner, const VenvRequest& request);

// Return "" when `python` runs (through `runner`) and its version starts with `wanted` ("3.11"; ""
// accepts any), else why not ("python3 is Python 3.11.7, not 2.7"); its output goes to `log_dir`.
// For a state that runs an interpreter as it is ("venv": "none"), which no build checks otherwise.
std::string interpreter_problem(Runner& runner, const std::string& python, const std::string& wanted,
                                const std::string& log_dir);

// Return one line per difference between the requested and the installed distributions
// ("missing a==1", "a: wanted 1, installed 2", "unrequested b==3"); empty when they are equal.
std::vector<std::string> install_differences(const std::map<std::string, std::string>& wanted,
                                             const std::map<std::string, std::string>& installed);

}  // namespace envbisect
