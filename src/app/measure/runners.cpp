#include "app/measure/runners.hpp"

#include "env/store.hpp"
#include "exec/isolation.hpp"
#include "exec/slurm_runner.hpp"
#include "exec/staging.hpp"
#include "exec/ssh_runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <filesystem>
#include <unistd.h>

namespace envbisect {

namespace {

// The executor: where a process runs.
std::unique_ptr<Runner> make_executor(const ExecutionOptions& options) {
  if (options.executor == "local") {
    return std::make_unique<LocalRunner>();
  }
  if (options.executor == "ssh") {
    return std::make_unique<SshRunner>(SshTarget{options.host, options.prefix, options.ssh_config});
  }
  if (options.executor == "slurm") {
    return std::make_unique<SlurmRunner>(SlurmTarget{options.slurm_gpus, options.slurm_partition});
  }
  throw Error("--executor " + options.executor + ": unknown executor (local, ssh, slurm)", ExitCode::bad_input);
}

// The isolation around each run, wrapped around the executor.
std::unique_ptr<Runner> isolate(std::unique_ptr<Runner> inner, const ExecutionOptions& options) {
  IsolationOptions isolation;
  isolation.kind = parse_isolation(options.isolation);
  if (isolation.kind == IsolationKind::none) {
    return inner;
  }
  isolation.base = options.isolation_base;
  isolation.network = options.isolation_network ? Network::host : Network::none;
  // Layers sit beside the environment store they are made from (hard links need the same filesystem).
  isolation.layers_dir = parent_dir(default_store_dir()) + "/layers";
  return std::make_unique<IsolatedRunner>(std::move(inner), isolation);
}

}  // namespace

std::unique_ptr<Runner> make_runner(const ExecutionOptions& options) {
  if (options.slots < 1) {
    throw Error("--slots " + std::to_string(options.slots) + ": must be at least 1", ExitCode::bad_input);
  }
  return isolate(make_executor(options), options);
}

Execution make_execution(const ExecutionOptions& options) {
  Execution out;
  if (options.remote_root.empty()) {
    out.runner = make_runner(options);
    return out;
  }
  if (options.executor != "ssh") {
    throw Error("--remote-root: needs --executor ssh (Slurm nodes share the filesystem)", ExitCode::bad_input);
  }
  if (options.isolation != "none") {
    throw Error("--remote-root: cannot be combined with --isolation " + options.isolation, ExitCode::bad_input);
  }
  if (options.slots < 1) {
    throw Error("--slots " + std::to_string(options.slots) + ": must be at least 1", ExitCode::bad_input);
  }
  if (options.remote_root.front() != '/' || options.remote_root.find_first_not_of('/') == std::string::npos) {
    throw Error("--remote-root " + options.remote_root + ": must be an absolute folder other than /", ExitCode::bad_input);
  }
  out.bundle_dir = options.remote_bundle;
  if (out.bundle_dir.empty()) {
    // A bundle made by scripts/bundle holds BUNDLE.txt beside its envbisect.
    std::error_code ec;
    std::string self = std::filesystem::canonical("/proc/self/exe", ec).string();
    std::string dir = parent_dir(self);
    if (!path_exists(dir + "/BUNDLE.txt") && path_exists(parent_dir(dir) + "/BUNDLE.txt")) {
      dir = parent_dir(dir);  // the wrapper form: DIR/lib/envbisect.bin
    }
    if (ec || !path_exists(dir + "/BUNDLE.txt")) {
      throw Error("--remote-root: the remote side builds environments with a bundled envbisect; this one (" + self +
                      ") is not a bundle: make one with `scripts/bundle --out DIR` and pass --remote-bundle DIR",
                  ExitCode::bad_input);
    }
    out.bundle_dir = dir;
  }
  out.bundle_dir = absolute_path(out.bundle_dir, ".");
  if (::access((out.bundle_dir + "/envbisect").c_str(), X_OK) != 0) {
    throw Error("--remote-bundle " + options.remote_bundle + ": no executable envbisect in " + out.bundle_dir +
                    " (make one with scripts/bundle --out DIR)",
                ExitCode::bad_input);
  }
  auto staging = std::make_unique<StagingRunner>(SshTarget{options.host, options.prefix, options.ssh_config},
                                                 options.remote_root);
  out.staging = staging.get();
  out.runner = std::move(staging);
  return out;
}

}  // namespace envbisect
