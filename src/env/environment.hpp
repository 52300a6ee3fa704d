#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/materialize.hpp"
#include "env/venv_builder.hpp"

namespace envbisect {

class Runner;

// One candidate environment to make ready: what it holds, how it is built, and what is known of it.
struct EnvRequest {
  VenvRequest venv;                 // what it holds; env_dir: its folder for the installer (a store build
                                    // goes to the store's envs/ folder instead)
  Builder builder = Builder::store;
  StoreOptions store;
  bool as_is = false;               // "venv": "none": venv.python is run as it is, nothing is built
  std::string env_hash;             // the environment's hash: named in its build record and log lines
  std::string known_dir;            // where this process made it ready before, its files recorded; "" if not
};

// How an environment came to be ready.
enum class EnvEnd {
  unchanged,  // known_dir's files are as recorded: used as it is, nothing journaled
  reused,     // built earlier (by this run, an earlier session of it, or another run) and intact
  built,      // built now (or tried: venv.ok says whether it could be)
  as_is,      // an interpreter run as it is, its version checked
};

// What ready_environment did.
struct EnvReady {
  EnvEnd end = EnvEnd::built;
  VenvResult venv;
  std::string env_dir;
  bool checked = false;              // its files' identity was recorded: check it before each use
  std::vector<std::string> changes;  // the files an earlier build's environment had changed (then rebuilt)
  nlohmann::json record;             // the build's record ({"type": "build", ...}) for reused and built; else null
};

// Make the environment of `request` ready, in order: check the folder this process knew it in
// (unchanged: done); run an as-is interpreter after checking its version; place it (the store's
// envs/KEY for a store build, keyed by environment_key and locked against a concurrent run, else
// venv.env_dir); reuse an intact earlier build (its envbisect-built.json marker's time is touched:
// `store gc` goes by it); else build it (materialize_venv or build_venv: resolve, store, link,
// check), calling `on_building` first; record its files' identity and write its marker. A build a
// wheel makes impossible (Error bad_input) is a result with the reason, never an exception. Throw
// Error (environment) when a folder cannot be written, and what the builders throw otherwise.
EnvReady ready_environment(Runner& runner, const EnvRequest& request, const std::function<void()>& on_building);

}  // namespace envbisect
