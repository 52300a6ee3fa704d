#include "exec/runner.hpp"

#include "exec/attempt_cgroup.hpp"

#include "exec/group_watchdog.hpp"
#include "exec/process_launch.hpp"

#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/strings.hpp"
#include "util/fs.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <mutex>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace envbisect {

namespace {

// Process-wide by nature: a signal handler can only talk to the rest of the program through a flag.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

// Children that some run() is waiting for: the orphan reaper must not steal their exit status.
std::mutex g_active_mutex;
std::set<pid_t> g_active_children;

constexpr std::chrono::milliseconds k_poll_slice{50};      // how often interrupts are noticed
constexpr std::chrono::milliseconds k_kill_grace{500};     // SIGTERM -> SIGKILL
constexpr std::chrono::milliseconds k_group_drain{500};    // wait for killed group members to vanish

void on_interrupt(int /*signal*/) {
  g_interrupted.store(true);
}

// A child is registered as active for as long as run() may still wait for it. The caller holds
// g_active_mutex from the spawn to the registration, so no reaper can take the child in between.
class ActiveChild {
public:
  explicit ActiveChild(pid_t pid) : m_pid(pid) { g_active_children.insert(m_pid); }
  ~ActiveChild() {
    const std::lock_guard<std::mutex> lock(g_active_mutex);
    g_active_children.erase(m_pid);
  }
  ActiveChild(const ActiveChild&) = delete;
  ActiveChild& operator=(const ActiveChild&) = delete;

private:
  pid_t m_pid;
};

// Reap every exited descendant that was reparented to us, leaving other runs' own children alone.
void reap_orphans() {
  for (;;) {
    // Peek and reap under the lock, so a child spawned meanwhile is already registered.
    const std::lock_guard<std::mutex> lock(g_active_mutex);
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
      return;
    }
    if (g_active_children.count(info.si_pid) != 0) {
      return;  // another run() reaps that one; the next pass picks up what is left
    }
    ::waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

bool is_subreaper() {
  int value = 0;
  return ::prctl(PR_GET_CHILD_SUBREAPER, &value) == 0 && value != 0;
}

enum class StopOnInterrupt { no, yes };

// Wait until `pid` has exited (left as a zombie, not reaped) or `deadline` passes (or an interrupt
// arrives, when asked); true if it exited. The zombie keeps the pid, and with it the process group
// id, from being reused while we kill.
bool wait_exited(pid_t pid, int pidfd, std::chrono::steady_clock::time_point deadline, StopOnInterrupt stop,
                 ChildOutput& output) {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      return true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline || (stop == StopOnInterrupt::yes && g_interrupted.load())) {
      return false;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    const auto slice = std::min(left + std::chrono::milliseconds(1), k_poll_slice);
    // The child's output is moved into its logs while we wait: a full pipe would stall it.
    output.pump(pidfd, pidfd >= 0 ? slice : std::min(slice, std::chrono::milliseconds(5)));
  }
}

// Stop the whole group: SIGTERM, a short grace for the leader, then SIGKILL for everyone left.
void kill_group(pid_t pid, int pidfd, ChildOutput& output) {
  ::kill(-pid, SIGTERM);
  wait_exited(pid, pidfd, std::chrono::steady_clock::now() + k_kill_grace, StopOnInterrupt::no, output);
  ::kill(-pid, SIGKILL);
}

// Wait for the leftover members of group `pgid` to disappear, reaping those reparented to us.
void drain_group(pid_t pgid) {
  if (!is_subreaper()) {
    reap_orphans();
    return;  // orphans belong to init, which reaps when it likes: do not wait for it
  }
  const auto deadline = std::chrono::steady_clock::now() + k_group_drain;
  for (;;) {
    reap_orphans();
    if (::kill(-pgid, 0) != 0 && errno == ESRCH) {
      return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn("process group {} still has members after SIGKILL", pgid);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Return the processes whose parent is this process and whose session is another one (they called
// setsid(), as daemons do), read from /proc, zombies included. Children in our own session are ours
// by spawn (runs, cleanup commands) or still in a run's group, which the group kill reaches.
std::vector<pid_t> escaped_children() {
  std::vector<pid_t> children;
  const long own_session = static_cast<long>(::getsid(0));
  const pid_t self = ::getpid();
  // list_dir: nothing when the folder cannot be read.
  for (const std::string& name : list_dir("/proc")) {
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    // read(2), not an ifstream: a process that exits meanwhile makes read fail with ESRCH, which
    // libstdc++'s filebuf turns into an exception whatever the stream's exception mask.
    std::string stat;
    const UniqueFd fd(::open(("/proc/" + name + "/stat").c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      continue;
    }
    char buffer[1024];
    ssize_t got = 0;
    while ((got = ::read(fd.get(), buffer, sizeof buffer)) > 0) {
      stat.append(buffer, static_cast<std::size_t>(got));
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) {
      continue;
    }
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    long pgrp = 0;
    long session = 0;
    if (rest >> state >> ppid >> pgrp >> session && ppid == self && session != own_session) {
      children.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return children;
}

// Kill and reap every process reparented to us from another session: daemons that left the benchmark's
// process group with setsid() after a double fork, and what they started (reparented to us in turn).
// While another run() is active its daemons cannot be told from ours, so the last run() to finish
// kills them. Processes that only changed their group (setpgid) are not found this way.
void kill_escaped_descendants() {
  if (!is_subreaper()) {
    return;  // orphans went to init: not ours to find
  }
  const auto deadline = std::chrono::steady_clock::now() + k_group_drain;
  for (;;) {
    std::vector<pid_t> orphans;
    {
      const std::lock_guard<std::mutex> lock(g_active_mutex);
      if (g_active_children.size() > 1) {
        return;
      }
      for (pid_t child : escaped_children()) {
        if (g_active_children.count(child) == 0) {
          orphans.push_back(child);
        }
      }
    }
    if (orphans.empty()) {
      return;
    }
    for (pid_t orphan : orphans) {
      spdlog::debug("killing pid {}: it outlived its benchmark's process group", orphan);
      ::kill(orphan, SIGKILL);
    }
    reap_orphans();
    if (std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn("{} processes outlived their benchmark and SIGKILL", orphans.size());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string find_program(const std::string& program, const std::string& path_list) {
  if (program.find('/') != std::string::npos) {
    return program;
  }
  if (program.empty()) {
    return "";
  }
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = path_list.find(':', begin);
    std::string dir = path_list.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) {
      dir = ".";  // POSIX: an empty PATH entry means the current directory
    }
    const std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) {
      return candidate;
    }
    if (end == std::string::npos) {
      return "";
    }
    begin = end + 1;
  }
}

ProcessResult LocalRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  const auto start = std::chrono::steady_clock::now();
  if (spec.argv.empty()) {
    result.spawn_error = "empty argv";
    return result;
  }
  if (g_interrupted.load()) {
    result.interrupted = true;
    result.spawn_error = "not started: interrupted";
    return result;
  }

  // Resolve argv[0] on the child's PATH, not ours: the child's environment is the one that counts.
  const auto path_entry = spec.env.find("PATH");
  const std::string path_list = path_entry == spec.env.end() ? std::string() : path_entry->second;
  const std::string program = find_program(spec.argv[0], path_list);
  if (program.empty()) {
    result.spawn_error = spec.argv[0] + ": program not found on PATH '" + path_list + "'";
    spdlog::debug("spawn failed: {}", result.spawn_error);
    return result;
  }

  ChildOutput output(spec.stdout_path, spec.stderr_path, spec.max_log_bytes);
  const std::string input = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
  const UniqueFd input_fd(::open(input.c_str(), O_RDONLY | O_CLOEXEC));
  if (input_fd.get() < 0) {
    result.spawn_error = "cannot start " + program + ": stdin " + input + ": " + std::strerror(errno);
    output.close_child_ends();
    output.finish();
    spdlog::debug("spawn failed: {}", result.spawn_error);
    return result;
  }
  LaunchPlan plan;
  plan.program = program;
  plan.argv = spec.argv;
  plan.env = spec.env;
  plan.cwd = spec.cwd;
  plan.stdin_fd = input_fd.get();
  plan.stdout_fd = output.child_stdout();
  plan.stderr_fd = output.child_stderr();
  // A cgroup of its own where the machine allows it: what the attempt starts cannot leave it.
  const std::unique_ptr<AttemptCgroup> cgroup = AttemptCgroup::create();
  plan.cgroup_procs_fd = cgroup ? cgroup->procs_fd() : -1;

  spdlog::debug("spawn: {}{}", display_argv(spec.argv),
                spec.cwd.empty() ? std::string() : " (in " + spec.cwd + ")");
  // Spawning and registering happen under the lock, so no reaper can take the child in between.
  std::unique_lock<std::mutex> spawn_lock(g_active_mutex);
  LaunchedChild child(plan);
  output.close_child_ends();
  if (!child.started()) {
    spawn_lock.unlock();
    output.finish();
    result.spawn_error = "cannot start " + program + (spec.cwd.empty() ? std::string() : " in " + spec.cwd) + ": " +
                         child.error();
    spdlog::debug("spawn failed: {}", result.spawn_error);
    return result;
  }
  const pid_t pid = child.pid();
  const ActiveChild active(pid);
  spawn_lock.unlock();
  result.spawned = true;
  // At this point the child runs `program` in process group `pid`, and dies if we do; the watchdog
  // ends the rest of its group if we die.
  watchdog_register(pid, cgroup ? cgroup->path() : std::string());
  if (spec.on_spawn) {
    if (std::optional<ProcessIdentity> identity = identify_process(pid)) {
      identity->cgroup = cgroup ? cgroup->path() : std::string();
      spec.on_spawn(*identity);
    }
  }

  const auto deadline = spec.timeout.count() > 0 ? start + spec.timeout
                                                 : std::chrono::steady_clock::time_point::max();
  if (!wait_exited(pid, child.pidfd(), deadline, StopOnInterrupt::yes, output)) {
    result.interrupted = g_interrupted.load();
    result.timed_out = !result.interrupted;
    spdlog::debug("killing process group {}: {}", pid, result.timed_out ? "timeout" : "interrupted");
    kill_group(pid, child.pidfd(), output);
  }
  // The leader has exited or is dying; leftovers of its group (forked daemons) must not outlive it.
  // Kill them while the unreaped leader still pins the group id.
  ::kill(-pid, SIGKILL);
  if (cgroup) {
    // Everything else it started, in whatever group or session: the cgroup holds them all.
    cgroup->kill_all();
  }
  watchdog_unregister(pid);
  std::string reap_error;
  const std::optional<int> status = child.reap(reap_error);
  drain_group(pid);
  kill_escaped_descendants();
  reap_orphans();  // the cgroup's killed members reparented to us
  result.log_bytes_cut = output.finish();
  if (result.log_bytes_cut > 0) {
    spdlog::warn("{}: {} bytes of output cut (logs are capped at {} bytes each)",
                 spec.stdout_path.empty() ? spec.stderr_path : spec.stdout_path, result.log_bytes_cut,
                 spec.max_log_bytes);
  }

  if (!status) {
    spdlog::warn("lost the exit status of pid {}: {}", pid, reap_error);
  } else if (WIFEXITED(*status)) {
    result.exit_code = WEXITSTATUS(*status);
  } else if (WIFSIGNALED(*status)) {
    result.signal = WTERMSIG(*status);
  }
  result.wall_seconds = seconds_since(start);
  spdlog::debug("pid {} ended: exit {} signal {}{} after {:.3f} s", pid, result.exit_code, result.signal,
                result.timed_out ? " (timeout)" : "", result.wall_seconds);
  return result;
}

void install_process_guards() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    spdlog::warn("cannot become a child subreaper: {}", std::strerror(errno));
  }
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // poll() still wakes up with EINTR; other I/O is not disturbed
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() {
  return g_interrupted.load();
}

std::map<std::string, std::string> allowed_parent_env(InheritCudaDevices cuda) {
  std::vector<std::string> names = {"PATH", "HOME", "LANG", "TMPDIR", "USER", "LOGNAME", "TERM"};
  if (cuda == InheritCudaDevices::yes) {
    names.emplace_back("CUDA_VISIBLE_DEVICES");
  }
  std::map<std::string, std::string> env;
  for (const std::string& name : names) {
    if (const char* value = std::getenv(name.c_str())) {
      env[name] = value;
    }
  }
  return env;
}

}  // namespace envbisect
