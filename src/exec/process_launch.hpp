#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace envbisect {

// Whether a child gets SIGKILL when the thread that started it dies.
enum class DieWithParent { yes, no };

// What to start, already resolved: the program's full path, argv as given (argv[0] included), the
// child's whole environment, its working directory and the descriptors that become its stdio.
struct LaunchPlan {
  std::string program;                        // full path, executed as is
  std::vector<std::string> argv;              // passed verbatim; argv[0] need not be `program`
  std::map<std::string, std::string> env;     // the child's whole environment; nothing is inherited
  std::string cwd;                            // "" = the caller's
  int stdin_fd = -1;                          // each dup'ed onto 0, 1, 2 in the child; the caller
  int stdout_fd = -1;                         // keeps and closes its own copies
  int stderr_fd = -1;
  DieWithParent die_with_parent = DieWithParent::yes;  // no: a cleanup command outlives a killed envbisect
  int cgroup_procs_fd = -1;  // an attempt cgroup's cgroup.procs: the child moves itself there before execve
};

// One child started through Boost.Process v2 (the only translation unit that includes Boost): it leads
// its own process group, has default signal dispositions and an empty mask, inherits no descriptor but
// 0, 1 and 2, and (unless the plan says otherwise) gets SIGKILL when the thread that started it dies
// (PR_SET_PDEATHSIG).
class LaunchedChild {
public:
  // Start `plan`. Never throws for a child that cannot start: started() is false and error() says why
  // (errno's text from the step that failed: fork, chdir, execve, ...).
  explicit LaunchedChild(const LaunchPlan& plan);
  // SIGKILL the child if it was started and never reaped, and reap it.
  ~LaunchedChild();
  LaunchedChild(const LaunchedChild&) = delete;
  LaunchedChild& operator=(const LaunchedChild&) = delete;

  // Return true when the program runs (its execve succeeded).
  bool started() const { return m_pid > 0; }
  // Return why the program could not be started ("" when it was).
  const std::string& error() const { return m_error; }
  // Return the child's pid, which is also its process group id (0 when not started).
  pid_t pid() const { return m_pid; }
  // Return a pidfd for the child, readable once it has exited and before it is reaped (-1: none).
  int pidfd() const;

  // Wait for the child to exit and reap it; return its raw wait status (WIFEXITED / WIFSIGNALED tell
  // an exit code from a signal), or nullopt with `error` set when the status was lost (e.g. ECHILD).
  std::optional<int> reap(std::string& error);

private:
  struct State;
  std::unique_ptr<State> m_state;
  pid_t m_pid = 0;
  std::string m_error;
};

}  // namespace envbisect
