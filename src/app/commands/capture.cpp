#include "app/commands/capture.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "capture/live_capture.hpp"
#include "capture/rootfs.hpp"
#include "core/state.hpp"
#include "exec/runner.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect {

std::string facts_path_for(const std::string& state_path) {
  const std::string suffix = ".json";
  if (state_path.size() > suffix.size() && state_path.compare(state_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return state_path.substr(0, state_path.size() - suffix.size()) + ".facts.json";
  }
  return state_path + ".facts.json";
}

ExitCode run_capture(const CaptureOptions& options, std::ostream& out) {
  // The state's folder first: a missing one is created, an impossible one named, before the probes run.
  make_dirs(parent_dir(options.out_path));

  // Read the machine: the probe in the target interpreter, repositories, caches, variables.
  LiveCaptureRequest request;
  request.python = options.python;
  request.venv = options.venv;
  request.repos = options.repos;
  request.via = options.via;
  request.state_path = options.out_path;
  LocalRunner runner;
  const LiveCapture live = capture_live(runner, request);

  // The container base: a root filesystem and the Debian packages installed in it.
  EnvState captured_state = live.capture.state;
  if (!options.rootfs.empty()) {
    captured_state.container.base = absolute_path(options.rootfs, std::filesystem::current_path().string());
    captured_state.container.packages = read_rootfs_packages(runner, captured_state.container.base);
  }

  // The state must load back exactly as `diff` and `run` will read it; anything else is our bug.
  const nlohmann::json state = state_to_json(captured_state);
  parse_state(state.dump(), options.out_path);

  // Write the state, then its facts; each atomically, so a reader never sees half a file.
  write_file_atomic(options.out_path, state.dump(2) + "\n");
  nlohmann::json facts = live.capture.facts;
  facts["state"] = options.out_path;
  const std::string facts_path = facts_path_for(options.out_path);
  write_file_atomic(facts_path, facts.dump(2) + "\n");

  for (const std::string& warning : live.capture.warnings) {
    spdlog::warn("{}", warning);
  }
  const EnvState& captured = captured_state;
  const auto n = [](std::size_t count) { return static_cast<long long>(count); };
  out << "captured " << counted(n(captured.packages.size()), "package") << ", " << counted(n(captured.repos.size()), "repo")
      << ", " << counted(n(captured.caches.size()), "cache") << ", " << counted(n(captured.env.size()), "variable")
      << (captured.container.base.empty()
              ? ""
              : ", " + counted(n(captured.container.packages.size()), "Debian package") + " of " + captured.container.base)
      << " from "
      << live.probe["python"].value("executable", std::string("?")) << " into " << options.out_path
      << " (facts: " << facts_path << ")\n";
  return ExitCode::ok;
}

}  // namespace envbisect
