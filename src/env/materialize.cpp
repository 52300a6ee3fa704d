#include "env/materialize.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "env/link_tree.hpp"
#include "env/requirement.hpp"
#include "env/resolve.hpp"
#include "env/store.hpp"
#include "env/wheel_source.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds k_probe_timeout{60};
constexpr std::chrono::seconds k_venv_timeout{300};

constexpr const char* k_version_snippet =
    "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)";

constexpr const char* k_installed_snippet =
    "import importlib.metadata as m, json, re\n"
    "print(json.dumps({re.sub(r'[-_.]+', '-', d.metadata['Name']).lower(): d.version"
    " for d in m.distributions()}, sort_keys=True))\n";

// Files of a dist-info folder that belong to one installation, never shared through the store.
constexpr const char* k_per_install_files[] = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"};

// The interpreter a venv is made from: its real executable and version.
struct Interpreter {
  std::string executable;
  std::string version;  // "3.11.7"
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

// Describe how a helper process ended, with the tail of its stderr.
std::string process_failure(const std::string& what, const ProcessResult& r, const std::string& stderr_path) {
  if (!r.spawned) {
    return what + ": " + r.spawn_error;
  }
  std::string reason = what + (r.timed_out ? " timed out" : " failed (exit " + std::to_string(r.exit_code) + ")");
  std::string text;
  try {
    text = read_file(stderr_path);
  } catch (const Error&) {
  }
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) {
      lines.push_back(line);
    }
  }
  for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) {
    reason += "\n  " + lines[i];
  }
  return reason;
}

// Return the interpreter behind `python`, asking it once per process (a pyenv shim costs 0.6 s a
// call); the memo is keyed by what decides which interpreter a name means: PATH and the folder.
std::optional<Interpreter> probe_interpreter(Runner& runner, const std::string& python,
                                             const std::map<std::string, std::string>& env,
                                             const std::string& log_dir, VenvResult& result) {
  static std::mutex memo_mutex;
  static std::map<std::string, Interpreter> memo;  // a cache of facts, not state: safe to lose
  const auto path = env.find("PATH");
  const std::string key = python + "\n" + (path == env.end() ? "" : path->second) + "\n" + fs::current_path().string();
  {
    const std::lock_guard<std::mutex> lock(memo_mutex);
    if (const auto it = memo.find(key); it != memo.end() && path_is_file(it->second.executable)) {
      return it->second;
    }
  }
  ProcessSpec spec;
  spec.argv = {python, "-I", "-c", k_version_snippet};
  spec.env = env;
  spec.stdout_path = log_dir + "/python-version.out.log";
  spec.stderr_path = log_dir + "/python-version.err.log";
  spec.timeout = k_probe_timeout;
  const ProcessResult r = runner.run(spec);
  result.log_paths.push_back(spec.stdout_path);
  result.log_paths.push_back(spec.stderr_path);
  if (!r.spawned || r.exit_code != 0) {
    result.reason = process_failure("checking " + python + "'s version", r, spec.stderr_path);
    return std::nullopt;
  }
  std::istringstream out(read_file(spec.stdout_path));
  Interpreter found;
  std::getline(out, found.version);
  std::getline(out, found.executable);
  if (found.executable.empty()) {
    found.executable = python;
  }
  const std::lock_guard<std::mutex> lock(memo_mutex);
  memo[key] = found;
  return found;
}

// Return the lines of a text file split on '\n' ('\r' dropped).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

void write_plain(const std::string& path, const std::string& content, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    throw Error(path + ": cannot write: " + std::strerror(errno), ExitCode::environment);
  }
  const bool ok = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ::close(fd);
  if (!ok) {
    throw Error(path + ": write failed", ExitCode::environment);
  }
  if (mode & 0111) {
    ::chmod(path.c_str(), mode);  // past the umask: scripts must be executable
  }
}

// Return the text with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Copy the venv skeleton to `env_dir`, pointing its text files (pyvenv.cfg, activate scripts) at
// the new place.
void copy_skeleton(const std::string& skeleton, const std::string& env_dir) {
  link_tree(skeleton, env_dir, TreeMode::copy);
  const std::string origin = read_file(skeleton + "/origin");
  ::unlink((env_dir + "/origin").c_str());
  std::vector<std::string> texts = {env_dir + "/pyvenv.cfg"};
  if (DIR* d = ::opendir((env_dir + "/bin").c_str())) {
    while (const dirent* e = ::readdir(d)) {
      if (std::strncmp(e->d_name, "activate", 8) == 0 || std::strncmp(e->d_name, "Activate", 8) == 0) {
        texts.push_back(env_dir + "/bin/" + e->d_name);
      }
    }
    ::closedir(d);
  }
  for (const std::string& path : texts) {
    if (path_is_file(path)) {
      const std::string text = read_file(path);
      if (text.find(origin) != std::string::npos) {
        write_plain(path, replace_all(text, origin, env_dir), 0644);
      }
    }
  }
}

