#include "app/runners.hpp"

#include "util/error.hpp"

namespace envbisect {

namespace {

// The executor: where a process runs.
std::unique_ptr<Runner> make_executor(const ExecutionOptions& options) {
  if (options.executor == "local") {
    return std::make_unique<LocalRunner>();
  }
  throw Error("--executor " + options.executor + ": unknown executor (local)", ExitCode::bad_input);
}

// The isolation around each run, wrapped around the executor.
std::unique_ptr<Runner> isolate(std::unique_ptr<Runner> inner, const ExecutionOptions& options) {
  if (options.isolation == "none") {
    return inner;
  }
  throw Error("--isolation " + options.isolation + ": unknown isolation (none)", ExitCode::bad_input);
}

}  // namespace

std::unique_ptr<Runner> make_runner(const ExecutionOptions& options) {
  if (options.slots < 1) {
    throw Error("--slots " + std::to_string(options.slots) + ": must be at least 1", ExitCode::bad_input);
  }
  return isolate(make_executor(options), options);
}

}  // namespace envbisect
