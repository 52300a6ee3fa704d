#include "exec/remote_cleanup.hpp"

#include "exec/process_launch.hpp"
#include "exec/runner.hpp"
#include "util/fd.hpp"
#include "util/strings.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace envbisect {

bool run_cleanup_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds limit) {
  if (argv.empty()) {
    return false;
  }
  const auto path_entry = env.find("PATH");
  const std::string program = find_program(argv[0], path_entry == env.end() ? std::string() : path_entry->second);
  if (program.empty()) {
    spdlog::warn("cleanup: {} not found", argv[0]);
    return false;
  }
  UniqueFd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null.valid()) {
    return false;
  }
  LaunchPlan plan;
  plan.program = program;
  plan.argv = argv;
  plan.env = env;
  plan.stdin_fd = null.get();
  plan.stdout_fd = null.get();
  plan.stderr_fd = null.get();
  // Its own group and default signal handling (a second Ctrl-C must not stop the cleanup), and it
  // finishes even when envbisect is killed meanwhile: the remote work must still be cancelled.
  plan.die_with_parent = DieWithParent::no;
  spdlog::debug("cleanup: {}", display_argv(argv));
  LaunchedChild child(plan);
  null.reset();
  if (!child.started()) {
    spdlog::debug("cleanup: cannot start {}: {}", program, child.error());
    return false;
  }
  // Wait on the pidfd (readable once the child exits, before anyone reaps it). The orphan reaper of a
  // concurrent LocalRunner may take the status first, which only loses the answer (ECHILD), never
  // the cleanup itself.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      break;
    }
    pollfd exited{child.pidfd(), POLLIN, 0};
    const int ready = ::poll(&exited, 1, static_cast<int>(std::min<long long>(left.count(), 50)));
    if (ready > 0 || child.pidfd() < 0) {
      std::string error;
      const std::optional<int> status = child.reap(error);
      return status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
    }
  }
  ::kill(-child.pid(), SIGKILL);
  std::string error;
  child.reap(error);
  spdlog::warn("cleanup command timed out: {}", display_argv(argv));
  return false;
}

}  // namespace envbisect
