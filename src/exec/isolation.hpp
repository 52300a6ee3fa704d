#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/runner.hpp"

namespace envbisect {

// The container tool each benchmark run is wrapped in.
enum class IsolationKind { none, bwrap, podman, lxc };

// Whether a sandboxed run may reach the network.
enum class Network { none, host };

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

// What a sandboxed process may see, decided from the host's facts before any argv is built.
struct SandboxPlan {
  std::string root;                         // folder mounted read-only as /; "" = the host's base dirs
  std::vector<std::string> env_dirs;        // candidate environments (venvs): read-only, or in the layer
  std::vector<std::string> read_paths;      // read-only at the same path: recipe, checkouts, interpreters
  std::vector<std::string> write_paths;     // writable at the same path: the attempt folder, its caches
  std::vector<std::string> masked_paths;    // hidden under an empty tmpfs: a base interpreter's site-packages
  std::string cwd;                          // working directory inside
  Network network = Network::none;
};

// Return the plan for `spec`: read paths holding a pyvenv.cfg become env_dirs, each venv's base
// interpreter prefix becomes readable (unless under /usr) with its site-packages masked when the venv
// excludes system site-packages. Reads pyvenv.cfg files; spawns nothing.
SandboxPlan plan_sandbox(const ProcessSpec& spec, const std::string& root, Network network);

// Return the bwrap argv that runs `argv` inside `plan`: every namespace unshared (the network too
// unless plan.network is host), a read-only base, a private /tmp, /proc and /dev. Pure.
std::vector<std::string> bwrap_argv(const std::string& bwrap, const SandboxPlan& plan, bool env_in_root,
                                    const std::vector<std::string>& argv);

// Return the `podman run` argv that runs `argv` in `image` (which holds plan.env_dirs when
// `env_in_image`), passing the variables `env_names` by name from podman's own environment. Masked
// paths get the empty folder `empty_dir` bound over them (a podman tmpfs can land under a bind). Pure.
std::vector<std::string> podman_run_argv(const std::string& podman, const SandboxPlan& plan, const std::string& image,
                                         bool env_in_image, const std::vector<std::string>& env_names,
                                         const std::string& empty_dir, int timeout_seconds,
                                         const std::vector<std::string>& argv);

// Return an LXC container config for `plan` with rootfs `overlay:<lower>:<upper>` and the environment
// `env` set inside. Pure.
std::string lxc_config(const SandboxPlan& plan, const std::string& lower, const std::string& upper,
                       const std::map<std::string, std::string>& env);

// Return the lxc-execute argv that runs `argv` as container `name` with config file `config`. Pure.
std::vector<std::string> lxc_execute_argv(const std::string& lxc_execute, const std::string& lxc_path,
                                          const std::string& name, const std::string& config,
                                          const std::vector<std::string>& argv);

// Return the variables of `env` sorted by name; the names podman should pass through. Pure.
std::vector<std::string> env_names(const std::map<std::string, std::string>& env);

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