// One console script: bin/NAME calling MODULE:ATTR with the env's python.
std::string console_script(const std::string& python, const std::string& reference) {
  const std::size_t colon = reference.find(':');
  const std::string module = trim(reference.substr(0, colon));
  std::string attr = colon == std::string::npos ? "" : trim(reference.substr(colon + 1));
  if (const std::size_t extras = attr.find('['); extras != std::string::npos) {
    attr = trim(attr.substr(0, extras));
  }
  const std::string root = attr.substr(0, attr.find('.'));
  std::string body = "#!" + python + "\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n";
  body += attr.empty() ? "import " + module + "\n" : "from " + module + " import " + root + "\n";
  body += "if __name__ == '__main__':\n";
  body += "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n";
  body += "    sys.exit(" + (attr.empty() ? module : attr) + "())\n";
  return body;
}

// Return the RECORD path of a wheel file once installed (relative to site-packages).
std::string installed_record_path(const std::string& path, const std::string& data_dir) {
  if (!data_dir.empty() && path.rfind(data_dir + "/", 0) == 0) {
    const std::string rest = path.substr(data_dir.size() + 1);
    for (const char* lib : {"purelib/", "platlib/"}) {
      if (rest.rfind(lib, 0) == 0) {
        return rest.substr(std::strlen(lib));
      }
    }
    if (rest.rfind("scripts/", 0) == 0) {
      return "../../../bin/" + rest.substr(8);
    }
    if (rest.rfind("data/", 0) == 0) {
      return "../../../" + rest.substr(5);
    }
  }
  return path;
}

// Link one store entry into the environment, then write what an installer writes per install.
// Return the number of files placed.
std::size_t install_entry(const StoreEntry& entry, const std::string& env_dir, const std::string& site,
                          const std::string& python, std::vector<std::string>& notes) {
  const std::string manifest = read_file(entry.dir + "/manifest");
  const std::string dist_info_prefix = entry.dist_info + "/";
  std::size_t placed = 0;
  bool try_links = true;
  std::vector<std::string> script_records;
  std::size_t pos = 0;
  while (pos < manifest.size()) {
    std::size_t end = manifest.find('\n', pos);
    if (end == std::string::npos) {
      end = manifest.size();
    }
    if (end - pos < 4) {
      pos = end + 1;
      continue;
    }
    const char area = manifest[pos];
    const char kind = manifest[pos + 1];
    const std::string rel = manifest.substr(pos + 3, end - pos - 3);
    pos = end + 1;
    const std::string source = entry.dir + (area == 's' ? "/site/" : area == 'x' ? "/scripts/" : "/data/") + rel;
    const std::string target = (area == 's' ? site : area == 'x' ? env_dir + "/bin" : env_dir) + "/" + rel;
    if (kind == 'd') {
      if (::mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) {
        throw Error("cannot create directory " + target + ": " + std::strerror(errno), ExitCode::environment);
      }
      continue;
    }
    if (area == 's' && rel.rfind(dist_info_prefix, 0) == 0) {
      const std::string file = rel.substr(dist_info_prefix.size());
      bool per_install = false;
      for (const char* name : k_per_install_files) {
        per_install = per_install || file == name;
      }
      if (per_install) {
        continue;
      }
    }
    if (kind == 'l') {
      char link_target[4096];
      const ssize_t n = ::readlink(source.c_str(), link_target, sizeof link_target - 1);
      if (n >= 0) {
        link_target[n] = '\0';
        ::symlink(link_target, target.c_str());
      }
      continue;
    }
    ++placed;
    if (area == 'x') {
      // Wheel scripts starting "#!python" get the environment's interpreter, as pip does.
      script_records.push_back("../../../bin/" + rel);
      const std::string text = read_file(source);
      if (text.rfind("#!python", 0) == 0) {
        const std::size_t eol = text.find('\n');
        write_plain(target, "#!" + python + (eol == std::string::npos ? "\n" : text.substr(eol)), 0755);
        continue;
      }
    }
    if (try_links) {
      if (::link(source.c_str(), target.c_str()) == 0) {
        continue;
      }
      if (errno == EEXIST) {
        // Two distributions ship the same file: the later one wins, as with pip.
        notes.push_back(entry.name + " overwrites " + target);
        ::unlink(target.c_str());
        if (::link(source.c_str(), target.c_str()) == 0) {
          continue;
        }
      }
      if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
        throw Error("cannot link " + source + " to " + target + ": " + std::strerror(errno), ExitCode::environment);
      }
      try_links = false;  // another filesystem: copy from now on
      notes.push_back("copying (no hard links from " + entry.dir + " to " + env_dir + ")");
    }
    copy_regular_file(source, target);
  }

  // Console and GUI scripts from entry_points.txt, with the environment's python in the shebang.
  const std::string dist_info_dir = site + "/" + entry.dist_info;
  const std::string entry_points = dist_info_dir + "/entry_points.txt";
  if (path_is_file(entry_points)) {
    std::string section;
    for (const std::string& raw : lines_of(read_file(entry_points))) {
      const std::string line = trim(raw);
      if (line.empty() || line[0] == '#' || line[0] == ';') {
        continue;
      }
      if (line.front() == '[' && line.back() == ']') {
        section = line.substr(1, line.size() - 2);
        continue;
      }
      const std::size_t eq = line.find('=');
      if ((section != "console_scripts" && section != "gui_scripts") || eq == std::string::npos) {
        continue;
      }
      const std::string name = trim(line.substr(0, eq));
      if (name.empty() || name.find('/') != std::string::npos) {
        continue;
      }
      write_plain(env_dir + "/bin/" + name, console_script(python, line.substr(eq + 1)), 0755);
      script_records.push_back("../../../bin/" + name);
      ++placed;
    }
  }

  // RECORD as installed: the wheel's lines with .data paths moved, plus what we wrote.
  std::string data_dir = entry.dist_info.substr(0, entry.dist_info.size() - std::strlen(".dist-info")) + ".data";
  std::string record;
  const std::string record_source = entry.dir + "/site/" + entry.dist_info + "/RECORD";
  if (path_is_file(record_source)) {
    for (const std::string& line : lines_of(read_file(record_source))) {
      const std::size_t comma = line.find(',');
      const std::string path = line.substr(0, comma);
      if (line.empty() || path == entry.dist_info + "/RECORD" || path == entry.dist_info + "/INSTALLER" ||
          path == entry.dist_info + "/REQUESTED") {
        continue;
      }
      record += installed_record_path(path, data_dir) + (comma == std::string::npos ? ",," : line.substr(comma)) + "\n";
    }
  }
  for (const std::string& script : script_records) {
    if (record.find(script + ",") == std::string::npos) {
      record += script + ",,\n";
    }
  }
  write_plain(dist_info_dir + "/INSTALLER", "envbisect\n", 0644);
  write_plain(dist_info_dir + "/REQUESTED", "", 0644);
  record += entry.dist_info + "/INSTALLER,,\n" + entry.dist_info + "/REQUESTED,,\n" + entry.dist_info + "/RECORD,,\n";
  write_plain(dist_info_dir + "/RECORD", record, 0644);
  return placed;
}

