#include "exec/group_watchdog.hpp"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <string>

#include <spdlog/spdlog.h>

#include "exec/attempt_cgroup.hpp"
#include "util/fd.hpp"

namespace envbisect {

namespace {

// Process-wide by nature: one watchdog per envbisect process, reached from every runner thread.
std::atomic<int> g_watchdog_fd{-1};
std::atomic<pid_t> g_watchdog_pid{0};

// The watchdog's whole life: read "+PGID[ CGROUP]\n" / "-PGID\n" until the socket closes, then kill
// what is left: each group, and each attempt cgroup with everything in it.
[[noreturn]] void watch(int fd) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    std::signal(sig, SIG_IGN);
  }
  // Nothing of envbisect's but the socket: a pipeline reading our output must not wait for us.
  const int null = ::open("/dev/null", O_RDWR);
  for (int std_fd = 0; std_fd < 3; ++std_fd) {
    ::dup2(null, std_fd);
  }
  for (int other = 3; other < 1024; ++other) {
    if (other != fd) {
      ::close(other);
    }
  }
  std::map<pid_t, std::string> groups;  // group -> its attempt cgroup, "" when none
  std::string pending;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;  // envbisect is gone (or exited): end what it still had running
    }
    pending.append(buffer, static_cast<std::size_t>(got));
    std::size_t newline = 0;
    while ((newline = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      if (line.size() < 2) {
        continue;
      }
      char* end = nullptr;
      const pid_t pgid = static_cast<pid_t>(std::strtol(line.c_str() + 1, &end, 10));
      if (line[0] == '+') {
        groups[pgid] = *end == ' ' ? std::string(end + 1) : std::string();
      } else {
        groups.erase(pgid);
      }
    }
  }
  for (const auto& [pgid, cgroup] : groups) {
    ::kill(-pgid, SIGKILL);
    if (!cgroup.empty()) {
      end_attempt_cgroup(cgroup);  // what left the group (setpgid, setsid) is still in the cgroup
    }
  }
  ::_exit(0);
}

void send_line(char sign, pid_t pgid, const std::string& cgroup) {
  const int fd = g_watchdog_fd.load();
  if (fd < 0) {
    return;
  }
  std::string line = sign + std::to_string(pgid);
  if (!cgroup.empty() && cgroup.find('\n') == std::string::npos) {
    line += " " + cgroup;
  }
  line += "\n";
  // One send per line under a lock: a line longer than a socket buffer's atomic write must not
  // interleave with another thread's. MSG_NOSIGNAL: a dead watchdog must not take us with it.
  static std::mutex sending;
  const std::lock_guard<std::mutex> hold(sending);
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    sent += static_cast<std::size_t>(n);
  }
}

// At a normal exit, close our end and wait for the watchdog, so no envbisect process outlives the
// command (scripts check /proc right after it returns).
void stop_watchdog() {
  const int fd = g_watchdog_fd.exchange(-1);
  if (fd >= 0) {
    ::close(fd);
  }
  const pid_t pid = g_watchdog_pid.exchange(0);
  if (pid > 0) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace

void start_group_watchdog() {
  if (g_watchdog_fd.load() >= 0) {
    return;
  }
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    spdlog::warn("no group watchdog (socketpair: {}): benchmarks' helpers may outlive a killed envbisect",
                 std::strerror(errno));
    return;
  }
  UniqueFd ours(ends[0]);
  UniqueFd theirs(ends[1]);
  const pid_t pid = ::fork();
  if (pid < 0) {
    spdlog::warn("no group watchdog (fork: {}): benchmarks' helpers may outlive a killed envbisect",
                 std::strerror(errno));
    return;
  }
  if (pid == 0) {
    watch(theirs.get());  // never returns: the child _exits
  }
  theirs.reset();
  g_watchdog_pid.store(pid);
  g_watchdog_fd.store(ours.release());
  std::atexit(stop_watchdog);
}

void watchdog_register(pid_t pgid, const std::string& cgroup) {
  send_line('+', pgid, cgroup);
}

void watchdog_unregister(pid_t pgid) {
  send_line('-', pgid, "");
}

}  // namespace envbisect
