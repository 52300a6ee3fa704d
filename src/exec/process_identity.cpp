#include "exec/process_identity.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

#include "util/strings.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"

namespace envbisect {

namespace {

// Return the text of a small /proc file, read with read(2) (a process may vanish mid-read).
std::string read_proc(const std::string& path) {
  std::string text;
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return text;
  }
  char buffer[1024];
  ssize_t got = 0;
  while ((got = ::read(fd.get(), buffer, sizeof buffer)) > 0) {
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

// Parse /proc/PID/stat; nothing for a zombie or a process that is gone.
std::optional<ProcessIdentity> stat_of(pid_t pid, const std::string& boot_id) {
  const std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
  // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) {
    return std::nullopt;
  }
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  long ppid = 0;
  ProcessIdentity identity;
  long group = 0;
  long session = 0;
  if (!(rest >> state >> ppid >> group >> session) || state == "Z" || state == "X") {
    return std::nullopt;
  }
  // Fields 7..21 lie between the session and the start time (field 22).
  std::string skip;
  for (int field = 7; field <= 21; ++field) {
    rest >> skip;
  }
  if (!(rest >> identity.start_ticks)) {
    return std::nullopt;
  }
  identity.pid = pid;
  identity.group = static_cast<pid_t>(group);
  identity.session = static_cast<pid_t>(session);
  identity.boot_id = boot_id;
  return identity;
}

// Return every live process of group `group` in session `session` started no earlier than `since`.
std::vector<pid_t> group_members(const ProcessIdentity& leader, const std::string& boot_id) {
  std::vector<pid_t> members;
  // list_dir: nothing when the folder cannot be read.
  for (const std::string& name : list_dir("/proc")) {
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const std::optional<ProcessIdentity> other = stat_of(static_cast<pid_t>(std::stol(name)), boot_id);
    if (other && other->group == leader.pid && other->session == leader.session &&
        other->start_ticks >= leader.start_ticks) {
      members.push_back(other->pid);
    }
  }
  return members;
}

}  // namespace

std::string current_boot_id() {
  return trim(read_proc("/proc/sys/kernel/random/boot_id"));
}

std::optional<ProcessIdentity> identify_process(pid_t pid) {
  return stat_of(pid, current_boot_id());
}

std::vector<pid_t> end_stale_group(const ProcessIdentity& leader) {
  std::vector<pid_t> killed;
  const std::string boot_id = current_boot_id();
  if (leader.pid <= 0 || leader.boot_id.empty() || leader.boot_id != boot_id) {
    return killed;  // another boot: nothing of that session runs any more
  }
  const std::optional<ProcessIdentity> now = stat_of(leader.pid, boot_id);
  if (now && now->start_ticks != leader.start_ticks) {
    return killed;  // the pid names another program now, and so does the group id
  }
  // At this point every member found belongs to the recorded group: the leader is itself, or gone
  // while its group id is still pinned by members that started after it in its session.
  for (int round = 0; round < 3; ++round) {
    std::vector<pid_t> members = group_members(leader, boot_id);
    if (members.empty()) {
      break;
    }
    for (pid_t member : members) {
      if (::kill(member, SIGKILL) == 0) {
        killed.push_back(member);
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!group_members(leader, boot_id).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::sort(killed.begin(), killed.end());
  killed.erase(std::unique(killed.begin(), killed.end()), killed.end());
  return killed;
}

}  // namespace envbisect
