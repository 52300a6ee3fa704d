#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "env/venv_builder.hpp"

namespace envbisect {

class Runner;
class Store;
struct ProcessResult;

namespace detail {

// The interpreter a venv is made from: its real executable and version.
struct Interpreter {
  std::string executable;
  std::string version;  // "3.11.7"
};

// Return the interpreter behind `python` (its sys.executable and full version), asking it once per
// process for each PATH and working folder; the probe's logs go to `log_dir`/python-version.{out,err}.log
// and are added to `result.log_paths`. Return nullopt with `result.reason` set when it cannot be run.
std::optional<Interpreter> probe_interpreter(Runner& runner, const std::string& python,
                                             const std::map<std::string, std::string>& env,
                                             const std::string& log_dir, VenvResult& result);

// Return the store's bare venv of `interpreter` (`python -m venv --without-pip`, made once per
// interpreter and version, logs in `log_dir`/venv.{out,err}.log added to `result.log_paths`).
// Return nullopt with `result.reason` set when the venv cannot be made; throw Error (environment)
// when the store cannot be written.
std::optional<std::string> ensure_skeleton(Runner& runner, Store& store, const Interpreter& interpreter,
                                           const std::map<std::string, std::string>& env,
                                           const std::string& log_dir, VenvResult& result);

// Copy the venv skeleton at `skeleton` to `env_dir` (its parent must exist), pointing its text files
// (pyvenv.cfg, activate scripts) at the new place. Throw Error (environment) when a file cannot be
// read or written.
void copy_skeleton(const std::string& skeleton, const std::string& env_dir);

// Return the environment of the helper processes (version probe, venv, listings): only PATH, HOME,
// LANG and TMPDIR from the parent, never its PIP_* or PYTHON* variables.
std::map<std::string, std::string> helper_env();

// Return {normalised name: version} of every distribution importlib.metadata sees when `python` runs
// isolated (-I) inside the venv, the listing's logs in `log_dir`/installed.{out,err}.log added to
// `result.log_paths`. Return nullopt with `result.reason` set when it cannot be run or read.
std::optional<std::map<std::string, std::string>> importlib_installed(Runner& runner, const std::string& python,
                                                                      const std::map<std::string, std::string>& env,
                                                                      const std::string& log_dir,
                                                                      std::chrono::seconds timeout,
                                                                      VenvResult& result);

// Describe how a helper process `what` ended: its spawn error, or its exit and the last five
// non-empty lines of its stderr at `stderr_path`.
std::string process_failure(const std::string& what, const ProcessResult& r, const std::string& stderr_path);

}  // namespace detail

}  // namespace envbisect
