#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "env/materialize.hpp"
#include "env/venv_builder.hpp"
#include "util/error.hpp"

namespace envbisect {

class StagingRunner;

// What `envbisect build-env` reads: one environment to build on the machine it runs on.
struct BuildEnvRequest {
  VenvRequest venv;             // what the environment holds and where it goes (paths on that machine)
  std::string builder = "store";  // "store" (hard links from the store) or "installer" (uv or pip)
  StoreOptions store;           // the store and uv caches on that machine
};

// A build on the remote side: its result with local names of paths, and whether it was reused.
struct RemoteBuild {
  VenvResult venv;
  bool reused = false;  // the remote side had built it before (its marker was there)
};

// Return the JSON form of `request` (the file `envbisect build-env` reads).
nlohmann::json build_request_to_json(const BuildEnvRequest& request);

// Return the request in `doc`. Throw Error (bad_input) naming `where` and the field when a field is
// missing or of the wrong type.
BuildEnvRequest build_request_from_json(const nlohmann::json& doc, const std::string& where);

// `envbisect build-env REQUEST.json`: build the environment the request names on this machine, or
// reuse it when its marker (ENV/envbisect-built.json) says it was built, holding ENV.lock meanwhile;
// print the result as one JSON object on stdout (ok, reason, builder, python, installed, logs,
// reused). Return ok whether or not the environment could be built (the JSON says); throw Error
// (bad_input) for an unreadable or invalid request file.
ExitCode run_build_env(const std::string& request_path);

// Build the environment of `request` (written with local names of paths) on the remote side of
// `staging`, by the envbisect of the bundle at `bundle_dir` (a local folder made by scripts/bundle, sent
// once): the wheels or uv archives the request's packages resolve to here are sent, the request file
// and the build's logs travel in request.venv.log_dir (fetched back). Return the result with local
// names of paths; ok=false with the reason when the build or a transfer failed. Never throw for a
// remote failure; throw Error (environment) when the local log folder cannot be written.
RemoteBuild build_venv_remotely(StagingRunner& staging, const std::string& bundle_dir, const BuildEnvRequest& request);

}  // namespace envbisect
