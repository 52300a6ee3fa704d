#include "exec/remote_cleanup.hpp"

#include "exec/runner.hpp"
#include "util/strings.hpp"

#include <spdlog/spdlog.h>

#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>

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
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : env) {
    env_strings.push_back(name + "=" + value);
  }
  std::vector<char*> envp;
  for (std::string& entry : env_strings) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  std::vector<char*> args;
  for (std::string& arg : argv_copy) {
    args.push_back(arg.data());
  }
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // Its own group, and default signal handling: a second Ctrl-C must not stop the cleanup.
  sigset_t all_signals;
  sigset_t no_signals;
  sigfillset(&all_signals);
  sigemptyset(&no_signals);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  spdlog::debug("cleanup: {}", display_argv(argv));
  pid_t pid = 0;
  const int status_spawn = ::posix_spawn(&pid, program.c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (status_spawn != 0) {
    return false;
  }
  // Poll with WNOHANG: the orphan reaper of a concurrent LocalRunner may take the status first, which
  // only loses the answer (ECHILD), never the cleanup itself.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
    if (reaped == pid) {
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    if (reaped < 0) {
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      spdlog::warn("cleanup command timed out: {}", display_argv(argv));
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace envbisect
