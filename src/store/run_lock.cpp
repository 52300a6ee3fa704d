#include "store/run_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

std::string lock_path(const std::string& run_dir) {
  return run_dir + "/lock";
}

// Return the lock file's text (what its holder wrote), trimmed; "" when it cannot be read.
std::string holder_text(int fd) {
  char buffer[256];
  const ssize_t got = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (got <= 0) {
    return "";
  }
  return trim(std::string(buffer, static_cast<std::size_t>(got)));
}

// Return whether the holder text names a process ("pid N (envbisect run)") that no longer exists.
bool holder_gone(const std::string& holder) {
  if (holder.rfind("pid ", 0) != 0) {
    return false;
  }
  const long pid = std::strtol(holder.c_str() + 4, nullptr, 10);
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string run_dir_busy_message(const std::string& run_dir, const std::string& holder) {
  return run_dir + ": in use by " + (holder.empty() ? std::string("another process") : holder) +
         "; wait for it to finish (or stop it) before running or resuming here";
}

RunLock::RunLock(const std::string& run_dir, const std::string& command) {
  const std::string path = lock_path(run_dir);
  m_fd.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!m_fd.valid()) {
    throw Error(path + ": cannot open the run folder's lock: " + std::strerror(errno), ExitCode::environment);
  }
  // A holder that is gone (killed) can leave the lock held for a moment by a child it forked, between
  // fork and exec or dying of its parent's death signal: wait that moment out, never a live holder.
  const auto patience = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (::flock(m_fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) {
      continue;
    }
    const int error = errno;
    std::string holder = error == EWOULDBLOCK ? holder_text(m_fd.get()) : std::string();
    if (error == EWOULDBLOCK && holder_gone(holder) && std::chrono::steady_clock::now() < patience) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    m_fd.reset();
    if (error == EWOULDBLOCK) {
      throw Error(run_dir_busy_message(run_dir, holder), ExitCode::environment);
    }
    throw Error(path + ": cannot lock the run folder: " + std::strerror(error), ExitCode::environment);
  }
  // At this point we own the folder: say who, for the next process that finds it locked.
  const std::string text = "pid " + std::to_string(::getpid()) + " (envbisect " + command + ")\n";
  if (::ftruncate(m_fd.get(), 0) != 0 || ::pwrite(m_fd.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    // The lock holds without the text; only the refusal message of a second user gets vaguer.
  }
}

std::optional<std::string> run_dir_holder(const std::string& run_dir) {
  const UniqueFd fd(::open(lock_path(run_dir).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    return std::nullopt;
  }
  std::optional<std::string> holder;
  int status = 0;
  while ((status = ::flock(fd.get(), LOCK_SH | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (status != 0 && errno == EWOULDBLOCK) {
    holder = holder_text(fd.get());
  }
  return holder;
}

}  // namespace envbisect
