#include "capture/live_capture.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <unistd.h>

#include "capture/command_prefix.hpp"
#include "capture/git_facts.hpp"
#include "capture/python_probe.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

namespace fs = std::filesystem;

// Return the NAME=PATH pairs of --repo, recording malformed and repeated ones in `problems`.
std::map<std::string, std::string> parse_repo_options(const std::vector<std::string>& repos,
                                                      std::vector<std::string>& problems) {
  std::map<std::string, std::string> out;
  for (const std::string& item : repos) {
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == item.size()) {
      problems.push_back("--repo '" + item + "': expected NAME=PATH");
    } else if (!out.emplace(item.substr(0, equals), item.substr(equals + 1)).second) {
      problems.push_back("--repo " + item.substr(0, equals) + " given twice");
    }
  }
  return out;
}

std::string interpreter_of(const LiveCaptureRequest& request) {
  if (!request.venv.empty()) {
    return request.venv + "/bin/python";
  }
  return request.python.empty() ? "python3" : request.python;
}

// A temporary folder for the probe's output, removed when this goes out of scope.
class ScratchDir {
public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/envbisect-capture-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a temporary folder " + pattern, ExitCode::environment);
    }
    m_path = pattern;
  }
  ~ScratchDir() { remove_tree(m_path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
};

}  // namespace

void check_live_capture_request(const LiveCaptureRequest& request) {
  std::vector<std::string> problems;
  if (!request.python.empty() && !request.venv.empty()) {
    problems.push_back("--python and --venv name the interpreter twice; give one");
  }
  std::vector<std::string> prefix;
  try {
    prefix = split_command_prefix(request.via);
  } catch (const Error& error) {
    problems.push_back(error.what());
  }
  if (!request.via.empty() && prefix.empty()) {
    problems.push_back("--via '" + request.via + "': no command in it");
  }
  parse_repo_options(request.repos, problems);
  if (request.state_path.empty()) {
    problems.push_back("-o FILE: where to write the state is required");
  }
  // Paths on the target can only be checked locally when there is no --via.
  if (prefix.empty()) {
    if (!request.venv.empty() && !path_exists(request.venv + "/bin/python")) {
      problems.push_back("--venv " + request.venv + ": no bin/python in it (not a virtual environment)");
    }
    if (!request.python.empty() && request.python.find('/') != std::string::npos && !path_exists(request.python)) {
      problems.push_back("--python " + request.python + ": no such file");
    }
    if (!request.checkpoints_dir.empty() && !fs::is_directory(request.checkpoints_dir)) {
      problems.push_back("--checkpoints " + request.checkpoints_dir + ": not a folder");
    }
    if (!request.uv_cache_dir.empty() && !fs::is_directory(request.uv_cache_dir)) {
      problems.push_back("--uv-cache " + request.uv_cache_dir + ": not a folder");
    }
    for (const std::string& dir : request.wheel_dirs) {
      if (!fs::is_directory(dir)) {
        problems.push_back("--wheels " + dir + ": not a folder");
      }
    }
  }
  if (problems.size() == 1) {
    throw Error(problems.front());
  }
  if (!problems.empty()) {
    throw Error(std::to_string(problems.size()) + " problems:\n  " + join(problems, "\n  "));
  }
}

LiveCapture capture_live(Runner& runner, const LiveCaptureRequest& request) {
  check_live_capture_request(request);
  // At this point every option is valid.
  LiveCapture live;
  std::vector<std::string> unused;
  const std::string cwd = fs::current_path().string();
  const std::vector<std::string> prefix = split_command_prefix(request.via);
  live.local = prefix.empty();
  for (const auto& [name, path] : parse_repo_options(request.repos, unused)) {
    live.repo_paths[name] = live.local ? absolute_path(path, cwd) : path;
  }

  // Local folders are made absolute: the probe runs elsewhere than our working directory only in name.
  ProbeRequest probe;
  probe.python = interpreter_of(request);
  probe.prefix = prefix;
  probe.timeline = request.timeline;
  if (live.local) {
    if (probe.python.find('/') != std::string::npos) {
      probe.python = absolute_path(probe.python, cwd);
    }
    probe.checkpoints_dir = request.checkpoints_dir.empty() ? "" : absolute_path(request.checkpoints_dir, cwd);
    probe.uv_cache_dir = request.uv_cache_dir.empty() ? "" : absolute_path(request.uv_cache_dir, cwd);
    for (const std::string& dir : request.wheel_dirs) {
      probe.wheel_dirs.push_back(absolute_path(dir, cwd));
    }
  } else {
    probe.checkpoints_dir = request.checkpoints_dir;
    probe.uv_cache_dir = request.uv_cache_dir;
    probe.wheel_dirs = request.wheel_dirs;
    // Through --via the repositories are on the target's disk: its git CLI reads them.
    probe.git_repos = live.repo_paths;
  }

  // Run the probe with the variables a job started from this shell would see.
  const ScratchDir scratch;
  live.probe = run_python_probe(runner, probe, probe_env(current_process_env()), scratch.path());

  CaptureInputs inputs;
  inputs.probe = live.probe;
  inputs.via = prefix;
  inputs.state_dir = parent_dir(absolute_path(request.state_path, cwd));
  inputs.name = fs::path(request.state_path).stem().string();
  if (live.local) {
    for (const auto& [name, path] : live.repo_paths) {
      inputs.repos[name] = read_repo_facts(path);
    }
  } else {
    inputs.repos = repo_facts_from_probe(live.probe);
    inputs.state_dir.clear();  // remote paths stay as the target knows them
  }
  live.capture = build_capture(inputs);
  return live;
}

}  // namespace envbisect
