#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/runner.hpp"
#include "exec/sandbox_plan.hpp"

namespace envbisect {

// The container tool each benchmark run is wrapped in.
enum class IsolationKind { none, bwrap, podman, lxc };

// Return the isolation kind called `name` ("none", "bwrap", "podman", "lxc"). Throw Error (bad_input)
// naming the option otherwise.
IsolationKind parse_isolation(const std::string& name);

// How each run is isolated and where the isolation keeps its layers.
struct IsolationOptions {
  IsolationKind kind = IsolationKind::none;
  std::string base;                  // "" = the host's /usr, /bin, /lib*, /etc bits, read-only; else a rootfs
                                     // folder (bwrap, lxc) or a folder or image name (podman)
  Network network = Network::none;   // no interface but lo unless the recipe asks for the network
  std::string layers_dir;            // per-candidate layers, reused by hash across runs; "" = none kept
};

// A Runner that wraps every process of an inner runner in a container (bwrap, podman or lxc). The
// inner runner does the spawning, timeouts and reaping; this one only rewrites the ProcessSpec.
class IsolatedRunner : public Runner {
public:
  // Wrap `inner`. Throw Error (bad_input) when the tool for options.kind is not installed or the base
  // does not exist.
  IsolatedRunner(std::unique_ptr<Runner> inner, IsolationOptions options);
  // Unmount the overlays this runner mounted and remove its scratch folder.
  ~IsolatedRunner() override;
  IsolatedRunner(const IsolatedRunner&) = delete;
  IsolatedRunner& operator=(const IsolatedRunner&) = delete;

  // Run `spec` inside the container; a container that cannot be prepared gives spawned=false. A spec
  // without write_paths (the harness's own steps, e.g. building a venv) runs on the inner runner as is.
  ProcessResult run(const ProcessSpec& spec) override;

private:
  ProcessResult run_bwrap(const ProcessSpec& spec, SandboxPlan plan);
  ProcessResult run_podman(const ProcessSpec& spec, SandboxPlan plan, const std::string& base);
  ProcessResult run_lxc(const ProcessSpec& spec, SandboxPlan plan, int number);
  std::string bwrap_root(const SandboxPlan& plan);
  std::string podman_base_image(const ProcessSpec& spec, const std::string& base);
  std::string podman_layer_image(const ProcessSpec& spec, const std::string& base, const std::string& image,
                                 const std::string& env_dir);
  bool tool_ok(const ProcessSpec& spec, const std::vector<std::string>& argv, const std::string& what);

  std::unique_ptr<Runner> m_inner;
  IsolationOptions m_options;
  std::string m_tool;                            // absolute path of bwrap, podman or lxc-execute
  std::string m_scratch;                         // this runner's private folder (mounts, configs, uppers)
  std::vector<std::string> m_mounts;             // overlays to unmount, in mount order
  std::map<std::string, std::string> m_roots;    // env dirs -> merged overlay root (bwrap with a base)
  std::map<std::string, std::string> m_images;   // base, or base + env dir -> podman image
  int m_runs = 0;
  // Runs may come from several slots at once: preparing layers, images and scratch folders is
  // serialized; the runs themselves are not.
  std::recursive_mutex m_prepare;
};

}  // namespace envbisect
