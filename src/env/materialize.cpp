#include "env/materialize.hpp"

#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

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

constexpr const char* k_list_installed =
    "import importlib.metadata as m, json, re\n"
    "print(json.dumps({re.sub(r'[-_.]+', '-', d.metadata['Name']).lower(): d.version"
    " for d in m.distributions()}, sort_keys=True))\n";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The environment of the helper processes: only what finding and running the interpreter needs.
std::map<std::string, std::string> builder_env() {
  const std::map<std::string, std::string> parent = allowed_parent_env();
  std::map<std::string, std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG", "TMPDIR"}) {
    if (const auto found = parent.find(name); found != parent.end()) {
      env[name] = found->second;
    }
  }
  return env;
}

std::string normalised_version(const std::string& text) {
  const auto v = Version::parse(text);
  return v ? v->to_string() : text;
}

constexpr std::chrono::minutes k_compile_timeout{20};  // torch's 5,500 modules take about a minute on 2 cores

// Return the number of .py files below `dir`.
std::size_t count_sources(const std::string& dir) {
  std::size_t sources = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    sources += it->path().extension() == ".py" ? 1 : 0;
  }
  return sources;
}

// Compiles the .py files of new store entries to __pycache__/*.cpython-XY.pyc, as pip does at
// install time but once per entry. Unchecked-hash pycs: valid whatever the source's mtime, so every
// hard-linked copy stays valid, and not re-hashed at each import (the store is read-only and its
// identity check redoes an entry whose sources or pycs changed). Starting the interpreter costs
// more than compiling a small package, so concurrent unpacks hand their folders over and one
// caller compiles every folder queued meanwhile in one run (group commit). A file that does not
// compile (Python 2 syntax) keeps no .pyc, as with pip; the rest still do.
class BytecodeCompiler {
public:
  BytecodeCompiler(Runner& runner, std::string interpreter, std::map<std::string, std::string> env,
                   std::string log_stem)
      : m_runner(runner), m_interpreter(std::move(interpreter)), m_env(std::move(env)), m_log_stem(std::move(log_stem)) {}

  // Return once the .py files under `site_dir` are compiled (or compiling them failed: then first
  // imports compile them, as without this step).
  void compile(const std::string& site_dir) {
    if (count_sources(site_dir) == 0) {
      return;
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_queued.push_back(site_dir);
    while (m_done.count(site_dir) == 0) {
      if (m_running) {
        m_changed.wait(lock);
        continue;
      }
      m_running = true;
      std::vector<std::string> batch;
      batch.swap(m_queued);
      lock.unlock();
      run(batch);
      lock.lock();
      m_done.insert(batch.begin(), batch.end());
      m_running = false;
      m_changed.notify_all();
    }
  }

private:
  // Compile `dirs`: small packages together on one process (compileall starts a process pool per
  // folder with -j 0: 60 small folders would start 60 pools), each large one on every core.
  void run(const std::vector<std::string>& dirs) noexcept {
    std::vector<std::string> small;
    for (const std::string& dir : dirs) {
      if (count_sources(dir) > 512) {
        run_compileall({dir}, "0");
      } else {
        small.push_back(dir);
      }
    }
    if (!small.empty()) {
      run_compileall(small, "1");
    }
  }

  void run_compileall(const std::vector<std::string>& dirs, const std::string& workers) noexcept {
    try {
      ProcessSpec spec;
      spec.argv = {m_interpreter, "-I", "-m", "compileall", "-q", "-j", workers, "--invalidation-mode", "unchecked-hash"};
      spec.argv.insert(spec.argv.end(), dirs.begin(), dirs.end());
      spec.env = m_env;
      spec.stdout_path = m_log_stem + std::to_string(m_runs) + ".out.log";
      spec.stderr_path = m_log_stem + std::to_string(m_runs) + ".err.log";
      ++m_runs;
      spec.timeout = k_compile_timeout;
      const ProcessResult r = m_runner.run(spec);
      if (!r.spawned || r.timed_out) {
        spdlog::warn("compiling bytecode failed ({}); first imports compile it", r.spawned ? "timed out" : r.spawn_error);
      }
    } catch (const std::exception& e) {
      spdlog::warn("compiling bytecode failed ({}); first imports compile it", e.what());
    }
  }

  Runner& m_runner;
  std::string m_interpreter;
  std::map<std::string, std::string> m_env;
  std::string m_log_stem;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<std::string> m_queued;
  std::set<std::string> m_done;
  bool m_running = false;
  std::size_t m_runs = 0;  // only the running caller touches it
};

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

}  // namespace

