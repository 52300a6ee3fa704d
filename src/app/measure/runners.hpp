#pragma once

#include <memory>
#include <string>

#include "exec/runner.hpp"

namespace envbisect {

// Where and how benchmark processes run: the executor (this machine, a host over ssh, Slurm), how many
// run at once, and the isolation each run gets.
struct ExecutionOptions {
  std::string executor = "local";   // "local", "ssh" or "slurm"
  std::string host;                 // ssh: user@host
  std::string prefix;               // ssh: command prefix on the remote side, e.g. "pct exec 200 --"
  int slots = 1;                    // candidates measured at once
  std::string ssh_config;           // ssh: `ssh -F FILE`; "" = the user's own configuration
  int slurm_gpus = 0;               // slurm: `--gres=gpu:N` per job; 0 = no GPUs asked for
  std::string slurm_partition;      // slurm: `--partition`; "" = the cluster's default
  std::string isolation = "none";   // "none", "bwrap", "podman" or "lxc"
  std::string isolation_base;       // container base: a rootfs folder or an image; "" = the host's /usr
  bool isolation_network = false;   // let isolated runs reach the network (the recipe's "network": true)
  std::string remote_root;          // ssh without a shared filesystem: stage everything under this
                                    // remote folder and build environments there; "" = same paths
  std::string remote_bundle;        // with remote_root: the local envbisect bundle (scripts/bundle) sent
                                    // to build environments; "" = the running envbisect's own bundle
};

class StagingRunner;

// The runner `options` ask for, and the staging runner under it when environments are built on the
// remote side (remote_root set), with the bundle folder to send there.
struct Execution {
  std::unique_ptr<Runner> runner;
  StagingRunner* staging = nullptr;  // owned by `runner` (it is `runner` itself); null without remote_root
  std::string bundle_dir;            // with staging: the bundle's local folder (holds an executable envbisect)
};

// Return the execution that `options` ask for. Throw Error (bad_input) naming the option when it
// cannot be made: what make_runner refuses, --remote-root without --executor ssh or with --isolation,
// or no bundle (the running envbisect is not one and --remote-bundle is not given or lacks envbisect).
Execution make_execution(const ExecutionOptions& options);

// Return the runner that `options` ask for. Throw Error (bad_input) naming the option when it cannot
// be made (an unknown executor, ssh without a host, a missing container tool).
std::unique_ptr<Runner> make_runner(const ExecutionOptions& options);

}  // namespace envbisect
