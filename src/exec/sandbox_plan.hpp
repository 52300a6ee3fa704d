#pragma once

// The sandbox plan and the container tools' command lines: what a sandboxed run may see, and the
// bwrap, podman and lxc argv (or config) that give it exactly that. Pure but for reading pyvenv.cfg
// files: nothing here spawns a process or mounts anything (IsolatedRunner in isolation.hpp does).

#include <map>
#include <string>
#include <vector>

#include "exec/runner.hpp"

namespace envbisect {

// Whether a sandboxed run may reach the network.
enum class Network { none, host };

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

// Where a sandbox finds plan.env_dirs: on the host (bound in at the same path), or inside its root or
// image already (an overlay layer over the root, a layer image).
enum class EnvDirs { on_host, inside };

// Return the bwrap argv that runs `argv` inside `plan`: every namespace unshared (the network too
// unless plan.network is host), a read-only base, a private /tmp, /proc and /dev. Environments inside
// plan.root are bound again from there (`env_dirs`). Pure.
std::vector<std::string> bwrap_argv(const std::string& bwrap, const SandboxPlan& plan, EnvDirs env_dirs,
                                    const std::vector<std::string>& argv);

// Return the `podman run` argv that runs `argv` in `image` (which holds plan.env_dirs when `env_dirs`
// is inside), passing the variables `env_names` by name from podman's own environment. Masked
// paths get the empty folder `empty_dir` bound over them (a podman tmpfs can land under a bind). Pure.
std::vector<std::string> podman_run_argv(const std::string& podman, const SandboxPlan& plan, const std::string& image,
                                         EnvDirs env_dirs, const std::vector<std::string>& env_names,
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

}  // namespace envbisect
