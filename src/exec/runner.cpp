#include "exec/runner.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

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
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

// Owns a file descriptor.
class Fd {
public:
  explicit Fd(int fd) : m_fd(fd) {}
  ~Fd() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }

private:
  int m_fd;
};

// Open an output file for the child (created or truncated), or /dev/null when `path` is empty.
int open_output(const std::string& path) {
  const std::string target = path.empty() ? "/dev/null" : path;
  const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error("cannot open " + target + " for a child's output: " + std::strerror(errno),
                ExitCode::environment);
  }
  return fd;
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
bool wait_exited(pid_t pid, int pidfd, std::chrono::steady_clock::time_point deadline, StopOnInterrupt stop) {
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
    if (pidfd >= 0) {
      pollfd entry{pidfd, POLLIN, 0};
      ::poll(&entry, 1, static_cast<int>(slice.count()));
    } else {
      std::this_thread::sleep_for(std::min(slice, std::chrono::milliseconds(5)));
    }
  }
}

// Stop the whole group: SIGTERM, a short grace for the leader, then SIGKILL for everyone left.
void kill_group(pid_t pid, int pidfd) {
  ::kill(-pid, SIGTERM);
  wait_exited(pid, pidfd, std::chrono::steady_clock::now() + k_kill_grace, StopOnInterrupt::no);
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
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return children;
  }
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    // read(2), not an ifstream: a process that exits meanwhile makes read fail with ESRCH, which
    // libstdc++'s filebuf turns into an exception whatever the stream's exception mask.
    std::string stat;
    const int fd = ::open(("/proc/" + name + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      continue;
    }
    char buffer[1024];
    ssize_t got = 0;
    while ((got = ::read(fd, buffer, sizeof buffer)) > 0) {
      stat.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
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
  ::closedir(proc);
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

// Owns posix_spawn's attribute and file-action objects.
struct SpawnSetup {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

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

  const Fd out(open_output(spec.stdout_path));
  const Fd err(open_output(spec.stderr_path));

  // stdin from /dev/null (or the spec's file), our output files on 1 and 2, nothing else inherited.
  SpawnSetup setup;
  const std::string input = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
  posix_spawn_file_actions_addopen(&setup.actions, 0, input.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, out.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, err.get(), 2);
  if (!spec.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&setup.actions, spec.cwd.c_str());
  }
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);

  // Own process group, default signal dispositions and an empty mask, whatever we have set up.
  sigset_t all_signals;
  sigset_t no_signals;
  sigfillset(&all_signals);
  sigemptyset(&no_signals);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setsigdefault(&setup.attr, &all_signals);
  posix_spawnattr_setsigmask(&setup.attr, &no_signals);

  std::vector<std::string> env_strings;
  env_strings.reserve(spec.env.size());
  for (const auto& [name, value] : spec.env) {
    env_strings.push_back(name + "=" + value);
  }
  std::vector<char*> envp;
  for (std::string& entry : env_strings) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = spec.argv;
  std::vector<char*> argv;
  for (std::string& arg : argv_copy) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);

  spdlog::debug("spawn: {}{}", display_argv(spec.argv),
                spec.cwd.empty() ? std::string() : " (in " + spec.cwd + ")");
  pid_t pid = 0;
  std::unique_lock<std::mutex> spawn_lock(g_active_mutex);
  // glibc's posix_spawn reports exec failures (ENOENT, EACCES, a bad cwd) as its return value.
  const int spawn_status = ::posix_spawn(&pid, program.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (spawn_status != 0) {
    spawn_lock.unlock();
    result.spawn_error = "cannot start " + program +
                         (spec.cwd.empty() ? std::string() : " in " + spec.cwd) + ": " + std::strerror(spawn_status);
    spdlog::debug("spawn failed: {}", result.spawn_error);
    return result;
  }
  const ActiveChild active(pid);
  spawn_lock.unlock();
  result.spawned = true;
  // At this point the child runs in process group `pid`.

  const Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  const auto deadline = spec.timeout.count() > 0 ? start + spec.timeout
                                                 : std::chrono::steady_clock::time_point::max();
  if (!wait_exited(pid, pidfd.get(), deadline, StopOnInterrupt::yes)) {
    result.interrupted = g_interrupted.load();
    result.timed_out = !result.interrupted;
    spdlog::debug("killing process group {}: {}", pid, result.timed_out ? "timeout" : "interrupted");
    kill_group(pid, pidfd.get());
  }
  // The leader has exited or is dying; leftovers of its group (forked daemons) must not outlive it.
  // Kill them while the unreaped leader still pins the group id.
  ::kill(-pid, SIGKILL);
  int status = 0;
  pid_t reaped = -1;
  do {
    reaped = ::waitpid(pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  const int wait_errno = errno;
  drain_group(pid);
  kill_escaped_descendants();

  if (reaped != pid) {
    spdlog::warn("lost the exit status of pid {}: {}", pid, std::strerror(wait_errno));
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
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
