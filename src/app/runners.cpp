#include "app/runners.hpp"

#include "env/store.hpp"
#include "exec/isolation.hpp"
#include "exec/slurm_runner.hpp"
#include "exec/ssh_runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

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

}  // namespace envbisect
