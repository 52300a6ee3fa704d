#include "env/venv_builder.hpp"

#include "env/requirement.hpp"
#include "env/venv_skeleton.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace envbisect {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds k_probe_timeout{60};
constexpr std::chrono::seconds k_venv_timeout{300};
constexpr std::chrono::seconds k_install_timeout{1200};
constexpr std::size_t k_max_reason_lines = 12;

// Print the interpreter's version as "X.Y.Z", then the real executable behind any shim.
constexpr const char* k_version_snippet = "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)";

// One step of a build: its argv, where its output went, and how it ended.
struct Step {
  ProcessResult result;
  std::string stdout_path;
  std::string stderr_path;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The builder's children see only what we choose: never the caller's PIP_* or PYTHON* variables.
std::map<std::string, std::string> builder_env() {
  std::map<std::string, std::string> env = detail::helper_env();
  env["PIP_NO_INPUT"] = "1";
  env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1";
  return env;
}

// Run one step with its stdout and stderr in `log_dir`/`name`.{out,err}.log.
Step run_step(Runner& runner, const std::string& name, std::vector<std::string> argv,
              const std::map<std::string, std::string>& env, const std::string& log_dir,
              std::chrono::seconds timeout, VenvResult& result) {
  Step step;
  step.stdout_path = (fs::path(log_dir) / (name + ".out.log")).string();
  step.stderr_path = (fs::path(log_dir) / (name + ".err.log")).string();
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = env;
  spec.stdout_path = step.stdout_path;
  spec.stderr_path = step.stderr_path;
  spec.timeout = timeout;
  step.result = runner.run(spec);
  result.log_paths.push_back(step.stdout_path);
  result.log_paths.push_back(step.stderr_path);
  return step;
}

// Return true when the step ran and exited 0.
bool succeeded(const Step& step) {
  return step.result.spawned && step.result.exit_code == 0;
}

// Describe how a failed step ended, with the lines of its output that say why.
std::string failure_reason(const std::string& what, const Step& step) {
  const ProcessResult& r = step.result;
  if (!r.spawned) {
    return what + ": " + r.spawn_error;
  }
  std::string reason = what;
  if (r.timed_out) {
    reason += " timed out";
  } else if (r.interrupted) {
    reason += " was interrupted";
  } else if (r.signal != 0) {
    reason += " was killed by signal " + std::to_string(r.signal);
  } else {
    reason += " failed (exit " + std::to_string(r.exit_code) + ")";
  }
  // pip and uv put the resolver's verdict on lines starting with "ERROR:"/"error:" and the
  // conflicting requirements in an indented block after "The conflict is caused by:".
  std::vector<std::string> key_lines;
  std::vector<std::string> other_lines;
  bool in_conflict = false;
  std::istringstream text(read_text(step.stderr_path) + "\n" + read_text(step.stdout_path));
  for (std::string line; std::getline(text, line);) {
    const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    if (line.rfind("ERROR:", 0) == 0 || line.rfind("error:", 0) == 0 || line.find("conflict is caused by") != std::string::npos) {
      key_lines.push_back(line);
      in_conflict = line.find("conflict is caused by") != std::string::npos;
    } else if (in_conflict && indented) {
      key_lines.push_back(line);
    } else {
      in_conflict = false;
      if (!line.empty()) {
        other_lines.push_back(line);
      }
    }
  }
  // Without recognised lines, the tail of the output is the best explanation we have.
  if (key_lines.empty() && !other_lines.empty()) {
    const std::size_t keep = std::min(other_lines.size(), std::size_t{5});
    key_lines.assign(other_lines.end() - static_cast<std::ptrdiff_t>(keep), other_lines.end());
  }
  if (key_lines.size() > k_max_reason_lines) {
    key_lines.resize(k_max_reason_lines);
  }
  for (const std::string& line : key_lines) {
    reason += "\n  " + line;
  }
  return reason;
}

// Return true when `version` ("3.11.7") starts with the dotted components of `prefix` ("3.11").
bool version_matches(const std::string& version, const std::string& prefix) {
  return version == prefix || version.rfind(prefix + ".", 0) == 0;
}

}  // namespace

std::vector<std::string> install_differences(const std::map<std::string, std::string>& wanted,
                                             const std::map<std::string, std::string>& installed) {
  std::vector<std::string> lines;
  for (const auto& [name, version] : wanted) {
    const auto found = installed.find(name);
    if (found == installed.end()) {
      lines.push_back("missing " + name + "==" + version);
    } else if (found->second != version) {
      lines.push_back(name + ": wanted " + version + ", installed " + found->second);
    }
  }
  for (const auto& [name, version] : installed) {
    if (wanted.count(name) == 0) {
      lines.push_back("unrequested " + name + "==" + version);
    }
  }
  return lines;
}

std::string interpreter_problem(Runner& runner, const std::string& python, const std::string& wanted,
                                const std::string& log_dir) {
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  if (ec) {
    throw Error("cannot create build log directory " + log_dir + ": " + ec.message(), ExitCode::environment);
  }
  VenvResult result;
  const Step probe = run_step(runner, "python-version", {python, "-I", "-c", k_version_snippet}, builder_env(),
                              log_dir, k_probe_timeout, result);
  if (!succeeded(probe)) {
    return failure_reason("checking " + python + "'s version", probe);
  }
  std::istringstream probe_output(read_text(probe.stdout_path));
  std::string version;
  std::getline(probe_output, version);
  if (!wanted.empty() && !version_matches(version, wanted)) {
    return python + " is Python " + version + ", not " + wanted;
  }
  return "";
}