std::string environment_key(const VenvRequest& request, const StoreOptions& options) {
  Store store(options.store_dir.empty() ? default_store_dir() : options.store_dir);
  nlohmann::json key = {{"builder", "store/v3"}, {"python_version", request.python_version}};
  // The interpreter: the file the venv's bin/python points at, by path and by content.
  const std::string python = request.python.empty() ? "python3" : request.python;
  const std::map<std::string, std::string> env = builder_env();
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
    const std::string name = normalise_dist_name(raw_name);
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
  }
  return sha256_hex(key.dump());
}

std::map<std::string, std::string> read_installed(const std::string& env_dir) {
  std::map<std::string, std::string> installed;
  std::error_code ec;
  for (const auto& lib : fs::directory_iterator(env_dir + "/lib", ec)) {
    const std::string site = lib.path().string() + "/site-packages";
    DIR* d = ::opendir(site.c_str());
    if (d == nullptr) {
      continue;
    }
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 10 && name.compare(name.size() - 10, 10, ".dist-info") == 0 &&
          path_is_file(site + "/" + name + "/METADATA")) {
        const DistMetadata meta = parse_metadata(read_file(site + "/" + name + "/METADATA"));
        installed[meta.name] = meta.version;
      }
    }
    ::closedir(d);
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
  make_dirs(request.log_dir);
  if (path_exists(env_dir)) {
    throw Error("environment directory " + env_dir + " already exists", ExitCode::environment);
  }
  make_dirs(parent_dir(env_dir));
  const std::string log_path = request.log_dir + "/materialize.log";
  std::string log;
  const std::map<std::string, std::string> env = builder_env();

  // The interpreter must be the one the state asks for, or every candidate would be off.
  const std::optional<detail::Interpreter> interpreter = detail::probe_interpreter(runner, python, env, request.log_dir, result);
  if (!interpreter) {
    return result;
  }
  const std::string& version = interpreter->version;
  if (!request.python_version.empty() && version != request.python_version &&
      version.rfind(request.python_version + ".", 0) != 0) {
    result.reason = python + " is Python " + version + ", not " + request.python_version;
    return result;
  }
  const std::string short_version = version.substr(0, version.find('.', version.find('.') + 1));
  log += "interpreter " + interpreter->executable + " (Python " + version + ")\n";

  // Find every requested build in the sources; all that are missing are named together.
  // A state's wheel/sha256 pin chooses the file; hashes are remembered in the store's index.
  Store store(options.store_dir.empty() ? default_store_dir() : options.store_dir);
  // Listed once: each package is then a hash probe, not a scan of every folder.
  const WheelSources sources = index_sources(WheelSources{request.wheel_dirs, options.uv_cache_dirs});
  std::map<std::string, std::string> wanted;
  std::vector<Distribution> dists;
  std::vector<std::string> missing;
  for (const auto& [raw_name, pinned] : request.packages) {
    const std::string name = normalise_dist_name(raw_name);
    wanted[name] = pinned;
    const auto pin_found = request.pins.find(name);
    const WheelPin pin = pin_found == request.pins.end() ? WheelPin{} : pin_found->second;
    if (auto dist = find_distribution(sources, name, pinned, short_version, pin, store.index_dir())) {
      dists.push_back(std::move(*dist));
      continue;
    }
    if (!pin.empty()) {
      missing.push_back(describe_missing_pin(sources, name, pinned, pin));
      continue;
    }
    std::vector<std::string> versions;
    for (const Distribution& other : list_distributions(sources, name)) {
      versions.push_back(other.version);
    }
    missing.push_back(name + "==" + pinned + (versions.empty() ? " (no build at all)" : " (found: " + join(versions, ", ") + ")"));
  }
  if (!missing.empty()) {
    result.reason = "no exact build in the wheel folders (" + join(request.wheel_dirs, ", ") + ") or uv caches (" +
                    join(options.uv_cache_dirs, ", ") + ") of:";
    for (const std::string& line : missing) {
      result.reason += "\n  " + line;
    }
    write_file_atomic(log_path, log + result.reason + "\n");
    result.log_paths.push_back(log_path);
    return result;
  }

  // Unpack what the store lacks (once per distribution, shared by every run on the machine); gc
  // waits while we hold the shared lock, so no entry vanishes under us.
  const FileLock store_lock(store.gc_lock_path(), LockMode::shared, LockWait::yes);
  std::vector<StoreEntry> entries;
  std::map<std::string, DistMetadata> metadata;
  std::vector<std::string> broken;
  std::size_t unpacked = 0;
  BytecodeCompiler compiler(runner, interpreter->executable, env, request.log_dir + "/compileall");
  const std::vector<Ensured> ensured = ensure_all(store, dists, [&](const Distribution&, const std::string& site) {
    if (options.bytecode == Bytecode::compile) {
      compiler.compile(site);
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
      unpacked += entry.unpacked_now ? 1 : 0;
      if (!entry.repaired.empty()) {
        log += "repaired " + entry.id + " (changed since its unpack: " + join(entry.repaired, ", ") + ")\n";
        spdlog::warn("store entry {} changed since its unpack ({}); unpacked it anew", entry.id, join(entry.repaired, ", "));
      }
      log += (entry.unpacked_now ? "unpacked " : "reused ") + describe(dist) + " -> " + entry.id + "\n";
      metadata[entry.name] = parse_metadata(read_file(entry.dir + "/site/" + entry.dist_info + "/METADATA"));
      metadata[entry.name].version = entry.version;
      entries.push_back(std::move(entry));
    } catch (const Error& e) {
      if (e.code() == ExitCode::environment) {
        throw;
      }
      broken.push_back(e.what());
    }
  }
  if (!broken.empty()) {
    result.reason = "cannot use " + std::to_string(broken.size()) + " distribution(s):";
    for (const std::string& line : broken) {
      result.reason += "\n  " + line;
    }
    write_file_atomic(log_path, log + result.reason + "\n");
    result.log_paths.push_back(log_path);
    return result;
  }

  // The resolver's check: the set must satisfy its own Requires-Dist, or no installer would make it.
  MarkerEnv marker_env;
  marker_env.python_version = short_version;
  marker_env.python_full_version = version;
  std::vector<std::string> ignored;
  const std::vector<std::string> unmet = unmet_requirements(metadata, marker_env, &ignored);
  for (const std::string& line : ignored) {
    log += "ignored " + line + "\n";
  }
  if (!unmet.empty()) {
    result.reason = "the packages cannot be installed together (ResolutionImpossible):";
    for (const std::string& line : unmet) {
      result.reason += "\n  " + line;
    }
    write_file_atomic(log_path, log + result.reason + "\n");
    result.log_paths.push_back(log_path);
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
  std::size_t files = 0;
  std::vector<std::string> notes;
  try {
    detail::copy_skeleton(*skeleton, env_dir);
    make_dirs(site);
    for (const StoreEntry& entry : entries) {
      files += detail::install_entry(entry, env_dir, site, result.python_path, notes);
    }
  } catch (const Error& e) {
    remove_tree(env_dir);
    if (e.code() != ExitCode::bad_input) {
      throw;
    }
    // A wheel that cannot be installed safely makes this candidate untestable, not the run fail.
    result.reason = std::string("cannot install the distributions: ") + e.what();
    write_file_atomic(log_path, log + result.reason + "\n");
    result.log_paths.push_back(log_path);
    return result;
  } catch (...) {
    remove_tree(env_dir);
    throw;
  }
  for (const std::string& note : notes) {
    log += "note: " + note + "\n";
  }

  // Check installed == intended from the dist-infos (no interpreter start), and when asked, as
  // importlib.metadata sees it inside the environment.
  result.installed = read_installed(env_dir);
  if (options.verify == VerifyInstalled::importlib) {
    ProcessSpec spec;
    spec.argv = {result.python_path, "-I", "-c", k_list_installed};
    spec.env = env;
    spec.stdout_path = request.log_dir + "/installed.out.log";
    spec.stderr_path = request.log_dir + "/installed.err.log";
    spec.timeout = k_list_timeout;
    const ProcessResult r = runner.run(spec);
    result.log_paths.push_back(spec.stdout_path);
    result.log_paths.push_back(spec.stderr_path);
    if (!r.spawned || r.exit_code != 0) {
      result.reason = detail::process_failure("listing the installed packages", r, spec.stderr_path);
      return result;
    }
    try {
      result.installed = nlohmann::json::parse(read_file(spec.stdout_path)).get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception& e) {
      result.reason = "cannot read the installed package list " + spec.stdout_path + ": " + e.what();
      return result;
    }
  }
  std::map<std::string, std::string> wanted_normalised;
  std::map<std::string, std::string> installed_normalised;
  for (const auto& [name, v] : wanted) {
    wanted_normalised[name] = normalised_version(v);
  }
  for (const auto& [name, v] : result.installed) {
    installed_normalised[name] = normalised_version(v);
  }
  const std::vector<std::string> diff = install_differences(wanted_normalised, installed_normalised);
  log += "linked " + std::to_string(files) + " files of " + std::to_string(entries.size()) + " distributions (" +
         std::to_string(unpacked) + " unpacked now) in " + std::to_string(seconds_since(start)) + " s\n";
  if (!diff.empty()) {
    result.reason = "installed packages differ from the request:";
    for (const std::string& line : diff) {
      result.reason += "\n  " + line;
    }
    log += result.reason + "\n";
  } else {
    // At this point the venv holds exactly the requested distributions.
    result.ok = true;
  }
  write_file_atomic(log_path, log);
  result.log_paths.push_back(log_path);
  spdlog::debug("materialized {} ({} packages, {} files) in {:.3f} s", env_dir, entries.size(), files, seconds_since(start));
  return result;
}

}  // namespace envbisect