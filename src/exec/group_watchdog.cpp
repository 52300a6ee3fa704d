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
#include <set>
#include <string>

#include <spdlog/spdlog.h>

#include "util/fd.hpp"

namespace envbisect {

namespace {

// Process-wide by nature: one watchdog per envbisect process, reached from every runner thread.
std::atomic<int> g_watchdog_fd{-1};
std::atomic<pid_t> g_watchdog_pid{0};

// The watchdog's whole life: read "+PGID\n" / "-PGID\n" until the socket closes, then kill what is left.
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
  std::set<pid_t> groups;
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
      const pid_t pgid = static_cast<pid_t>(std::strtol(line.c_str() + 1, nullptr, 10));
      if (line[0] == '+') {
        groups.insert(pgid);
      } else {
        groups.erase(pgid);
      }
    }
  }
  for (pid_t pgid : groups) {
    ::kill(-pgid, SIGKILL);
  }
  ::_exit(0);
}

void send_line(char sign, pid_t pgid) {
  const int fd = g_watchdog_fd.load();
  if (fd < 0) {
    return;
  }
  char line[32];
  const int size = std::snprintf(line, sizeof line, "%c%d\n", sign, static_cast<int>(pgid));
  // One short send is atomic on a stream socket between threads; MSG_NOSIGNAL: a dead watchdog must
  // not take us with it.
  while (::send(fd, line, static_cast<std::size_t>(size), MSG_NOSIGNAL) < 0 && errno == EINTR) {
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

void watchdog_register(pid_t pgid) {
  send_line('+', pgid);
}

void watchdog_unregister(pid_t pgid) {
  send_line('-', pgid);
}

}  // namespace envbisect
