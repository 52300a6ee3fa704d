#include "env/venv_skeleton.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/install_files.hpp"
#include "env/store.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace envbisect::detail {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds k_probe_timeout{60};
constexpr std::chrono::seconds k_venv_timeout{300};

// Print {normalised name: version} of every distribution visible in the environment, as JSON.
constexpr const char* k_installed_snippet =
    "import importlib.metadata as m, json, re\n"
    "print(json.dumps({re.sub(r'[-_.]+', '-', d.metadata['Name']).lower(): d.version"
    " for d in m.distributions()}, sort_keys=True))\n";

constexpr const char* k_version_snippet =
    "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)";

// Return the text with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Run `python -I -c snippet` with `env`, its logs in `log_dir`/`name`.{out,err}.log added to
// `result.log_paths`; return its stdout, or nullopt with `result.reason` saying how `what` failed.
std::optional<std::string> run_snippet(Runner& runner, const std::string& python, const char* snippet,
                                       const std::map<std::string, std::string>& env, const std::string& log_dir,
                                       const std::string& name, std::chrono::seconds timeout, const std::string& what,
                                       VenvResult& result) {
  ProcessSpec spec;
  spec.argv = {python, "-I", "-c", snippet};
  spec.env = env;
  spec.stdout_path = log_dir + "/" + name + ".out.log";
  spec.stderr_path = log_dir + "/" + name + ".err.log";
  spec.timeout = timeout;
  const ProcessResult r = runner.run(spec);
  result.log_paths.push_back(spec.stdout_path);
  result.log_paths.push_back(spec.stderr_path);
  if (!r.spawned || r.exit_code != 0) {
    result.reason = process_failure(what, r, spec.stderr_path);
    return std::nullopt;
  }
  return read_file(spec.stdout_path);
}

}  // namespace

std::map<std::string, std::string> helper_env() {
  const std::map<std::string, std::string> parent = allowed_parent_env();
  std::map<std::string, std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG", "TMPDIR"}) {
    if (const auto found = parent.find(name); found != parent.end()) {
      env[name] = found->second;
    }
  }
  return env;
}

std::optional<std::map<std::string, std::string>> importlib_installed(Runner& runner, const std::string& python,
                                                                      const std::map<std::string, std::string>& env,
                                                                      const std::string& log_dir,
                                                                      std::chrono::seconds timeout,
                                                                      VenvResult& result) {
  const std::optional<std::string> text = run_snippet(runner, python, k_installed_snippet, env, log_dir, "installed",
                                                     timeout, "listing the installed packages", result);
  if (!text) {
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(*text).get<std::map<std::string, std::string>>();
  } catch (const nlohmann::json::exception& e) {
    result.reason = "cannot read the installed package list " + log_dir + "/installed.out.log: " + e.what();
    return std::nullopt;
  }
}

std::string process_failure(const std::string& what, const ProcessResult& r, const std::string& stderr_path) {
  if (!r.spawned) {
    return what + ": " + r.spawn_error;
  }
  std::string reason = what + (r.timed_out ? " timed out" : " failed (exit " + std::to_string(r.exit_code) + ")");
  const std::string text = read_file_or_empty(stderr_path);
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

// Asked once per process (a pyenv shim costs 0.6 s a call); the memo is keyed by what decides which
// interpreter a name means: PATH and the folder.
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
  const std::optional<std::string> text = run_snippet(runner, python, k_version_snippet, env, log_dir, "python-version",
                                                     k_probe_timeout, "checking " + python + "'s version", result);
  if (!text) {
    return std::nullopt;
  }
  std::istringstream out(*text);
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

std::optional<std::string> ensure_skeleton(Runner& runner, Store& store, const Interpreter& interpreter,
                                           const std::map<std::string, std::string>& env,
                                           const std::string& log_dir, VenvResult& result) {
  try {
    return store.skeleton(interpreter.executable, interpreter.version, [&](const std::string& temp) {
      ProcessSpec spec;
      spec.argv = {interpreter.executable, "-m", "venv", "--without-pip", temp};
      spec.env = env;
      spec.stdout_path = log_dir + "/venv.out.log";
      spec.stderr_path = log_dir + "/venv.err.log";
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
    return std::nullopt;
  }
}

void copy_skeleton(const std::string& skeleton, const std::string& env_dir) {
  copy_tree(skeleton, env_dir, LinkFiles::no);
  const std::string origin = read_file(skeleton + "/origin");
  ::unlink((env_dir + "/origin").c_str());
  std::vector<std::string> texts = {env_dir + "/pyvenv.cfg"};
  for (const std::string& name : list_dir(env_dir + "/bin")) {
    if (name.starts_with("activate") || name.starts_with("Activate")) {
      texts.push_back(env_dir + "/bin/" + name);
    }
  }
  for (const std::string& path : texts) {
    if (path_is_file(path)) {
      const std::string text = read_file(path);
      if (text.find(origin) != std::string::npos) {
        write_file_atomic(path, replace_all(text, origin, env_dir), 0644, Flush::no);
      }
    }
  }
}

}  // namespace envbisect::detail