std::string normalised_version(const std::string& text) {
  const auto v = Version::parse(text);
  return v ? v->to_string() : text;
}

}  // namespace

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
  const std::optional<Interpreter> interpreter = probe_interpreter(runner, python, env, request.log_dir, result);
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
  WheelSources sources{request.wheel_dirs, options.uv_cache_dirs};
  std::map<std::string, std::string> wanted;
  std::vector<Distribution> dists;
  std::vector<std::string> missing;
  for (const auto& [raw_name, pinned] : request.packages) {
    const std::string name = normalise_dist_name(raw_name);
    wanted[name] = pinned;
    if (auto dist = find_distribution(sources, name, pinned, short_version)) {
      dists.push_back(std::move(*dist));
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
  Store store(options.store_dir.empty() ? default_store_dir() : options.store_dir);
  const FileLock store_lock(store.gc_lock_path(), LockMode::shared, LockWait::yes);
  std::vector<StoreEntry> entries;
  std::map<std::string, DistMetadata> metadata;
  std::vector<std::string> broken;
  std::size_t unpacked = 0;
  for (const Distribution& dist : dists) {
    try {
      StoreEntry entry = store.ensure(dist);
      unpacked += entry.unpacked_now ? 1 : 0;
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
  std::string skeleton;
  try {
    skeleton = store.skeleton(interpreter->executable, version, [&](const std::string& temp) {
      ProcessSpec spec;
      spec.argv = {interpreter->executable, "-m", "venv", "--without-pip", temp};
      spec.env = env;
      spec.stdout_path = request.log_dir + "/venv.out.log";
      spec.stderr_path = request.log_dir + "/venv.err.log";
      spec.timeout = k_venv_timeout;
      const ProcessResult r = runner.run(spec);
      result.log_paths.push_back(spec.stdout_path);
      result.log_paths.push_back(spec.stderr_path);
      if (!r.spawned || r.exit_code != 0) {
        throw Error(process_failure("creating the venv skeleton", r, spec.stderr_path), ExitCode::bad_input);
      }
    });
  } catch (const Error& e) {
    if (e.code() == ExitCode::environment) {
      throw;
    }
    result.reason = e.what();
    return result;
  }
  const std::string site = env_dir + "/lib/python" + short_version + "/site-packages";
  std::size_t files = 0;
  std::vector<std::string> notes;
  try {
    copy_skeleton(skeleton, env_dir);
    make_dirs(site);
    for (const StoreEntry& entry : entries) {
      files += install_entry(entry, env_dir, site, result.python_path, notes);
    }
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
    spec.argv = {result.python_path, "-I", "-c", k_installed_snippet};
    spec.env = env;
    spec.stdout_path = request.log_dir + "/installed.out.log";
    spec.stderr_path = request.log_dir + "/installed.err.log";
    spec.timeout = k_probe_timeout;
    const ProcessResult r = runner.run(spec);
    result.log_paths.push_back(spec.stdout_path);
    result.log_paths.push_back(spec.stderr_path);
    if (!r.spawned || r.exit_code != 0) {
      result.reason = process_failure("listing the installed packages", r, spec.stderr_path);
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
