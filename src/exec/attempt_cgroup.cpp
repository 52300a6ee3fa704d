#include "exec/attempt_cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "util/fs.hpp"

namespace envbisect {

namespace {

constexpr std::chrono::milliseconds k_empty_wait{1000};  // for a killed cgroup to empty

// Undo the octal escapes of a /proc/self/mountinfo path ("\040" is a space).
std::string unescape_mount_path(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      out += static_cast<char>(std::strtol(text.substr(i + 1, 3).c_str(), nullptr, 8));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Return the mount point of the cgroup v2 hierarchy, "" when none is mounted.
std::string cgroup2_mount() {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) {
      continue;
    }
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, mount_point;
    if (fields >> id >> parent >> device >> root >> mount_point) {
      return unescape_mount_path(mount_point);
    }
  }
  return "";
}

// Return this process's cgroup v2 path ("0::PATH" in /proc/self/cgroup), "" when it has none.
std::string own_cgroup_path() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    if (line.rfind("0::", 0) == 0) {
      return line.substr(3);
    }
  }
  return "";
}

// Remove the empty attempt cgroups under `root` whose envbisect no longer runs (one killed between
// making a cgroup and journaling its process, or never resumed). rmdir refuses a populated one:
// what still runs there is left for `resume` to end.
void remove_dead_owners_cgroups(const std::string& root) {
  // list_dir: nothing when the folder cannot be read.
  for (const std::string& name : list_dir(root)) {
    const std::string prefix = "envbisect-";
    const std::size_t dash = name.find('-', prefix.size());
    if (name.rfind(prefix, 0) != 0 || dash == std::string::npos) {
      continue;
    }
    const std::string pid_text = name.substr(prefix.size(), dash - prefix.size());
    if (pid_text.empty() || pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const auto pid = static_cast<pid_t>(std::stol(pid_text));
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
      ::rmdir((root + "/" + name).c_str());
    }
  }
}

Containment find_containment() {
  Containment found;
  const char* setting = std::getenv("ENVBISECT_CGROUP");
  if (setting != nullptr && std::string(setting) == "off") {
    found.reason = "ENVBISECT_CGROUP=off";
    return found;
  }
  const std::string mount = cgroup2_mount();
  if (mount.empty()) {
    found.reason = "no cgroup v2 hierarchy is mounted";
    return found;
  }
  const std::string own = own_cgroup_path();
  if (own.empty() || own.find("/..") != std::string::npos) {
    found.reason = "this process has no cgroup v2 path";
    return found;
  }
  std::string root = mount + (own == "/" ? "" : own);
  // Moving a process between two cgroups needs write access to their common ancestor's cgroup.procs:
  // ours, as the attempt cgroups are made inside it.
  if (::access(root.c_str(), W_OK) != 0 || ::access((root + "/cgroup.procs").c_str(), W_OK) != 0) {
    found.reason = root + " is not writable (not delegated to this user)";
    return found;
  }
  const std::string probe = root + "/envbisect-probe-" + std::to_string(::getpid());
  if (::mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) {
    found.reason = "cannot make a cgroup in " + root + ": " + std::strerror(errno);
    return found;
  }
  ::rmdir(probe.c_str());
  found.root = root;
  remove_dead_owners_cgroups(root);
  return found;
}

// Return the pids listed in the cgroup.procs file of `path`.
std::vector<pid_t> members(const std::string& path) {
  std::vector<pid_t> pids;
  std::ifstream procs(path + "/cgroup.procs");
  long pid = 0;
  while (procs >> pid) {
    pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

// Return true when the cgroup at `path` holds no process ("populated 0", or no file to say).
bool empty(const std::string& path) {
  std::ifstream events(path + "/cgroup.events");
  std::string key;
  int value = 0;
  while (events >> key >> value) {
    if (key == "populated") {
      return value == 0;
    }
  }
  return members(path).empty();
}

// Kill everything in the cgroup at `path` and wait for it to empty; return the pids it held first.
std::size_t kill_cgroup(const std::string& path) {
  const std::size_t listed = members(path).size();
  // cgroup.kill (Linux 5.14) kills atomically, forks racing the kill included.
  const bool killed = [&] {
    const UniqueFd kill_fd(::open((path + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC));
    return kill_fd.valid() && ::write(kill_fd.get(), "1", 1) == 1;
  }();
  const auto deadline = std::chrono::steady_clock::now() + k_empty_wait;
  while (!empty(path) && std::chrono::steady_clock::now() < deadline) {
    if (!killed) {
      for (const pid_t pid : members(path)) {
        ::kill(pid, SIGKILL);  // older kernels: one by one until none is left
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return listed;
}

}  // namespace

const Containment& attempt_containment() {
  static const Containment containment = find_containment();
  return containment;
}

std::string describe_attempt_containment() {
  const Containment& found = attempt_containment();
  return found.root.empty() ? "process group per attempt (no cgroup: " + found.reason + ")"
                            : "cgroup v2 per attempt under " + found.root;
}

std::unique_ptr<AttemptCgroup> AttemptCgroup::create() {
  const Containment& found = attempt_containment();
  if (found.root.empty()) {
    return nullptr;
  }
  static std::atomic<unsigned> counter{0};
  const std::string path =
      found.root + "/envbisect-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  if (::mkdir(path.c_str(), 0755) != 0) {
    return nullptr;
  }
  UniqueFd fd(::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) {
    ::rmdir(path.c_str());
    return nullptr;
  }
  return std::unique_ptr<AttemptCgroup>(new AttemptCgroup(path, std::move(fd)));
}

AttemptCgroup::~AttemptCgroup() {
  m_procs_fd.reset();
  end_attempt_cgroup(m_path);
}

std::size_t AttemptCgroup::kill_all() {
  return kill_cgroup(m_path);
}

std::size_t end_attempt_cgroup(const std::string& path) {
  const std::size_t killed = kill_cgroup(path);
  // An emptied cgroup may stay busy for a moment while its last exits are accounted.
  for (int tries = 0; tries < 100 && ::rmdir(path.c_str()) != 0 && errno == EBUSY; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return killed;
}

std::size_t end_stale_cgroup(const std::string& path) {
  const Containment& found = attempt_containment();
  // Only an attempt cgroup of ours: directly under the root, named as create() names them.
  const std::string prefix = found.root + "/envbisect-";
  if (found.root.empty() || path.rfind(prefix, 0) != 0 || path.find('/', prefix.size()) != std::string::npos ||
      path.find("..") != std::string::npos) {
    return 0;
  }
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return 0;
  }
  const std::size_t killed = kill_cgroup(path);
  ::rmdir(path.c_str());
  return killed;
}

}  // namespace envbisect
