#include "env/environment.hpp"

#include <utime.h>

#include <chrono>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "env/store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

using nlohmann::json;

double epoch_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string short_hash(const std::string& hash) { return hash.substr(0, 16); }

std::string builder_name(Builder builder) { return builder == Builder::store ? "store" : "installer"; }

void say_changed(const std::string& env_hash, const std::vector<std::string>& changes) {
  spdlog::warn("environment {} changed since it was built ({}); rebuilding it", short_hash(env_hash),
               join(changes, ", "));
}

// An interpreter run as it is (a system torch on a GPU box): nothing built; its version is checked as
// a build checks it (a state saying 2.7 measured on 3.11 names no cause).
EnvReady run_as_is(Runner& runner, const EnvRequest& request) {
  EnvReady ready;
  ready.end = EnvEnd::as_is;
  ready.env_dir = parent_dir(parent_dir(request.venv.python));
  ready.venv.builder = "none";
  ready.venv.python_path = request.venv.python;
  if (!request.venv.python_version.empty()) {
    ready.venv.reason =
        interpreter_problem(runner, request.venv.python, request.venv.python_version, request.venv.log_dir);
  }
  ready.venv.ok = ready.venv.reason.empty();
  return ready;
}

// Return the environment's folder. A store build is shared by every run on the machine, keyed by the
// content of what goes into it (a wheel rebuilt in place gives a new key); `lock` then holds its lock,
// so a concurrent run waits rather than builds it twice.
std::string place(const EnvRequest& request, std::unique_ptr<FileLock>& lock) {
  if (request.builder != Builder::store) {
    return request.venv.env_dir;
  }
  const std::string root = request.store.store_dir.empty() ? default_store_dir() : request.store.store_dir;
  const std::string env_dir = root + "/envs/" + short_hash(environment_key(request.venv, request.store));
  make_dirs(root + "/envs");
  lock = std::make_unique<FileLock>(env_dir + ".lock", LockMode::exclusive, LockWait::yes);
  return env_dir;
}

// Return the earlier build in `ready.env_dir` when its marker is there and its files are as recorded;
// note in `ready.changes` what an earlier build had changed (one recorded before identities were is
// rebuilt without blaming anyone).
std::optional<EnvReady> reuse_intact(const EnvRequest& request, EnvReady& ready) {
  const std::string marker = ready.env_dir + "/envbisect-built.json";
  if (!path_exists(marker)) {
    return std::nullopt;
  }
  const json doc = json::parse(read_file(marker), nullptr, false);
  if (doc.is_discarded()) {
    return std::nullopt;
  }
  const std::vector<std::string> changes = environment_changes(ready.env_dir);
  if (!changes.empty()) {
    if (changes != std::vector<std::string>{"envbisect-identity"}) {
      ready.changes = changes;
      say_changed(request.env_hash, changes);
    }
    return std::nullopt;
  }
  // The marker's time is the environment's last use: `store gc` removes environments by it.
  ::utime(marker.c_str(), nullptr);
  EnvReady reused = ready;
  reused.end = EnvEnd::reused;
  reused.venv.ok = doc.value("ok", false);
  reused.venv.reason = doc.value("reason", "");
  reused.venv.builder = doc.value("builder", "");
  reused.venv.python_path = doc.value("python", "");
  reused.venv.installed = doc.value("installed", std::map<std::string, std::string>{});
  reused.checked = true;
  reused.record = {{"type", "build"}, {"env_hash", request.env_hash}, {"ok", reused.venv.ok},
                   {"builder", reused.venv.builder}, {"python", reused.venv.python_path},
                   {"installed", reused.venv.installed}, {"reused", reused.env_dir}, {"seconds", 0.0},
                   {"t", epoch_now()}};
  return reused;
}

// Build the environment into `env_dir`. Hard links into the content-addressed store: each wheel is
// unpacked once across all runs. The installer (uv or pip) is the fallback a user can choose, e.g. to
// reach a package index.
VenvResult build(Runner& runner, const EnvRequest& request, const std::string& env_dir) {
  VenvRequest venv = request.venv;
  venv.env_dir = env_dir;
  try {
    return request.builder == Builder::store ? materialize_venv(runner, venv, request.store) : build_venv(runner, venv);
  } catch (const Error& e) {
    // A wheel that cannot be built into an environment (bad input, not a harness failure) makes
    // this one candidate untestable; the search goes on.
    if (e.code() != ExitCode::bad_input) {
      throw;
    }
    remove_tree(env_dir);
    VenvResult failed;
    failed.builder = builder_name(request.builder);
    failed.reason = e.what();
    return failed;
  }
}

// Record a new build: its files' identity (checked before each use), its record, and, when it is
// usable, its marker, which later runs reuse it by.
void seal(const EnvRequest& request, EnvReady& ready, double seconds) {
  if (ready.venv.ok) {
    record_environment_identity(ready.env_dir);
    ready.checked = true;
  }
  ready.record = {{"type", "build"}, {"env_hash", request.env_hash}, {"ok", ready.venv.ok},
                  {"reason", ready.venv.reason}, {"builder", ready.venv.builder},
                  {"python", ready.venv.python_path}, {"installed", ready.venv.installed},
                  {"logs", ready.venv.log_paths}, {"seconds", seconds}, {"t", epoch_now()}};
  // Two distributions shipping one file: the environment holds only the later one's copy.
  if (!ready.venv.warnings.empty()) {
    ready.record["warnings"] = ready.venv.warnings;
    for (const std::string& warning : ready.venv.warnings) {
      spdlog::warn("environment {}: {}", short_hash(request.env_hash), warning);
    }
  }
  if (ready.venv.ok) {
    write_file_atomic(ready.env_dir + "/envbisect-built.json", ready.record.dump());
  } else {
    spdlog::warn("environment {} cannot be built: {}", short_hash(request.env_hash), ready.venv.reason);
  }
}

}  // namespace

EnvReady ready_environment(Runner& runner, const EnvRequest& request, const std::function<void()>& on_building) {
  // No candidate may change what another measures: an environment made ready before is compared with
  // the identity of its files recorded when it was built, and rebuilt when they changed.
  EnvReady ready;
  if (!request.known_dir.empty()) {
    ready.changes = environment_changes(request.known_dir);
    if (ready.changes.empty()) {
      ready.end = EnvEnd::unchanged;
      ready.env_dir = request.known_dir;
      ready.checked = true;
      return ready;
    }
    say_changed(request.env_hash, ready.changes);
  }
  if (request.as_is) {
    return run_as_is(runner, request);
  }
  std::unique_ptr<FileLock> shared_env_lock;
  ready.env_dir = place(request, shared_env_lock);
  if (ready.changes.empty()) {
    if (std::optional<EnvReady> reused = reuse_intact(request, ready)) {
      return *reused;
    }
  }
  // At this point nothing usable is in the folder: it is built anew.
  remove_tree(ready.env_dir);
  spdlog::info("building environment {} ({} packages)", short_hash(request.env_hash), request.venv.packages.size());
  if (on_building) {
    on_building();
  }
  const auto start = std::chrono::steady_clock::now();
  ready.venv = build(runner, request, ready.env_dir);
  seal(request, ready, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return ready;
}

}  // namespace envbisect