namespace {

// Create the build's log folder and the environment's parent; throw Error (environment) when one
// cannot be made or the environment's folder already exists.
void prepare_build_dirs(const std::string& log_dir, const fs::path& env_dir) {
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  if (ec) {
    throw Error("cannot create build log directory " + log_dir + ": " + ec.message(), ExitCode::environment);
  }
  if (fs::exists(env_dir)) {
    throw Error("environment directory " + env_dir.string() + " already exists", ExitCode::environment);
  }
  fs::create_directories(env_dir.parent_path(), ec);
  if (ec) {
    throw Error("cannot create " + env_dir.parent_path().string() + ": " + ec.message(), ExitCode::environment);
  }
}

// Return the installer's argv up to the requirements: uv pip install (offline unless an index is
// given) or pip install from outside the venv, into `python_path`, finding links in the wheel
// folders. An index is used only when the user gives one; the default never touches a network.
std::vector<std::string> install_argv(const VenvRequest& request, const std::string& uv, const std::string& interpreter,
                                      const std::string& python_path) {
  std::vector<std::string> install = uv.empty()
      ? std::vector<std::string>{interpreter, "-m", "pip", "--isolated", "--no-input", "--disable-pip-version-check",
                                 "--python", python_path, "install"}
      : std::vector<std::string>{uv, "pip", "install", "--python", python_path};
  if (!uv.empty() && request.index_url.empty()) {
    install.push_back("--offline");
  }
  if (request.index_url.empty()) {
    install.push_back("--no-index");
  } else {
    install.push_back("--index-url");
    install.push_back(request.index_url);
  }
  for (const std::string& dir : request.wheel_dirs) {
    install.push_back("--find-links");
    install.push_back(dir);
  }
  return install;
}

}  // namespace

VenvResult build_venv(Runner& runner, const VenvRequest& request) {
  VenvResult result;
  const std::string python = request.python.empty() ? "python3" : request.python;
  const fs::path env_dir = fs::absolute(request.env_dir);
  result.python_path = (env_dir / "bin" / "python").string();

  // Harness problems first: they are errors, not reasons to skip a candidate.
  prepare_build_dirs(request.log_dir, env_dir);

  std::map<std::string, std::string> wanted;
  for (const auto& [name, version] : request.packages) {
    wanted[normalize_package_name(name)] = version;
  }
  const std::map<std::string, std::string> env = builder_env();
  const auto path_entry = env.find("PATH");
  const std::string uv = find_program("uv", path_entry == env.end() ? std::string() : path_entry->second);
  result.builder = uv.empty() ? "pip" : "uv";

  // The interpreter must be the one the state asks for, or every candidate would be off.
  const Step probe = run_step(runner, "python-version", {python, "-I", "-c", k_version_snippet}, env,
                              request.log_dir, k_probe_timeout, result);
  if (!succeeded(probe)) {
    result.reason = failure_reason("checking " + python + "'s version", probe);
    return result;
  }
  std::istringstream probe_output(read_text(probe.stdout_path));
  std::string version;
  std::string executable;
  std::getline(probe_output, version);
  std::getline(probe_output, executable);
  if (!request.python_version.empty() && !version_matches(version, request.python_version)) {
    result.reason = python + " is Python " + version + ", not " + request.python_version;
    return result;
  }
  // From here on use the interpreter itself: a pyenv shim costs 0.6 s a call and could switch
  // interpreters between steps.
  const std::string interpreter = executable.empty() ? python : executable;

  // Create the bare venv: no pip inside (6 s with it, 0.1 s without); the outer pip installs into it.
  std::vector<std::string> venv_argv = uv.empty()
      ? std::vector<std::string>{interpreter, "-m", "venv", "--without-pip", env_dir.string()}
      : std::vector<std::string>{uv, "venv", "--python", interpreter, env_dir.string()};
  const Step venv = run_step(runner, "venv", std::move(venv_argv), env, request.log_dir, k_venv_timeout, result);
  if (!succeeded(venv)) {
    result.reason = failure_reason("creating the venv", venv);
    return result;
  }

  // Install exactly the pinned set from local wheels only; the resolver still checks Requires-Dist.
  std::vector<std::string> install = install_argv(request, uv, interpreter, result.python_path);
  for (const auto& [name, pinned] : wanted) {
    const auto pin = request.pins.find(name);
    if (pin == request.pins.end() || pin->second.empty()) {
      install.push_back(name + "==" + pinned);
      continue;
    }
    // The pin chooses the file: name it, or the installer would take any build of that version.
    const WheelSources sources{request.wheel_dirs, {}};
    const std::string short_version = version.substr(0, version.rfind('.'));
    const auto dist = find_distribution(sources, name, pinned, short_version, pin->second);
    if (!dist) {
      result.reason = describe_missing_pin(sources, name, pinned, pin->second, short_version);
      return result;
    }
    install.push_back(dist->path);
  }
  if (!wanted.empty()) {
    const Step installed = run_step(runner, "install", std::move(install), env, request.log_dir, k_install_timeout, result);
    if (!succeeded(installed)) {
      result.reason = failure_reason(result.builder + " install", installed);
      return result;
    }
  }

  // Ask the environment itself what it holds: the installer's word is not the check.
  const auto listed =
      detail::importlib_installed(runner, result.python_path, env, request.log_dir, k_probe_timeout, result);
  if (!listed) {
    return result;
  }
  result.installed = *listed;
  const std::vector<std::string> diff = install_differences(wanted, result.installed);
  if (!diff.empty()) {
    result.reason = "installed packages differ from the request:";
    for (const std::string& line : diff) {
      result.reason += "\n  " + line;
    }
    return result;
  }
  // At this point the venv holds exactly the requested distributions.
  result.ok = true;
  spdlog::debug("built {} with {} ({} packages)", env_dir.string(), result.builder, result.installed.size());
  return result;
}

}  // namespace envbisect
