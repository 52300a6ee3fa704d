#include "env/materialize.hpp"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "env/bytecode_compiler.hpp"
#include "env/install_files.hpp"
#include "env/requirement.hpp"
#include "env/resolve.hpp"
#include "env/store.hpp"
#include "env/venv_skeleton.hpp"
#include "env/wheel_source.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds k_list_timeout{60};  // the importlib listing, as the version probe

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string normalised_version(const std::string& text) {
  const auto v = Version::parse(text);
  return v ? v->to_string() : text;
}

// One distribution's store entry, or why it could not be made.
struct Ensured {
  std::optional<StoreEntry> entry;
  std::optional<Error> error;    // an envbisect::Error: the distribution is broken, or the store is
  std::exception_ptr other;      // anything else: rethrown by the caller
};

// Return the store entries of `dists` in order, ensured side by side (a cold store unpacks and hashes
// wheels on every core), each new entry compiled by `before_seal` first. More threads than cores: a
// thread waiting for its bytecode lets the others unpack, and their folders compile in one batch.
std::vector<Ensured> ensure_all(Store& store, const std::vector<Distribution>& dists,
                                const std::function<void(const Distribution&, const std::string&)>& before_seal) {
  std::vector<Ensured> out(dists.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < dists.size(); i = next++) {
      try {
        out[i].entry = store.ensure(dists[i], [&](const std::string& site) { before_seal(dists[i], site); });
      } catch (const Error& e) {
        out[i].error = e;
      } catch (...) {
        out[i].other = std::current_exception();
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(dists.size(), std::max(16U, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    pool.emplace_back(work);
  }
  work();
  for (std::thread& thread : pool) {
    thread.join();
  }
  return out;
}

// Make `log_dir` and the parent of `env_dir`. Throw Error (environment) when either cannot be made
// or `env_dir` already exists.
void prepare_dirs(const std::string& log_dir, const std::string& env_dir) {
  make_dirs(log_dir);
  if (path_exists(env_dir)) {
    throw Error("environment directory " + env_dir + " already exists", ExitCode::environment);
  }
  make_dirs(parent_dir(env_dir));
}

// Set `result` not ok with `header` and one indented line per entry of `lines` as its reason, and
// write the log so far and that reason to `log_path` (added to `result.log_paths`).
void fail_logged(VenvResult& result, const std::string& log_path, const std::string& log, const std::string& header,
                 const std::vector<std::string>& lines = {}) {
  result.reason = header;
  for (const std::string& line : lines) {
    result.reason += "\n  " + line;
  }
  write_file_atomic(log_path, log + result.reason + "\n");
  result.log_paths.push_back(log_path);
}

// Return the interpreter behind `python` when its version is `wanted_version` or starts with it
// (any when empty); else return nullopt with `result.reason` set.
std::optional<detail::Interpreter> requested_interpreter(Runner& runner, const std::string& python,
                                                         const std::string& wanted_version,
                                                         const std::map<std::string, std::string>& env,
                                                         const std::string& log_dir, VenvResult& result) {
  std::optional<detail::Interpreter> interpreter = detail::probe_interpreter(runner, python, env, log_dir, result);
  if (!interpreter) {
    return std::nullopt;
  }
  const std::string& version = interpreter->version;
  if (!wanted_version.empty() && version != wanted_version && version.rfind(wanted_version + ".", 0) != 0) {
    result.reason = python + " is Python " + version + ", not " + wanted_version;
    return std::nullopt;
  }
  return interpreter;
}

// The builds a request names, as found in its sources.
struct Found {
  std::map<std::string, std::string> wanted;  // normalised name -> requested version
  std::vector<Distribution> dists;            // in the request's order, one per package found
  std::vector<std::string> missing;           // one line per package without its exact build
};

// Return the build of every package of `request` in `sources` for Python `short_version` ("3.11"),
// the file its pin chooses when pinned (hashes remembered in `store`'s index); name each missing
// one with the versions the sources do hold, or the pin that matched nothing.
Found find_requested(const VenvRequest& request, const WheelSources& sources, const std::string& short_version,
                     const Store& store) {
  Found found;
  for (const auto& [raw_name, pinned] : request.packages) {
    const std::string name = normalize_package_name(raw_name);
    found.wanted[name] = pinned;
    const auto pin_found = request.pins.find(name);
    const WheelPin pin = pin_found == request.pins.end() ? WheelPin{} : pin_found->second;
    if (auto dist = find_distribution(sources, name, pinned, short_version, pin, store.index_dir())) {
      found.dists.push_back(std::move(*dist));
      continue;
    }
    if (!pin.empty()) {
      found.missing.push_back(describe_missing_pin(sources, name, pinned, pin, short_version));
      continue;
    }
    // The version may be there, built for another interpreter or platform: say which files and why.
    if (const std::vector<std::string> misfits = misfit_builds(sources, name, pinned, short_version); !misfits.empty()) {
      found.missing.push_back(name + "==" + pinned + " has no wheel CPython " + short_version +
                              " can install here: " + join(misfits, "; "));
      continue;
    }
    std::vector<std::string> versions;
    for (const Distribution& other : list_distributions(sources, name)) {
      versions.push_back(other.version);
    }
    found.missing.push_back(name + "==" + pinned +
                            (versions.empty() ? " (no build at all)" : " (found: " + join(versions, ", ") + ")"));
  }
  return found;
}

// The store entries of a request's distributions, or the ones that cannot be used.
struct Stored {
  std::vector<StoreEntry> entries;               // in the order of the distributions
  std::map<std::string, DistMetadata> metadata;  // normalised name -> METADATA, version as the store has it
  std::vector<std::string> broken;               // why each unusable distribution is unusable
  std::size_t unpacked = 0;                      // entries unpacked by this call
};

// Return the store entries of `dists`, unpacking those the store lacks (their bytecode compiled by
// `compiler` when given) and appending to `log` what was reused, unpacked or repaired. A distribution
// that is not a valid wheel is named in `broken`; rethrow Error (environment) and every other exception.
Stored fill_store(Store& store, const std::vector<Distribution>& dists, detail::BytecodeCompiler* compiler,
                  std::string& log) {
  Stored stored;
  const std::vector<Ensured> ensured = ensure_all(store, dists, [&](const Distribution&, const std::string& site) {
    if (compiler != nullptr) {
      compiler->compile(site);
    }
  });
  for (std::size_t i = 0; i < dists.size(); ++i) {
    const Distribution& dist = dists[i];
    try {
      if (ensured[i].other) {
        std::rethrow_exception(ensured[i].other);
      }
      if (ensured[i].error) {
        throw *ensured[i].error;
      }
      StoreEntry entry = *ensured[i].entry;
      stored.unpacked += entry.unpacked_now ? 1 : 0;
      if (!entry.repaired.empty()) {
        log += "repaired " + entry.id + " (changed since its unpack: " + join(entry.repaired, ", ") + ")\n";
        spdlog::warn("store entry {} changed since its unpack ({}); unpacked it anew", entry.id, join(entry.repaired, ", "));
      }
      log += (entry.unpacked_now ? "unpacked " : "reused ") + describe(dist) + " -> " + entry.id + "\n";
      stored.metadata[entry.name] = parse_metadata(read_file(entry.dir + "/site/" + entry.dist_info + "/METADATA"));
      stored.metadata[entry.name].version = entry.version;
      stored.entries.push_back(std::move(entry));
    } catch (const Error& e) {
      if (e.code() == ExitCode::environment) {
        throw;
      }
      stored.broken.push_back(e.what());
    }
  }
  return stored;
}

// Return the requirements of `metadata` that the set itself does not meet on Python `version`
// ("3.11.7"), appending to `log` each one whose marker could not be evaluated.
std::vector<std::string> unmet_in_set(const std::map<std::string, DistMetadata>& metadata, const std::string& version,
                                      const std::string& short_version, std::string& log) {
  const MarkerEnvironment marker_env = cpython_linux_environment(short_version, version);
  std::vector<std::string> ignored;
  std::vector<std::string> unmet = unmet_requirements(metadata, marker_env, &ignored);
  for (const std::string& line : ignored) {
    log += "ignored " + line + "\n";
  }
  return unmet;
}

// The files placed in a new venv, or why its distributions cannot be installed there.
struct Linked {
  std::size_t files = 0;
  std::optional<std::string> refused;  // set when a wheel cannot be installed safely
  std::vector<std::string> notes;      // the installer's notes (a file one distribution overwrote)
};

// Copy `skeleton` to `env_dir` and link every entry into its site-packages folder `site`, appending
// the installer's notes to `log`. On any failure remove `env_dir`; return `refused` set for a wheel
// that cannot be installed safely (Error bad_input) and rethrow every other exception.
Linked link_venv(const std::string& skeleton, const std::vector<StoreEntry>& entries, const std::string& env_dir,
                 const std::string& site, const std::string& python_path, std::string& log) {
  Linked linked;
  std::vector<std::string> notes;
  try {
    detail::copy_skeleton(skeleton, env_dir);
    make_dirs(site);
    for (const StoreEntry& entry : entries) {
      linked.files += detail::install_entry(entry, env_dir, site, python_path, notes);
    }
  } catch (const Error& e) {
    remove_tree(env_dir);
    if (e.code() != ExitCode::bad_input) {
      throw;
    }
    // A wheel that cannot be installed safely makes this candidate untestable, not the run fail.
    linked.refused = std::string("cannot install the distributions: ") + e.what();
    return linked;
  } catch (...) {
    remove_tree(env_dir);
    throw;
  }
  for (const std::string& note : notes) {
    log += "note: " + note + "\n";
  }
  linked.notes = std::move(notes);
  return linked;
}

// Set `result.installed` to the distributions of the venv at `env_dir` from its dist-infos and, when
// `verify` asks, as importlib.metadata sees them inside it (logs in `log_dir`/installed.{out,err}.log).
// Return false with `result.reason` set when that listing fails.
bool list_installed(Runner& runner, const std::map<std::string, std::string>& env, VerifyInstalled verify,
                    const std::string& env_dir, const std::string& log_dir, VenvResult& result) {
  result.installed = read_installed(env_dir);
  if (verify != VerifyInstalled::importlib) {
    return true;
  }
  const auto listed = detail::importlib_installed(runner, result.python_path, env, log_dir, k_list_timeout, result);
  if (!listed) {
    return false;
  }
  result.installed = *listed;
  return true;
}

// Return why the venv's `installed` distributions are not the `wanted` ones, one line per difference
// with versions normalised (PEP 440); empty when they are the same.
std::string mismatch_reason(const std::map<std::string, std::string>& wanted,
                            const std::map<std::string, std::string>& installed) {
  std::map<std::string, std::string> wanted_normalised;
  std::map<std::string, std::string> installed_normalised;
  for (const auto& [name, v] : wanted) {
    wanted_normalised[name] = normalised_version(v);
  }
  for (const auto& [name, v] : installed) {
    installed_normalised[name] = normalised_version(v);
  }
  const std::vector<std::string> diff = install_differences(wanted_normalised, installed_normalised);
  if (diff.empty()) {
    return "";
  }
  std::string reason = "installed packages differ from the request:";
  for (const std::string& line : diff) {
    reason += "\n  " + line;
  }
  return reason;
}

}  // namespace

std::string environment_key(const VenvRequest& request, const StoreOptions& options) {
  Store store(options.store_dir.empty() ? default_store_dir() : options.store_dir);
  // v4: of one folder's files alike but for their build tag, the highest tag is taken (was the first
  // name): an environment built by v3 from such a folder may hold the other file.
  nlohmann::json key = {{"builder", "store/v4"}, {"python_version", request.python_version}};
  // The interpreter: the file the venv's bin/python points at, by path and by content.
  const std::string python = request.python.empty() ? "python3" : request.python;
  const std::map<std::string, std::string> env = detail::helper_env();
  const auto path_list = env.find("PATH");
  std::string program = python.find('/') == std::string::npos
                            ? find_program(python, path_list == env.end() ? std::string() : path_list->second)
                            : python;
  std::error_code ec;
  const fs::path real = program.empty() ? fs::path() : fs::canonical(program, ec);
  if (!program.empty() && !ec) {
    key["interpreter"] = {{"path", real.string()}, {"sha256", wheel_sha256(real.string(), store.index_dir())}};
  } else {
    key["interpreter"] = {{"name", python}};  // not found: the build fails and is not kept
  }
  // Each package: every build its version and pin could resolve to, by content. The interpreter's
  // tags are not known without starting it, so all compatible-looking builds count.
  const WheelSources sources = index_sources(WheelSources{request.wheel_dirs, options.uv_cache_dirs});
  for (const auto& [raw_name, pinned] : request.packages) {
    const std::string name = normalize_package_name(raw_name);
    const auto pin_found = request.pins.find(name);
    const WheelPin pin = pin_found == request.pins.end() ? WheelPin{} : pin_found->second;
    nlohmann::json builds = nlohmann::json::array();
    for (const Distribution& dist : list_distributions(sources, name)) {
      if (normalised_version(dist.version) != normalised_version(pinned)) {
        continue;
      }
      try {
        builds.push_back(store.content_hash(dist));
      } catch (const Error&) {
        builds.push_back("unreadable " + describe(dist));  // the build will say why
      }
    }
    key["packages"][name] = {{"version", pinned}, {"wheel", pin.wheel}, {"sha256", pin.sha256}, {"builds", builds}};
    if (!pin.hashes.empty()) {
      key["packages"][name]["hashes"] = pin.hashes;  // only then: earlier keys stay as they were
    }
  }
  return sha256_hex(key.dump());
}

std::map<std::string, std::string> read_installed(const std::string& env_dir) {
  std::map<std::string, std::string> installed;
  for (const std::string& lib : list_dir(env_dir + "/lib")) {
    const std::string site = env_dir + "/lib/" + lib + "/site-packages";
    for (const std::string& name : list_dir(site)) {
      if (name.size() > 10 && name.ends_with(".dist-info") && path_is_file(site + "/" + name + "/METADATA")) {
        const DistMetadata meta = parse_metadata(read_file(site + "/" + name + "/METADATA"));
        installed[meta.name] = meta.version;
      }
    }
  }
  return installed;
}

VenvResult materialize_venv(Runner& runner, const VenvRequest& request, const StoreOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  VenvResult result;
  result.builder = "store";
  const std::string python = request.python.empty() ? "python3" : request.python;
  const std::string env_dir = absolute_path(request.env_dir, ".");
  result.python_path = env_dir + "/bin/python";

  // Harness problems first: they are errors, not reasons to skip a candidate.
  prepare_dirs(request.log_dir, env_dir);
  const std::string log_path = request.log_dir + "/materialize.log";
  std::string log;
  const std::map<std::string, std::string> env = detail::helper_env();

  // The interpreter must be the one the state asks for, or every candidate would be off.
  const std::optional<detail::Interpreter> interpreter =
      requested_interpreter(runner, python, request.python_version, env, request.log_dir, result);
  if (!interpreter) {
    return result;
  }
  const std::string& version = interpreter->version;
  const std::string short_version = version.substr(0, version.find('.', version.find('.') + 1));
  log += "interpreter " + interpreter->executable + " (Python " + version + ")\n";

  // Find every requested build in the sources (listed once: each package is then a hash probe, not
  // a scan of every folder); all that are missing are named together.
  Store store(options.store_dir.empty() ? default_store_dir() : options.store_dir);
  const WheelSources sources = index_sources(WheelSources{request.wheel_dirs, options.uv_cache_dirs});
  const Found found = find_requested(request, sources, short_version, store);
  if (!found.missing.empty()) {
    fail_logged(result, log_path, log,
                "no exact build in the wheel folders (" + join(request.wheel_dirs, ", ") + ") or uv caches (" +
                    join(options.uv_cache_dirs, ", ") + ") of:",
                found.missing);
    return result;
  }

  // Unpack what the store lacks (once per distribution, shared by every run on the machine); gc
  // waits while we hold the shared lock, so no entry vanishes under us.
  const FileLock store_lock(store.gc_lock_path(), LockMode::shared, LockWait::yes);
  detail::BytecodeCompiler compiler(runner, interpreter->executable, env, request.log_dir + "/compileall");
  const Stored stored =
      fill_store(store, found.dists, options.bytecode == Bytecode::compile ? &compiler : nullptr, log);
  if (!stored.broken.empty()) {
    fail_logged(result, log_path, log, "cannot use " + std::to_string(stored.broken.size()) + " distribution(s):",
                stored.broken);
    return result;
  }

  // The resolver's check: the set must satisfy its own Requires-Dist, or no installer would make it.
  const std::vector<std::string> unmet = unmet_in_set(stored.metadata, version, short_version, log);
  if (!unmet.empty()) {
    fail_logged(result, log_path, log, "the packages cannot be installed together (ResolutionImpossible):", unmet);
    return result;
  }
  // At this point every distribution is in the store and the set is consistent.

  // A bare venv per interpreter, made once and copied: `python -m venv` costs 60-100 ms a call.
  const std::optional<std::string> skeleton =
      detail::ensure_skeleton(runner, store, *interpreter, env, request.log_dir, result);
  if (!skeleton) {
    return result;
  }
  const std::string site = env_dir + "/lib/python" + short_version + "/site-packages";
  const Linked linked = link_venv(*skeleton, stored.entries, env_dir, site, result.python_path, log);
  if (linked.refused) {
    fail_logged(result, log_path, log, *linked.refused);
    return result;
  }
  result.warnings = linked.notes;

  // Check installed == intended from the dist-infos (no interpreter start), and when asked, as
  // importlib.metadata sees it inside the environment.
  if (!list_installed(runner, env, options.verify, env_dir, request.log_dir, result)) {
    return result;
  }
  const std::string mismatch = mismatch_reason(found.wanted, result.installed);
  log += "linked " + std::to_string(linked.files) + " files of " + std::to_string(stored.entries.size()) +
         " distributions (" + std::to_string(stored.unpacked) + " unpacked now) in " +
         std::to_string(seconds_since(start)) + " s\n";
  if (!mismatch.empty()) {
    result.reason = mismatch;
    log += result.reason + "\n";
  } else {
    // At this point the venv holds exactly the requested distributions.
    result.ok = true;
  }
  write_file_atomic(log_path, log);
  result.log_paths.push_back(log_path);
  spdlog::debug("materialized {} ({} packages, {} files) in {:.3f} s", env_dir, stored.entries.size(), linked.files,
                seconds_since(start));
  return result;
}

}  // namespace envbisect