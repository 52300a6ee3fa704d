#pragma once

#include <map>
#include <string>
#include <vector>

#include "env/venv_builder.hpp"

namespace envbisect {

class Runner;

// How the installed set is checked after a materialization.
enum class VerifyInstalled {
  dist_info,  // read the dist-info folders in site-packages (no interpreter start)
  importlib,  // also ask importlib.metadata inside the environment (one interpreter start)
};

// Whether a distribution's .py files are compiled into its store entry when it is unpacked.
enum class Bytecode { compile, none };

// How candidate venvs are made: hard links into the content-addressed store (fast, offline), or the
// installer (uv when on PATH, else pip), which can also use a package index.
enum class Builder { store, installer };

// Where materializations find and keep distributions.
struct StoreOptions {
  std::string store_dir;                   // the content-addressed store; "" means default_store_dir()
  std::vector<std::string> uv_cache_dirs;  // uv caches searched after the request's wheel folders
  VerifyInstalled verify = VerifyInstalled::dist_info;
  Bytecode bytecode = Bytecode::compile;   // none: only for measuring what compiling costs and saves
};

// Build the venv of `request` from the store, as build_venv does but without an installer: a copy
// of a bare venv skeleton (made once per interpreter with `python -m venv --without-pip`), then every
// file of every requested distribution hard-linked from the store (copied across filesystems), each
// distribution unpacked once into the store from the request's wheel folders or `options`' uv caches.
// Console scripts, INSTALLER and RECORD are written as an installer writes them. Return ok=false with
// a reason (never throw) when the interpreter is not the requested one, a distribution has no exact
// build in the sources or is not a valid wheel, the set does not satisfy its own Requires-Dist
// (the reason lists every unmet requirement), or the installed set differs from the request;
// builder is "store". Log paths: `log_dir`/materialize.log (plus the interpreter probe's logs).
// Throw Error (environment) when log_dir, the store or env_dir's parent cannot be written, or when
// env_dir already exists.
VenvResult materialize_venv(Runner& runner, const VenvRequest& request, const StoreOptions& options);

// Return the key of the environment materialize_venv would build for `request`: the sha256 of what
// goes into it, never of folder paths: every build of each requested version (as its pin allows)
// by content (Store::content_hash), the interpreter's real path and the sha256 of its file, the
// requested Python version, and the builder's layout. A wheel rebuilt in place gives a new key.
// Throw Error (environment) when the store cannot be opened.
std::string environment_key(const VenvRequest& request, const StoreOptions& options);

// Return the distributions installed in the venv at `env_dir` ({normalised name: version}) by
// reading the METADATA of every dist-info folder in its site-packages; no interpreter is started.
std::map<std::string, std::string> read_installed(const std::string& env_dir);

}  // namespace envbisect
