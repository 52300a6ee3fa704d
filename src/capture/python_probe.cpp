#include "capture/python_probe.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

#include "capture/command_prefix.hpp"
#include "capture/env_vars.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace envbisect {

namespace {

// The probe's source, generated from probe.py by src/capture/CMakeLists.txt.
constexpr std::string_view k_probe_script =
#include "probe_script.inc"
    ;

// Generous: importing a CUDA torch on a cold page cache takes tens of seconds.
constexpr std::chrono::seconds k_probe_timeout{300};

// Return the last `limit` characters of `text`.
std::string tail(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : "..." + text.substr(text.size() - limit);
}

}  // namespace

std::vector<std::string> probe_argv(const ProbeRequest& request) {
  nlohmann::json config = {{"env_prefixes", captured_env_prefixes()},
                           {"torch", request.torch},
                           {"timeline", request.timeline},
                           {"wheel_dirs", request.wheel_dirs}};
  if (!request.git_repos.empty()) {
    config["git_repos"] = request.git_repos;
  }
  if (!request.checkpoints_dir.empty()) {
    config["checkpoints"] = request.checkpoints_dir;
  }
  if (!request.uv_cache_dir.empty()) {
    config["uv_cache"] = request.uv_cache_dir;
  }
  return apply_command_prefix(request.prefix, {request.python, "-c", std::string(k_probe_script), config.dump()});
}

std::map<std::string, std::string> probe_env(const std::map<std::string, std::string>& parent) {
  std::map<std::string, std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG", "TMPDIR", "USER", "LOGNAME", "TERM", "UV_CACHE_DIR",
                           "XDG_CACHE_HOME"}) {
    if (auto it = parent.find(name); it != parent.end()) {
      env.insert(*it);
    }
  }
  for (const auto& [name, value] : parent) {
    if (is_captured_env_name(name)) {
      env.emplace(name, value);
    }
  }
  return env;
}

std::map<std::string, std::string> current_process_env() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::size_t equals = text.find('=');
    if (equals != std::string::npos && equals > 0) {
      env.emplace(text.substr(0, equals), text.substr(equals + 1));
    }
  }
  return env;
}

nlohmann::json run_python_probe(Runner& runner, const ProbeRequest& request,
                                const std::map<std::string, std::string>& env, const std::string& work_dir) {
  ProcessSpec spec;
  spec.argv = probe_argv(request);
  spec.env = env;
  spec.stdout_path = work_dir + "/probe.stdout";
  spec.stderr_path = work_dir + "/probe.stderr";
  spec.timeout = k_probe_timeout;
  const std::string what = request.prefix.empty() ? "the python probe (" + request.python + ")"
                                                  : "the python probe (" + display_argv(request.prefix) + " " +
                                                        request.python + ")";
  const ProcessResult result = runner.run(spec);
  if (!result.spawned) {
    throw Error("cannot start " + what + ": " + result.spawn_error, ExitCode::environment);
  }
  const std::string err = path_exists(spec.stderr_path) ? read_file(spec.stderr_path) : "";
  if (result.timed_out || result.interrupted || result.exit_code != 0) {
    const std::string how = result.timed_out     ? "timed out"
                            : result.interrupted ? "was interrupted"
                            : result.signal != 0 ? "was killed by signal " + std::to_string(result.signal)
                                                 : "exited with status " + std::to_string(result.exit_code);
    throw Error(what + " " + how + "; its stderr ends with:\n" + tail(err, 2000), ExitCode::environment);
  }
  // The report is the last line that parses as a JSON object; a prefix (ssh, pct) may print banners.
  const std::string out = read_file(spec.stdout_path);
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from <= out.size()) {
    const std::size_t newline = out.find('\n', from);
    lines.push_back(out.substr(from, newline == std::string::npos ? std::string::npos : newline - from));
    from = newline == std::string::npos ? out.size() + 1 : newline + 1;
  }
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    const std::string text = trim(*line);
    if (!text.empty() && text.front() == '{') {
      nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
      if (doc.is_object() && doc.value("probe", 0) == 1) {
        return doc;
      }
    }
  }
  throw Error(what + " printed no JSON report; its stdout ends with:\n" + tail(out, 500) + "\nstderr:\n" +
                  tail(err, 1500),
              ExitCode::environment);
}

}  // namespace envbisect
