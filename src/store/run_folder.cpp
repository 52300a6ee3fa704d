#include "store/run_folder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "util/error.hpp"
#include "util/fd.hpp"

namespace envbisect {

namespace {

// The files envbisect keeps directly in a run folder; each must be what envbisect wrote there.
constexpr const char* k_run_entries[] = {"journal.jsonl", "processes.jsonl", "run.json", "result.json", "lock",
                                         "replay.jsonl",  "attempts",        "repro",    "logs",        "envs",
                                         "repos",         "warm"};

// The folders among them that envbisect writes and removes below, and how many levels of folders it
// names there (attempts/CANDIDATE/N; logs/build-ENV, envs/ENV, repos/NAME-COMMIT, warm/KEY): a link at
// any of those levels would take the writes and removals out of the run folder.
struct Subtree {
  const char* name;
  int levels;
};
constexpr Subtree k_run_subtrees[] = {{"attempts", 2}, {"logs", 1}, {"envs", 1}, {"repos", 1}, {"warm", 1}};

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir == "." ? name : dir + "/" + name;
}

// Return the parts of `relative`; throw Error (bad_input) naming `path` for an empty, "." or ".." part.
std::vector<std::string> path_parts(const std::string& relative, const std::string& path) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= relative.size()) {
    const std::size_t slash = std::min(relative.find('/', begin), relative.size());
    const std::string part = relative.substr(begin, slash - begin);
    if (part.empty() || part == "." || part == "..") {
      throw Error(path + ": not a path inside a run folder", ExitCode::bad_input);
    }
    parts.push_back(part);
    begin = slash + 1;
  }
  return parts;
}

// Open `relative` below `dirfd` refusing every symbolic link (ELOOP); -1 with errno set on failure.
int open_beneath(int dirfd, const std::string& relative, int flags, mode_t mode) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = static_cast<unsigned long long>(flags);
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, dirfd, relative.c_str(), &how, sizeof how);
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EINVAL)) {
    return static_cast<int>(fd);
  }
#endif
  // Older kernels (and seccomp filters that answer ENOSYS/EPERM): one component at a time, none followed.
  UniqueFd held;
  int at = dirfd;
  std::size_t begin = 0;
  for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', begin)) {
    const std::string part = relative.substr(begin, slash - begin);
    struct stat info {};
    if (::fstatat(at, part.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode)) {
      errno = ELOOP;
      return -1;
    }
    held.reset(::openat(at, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!held.valid()) {
      return -1;
    }
    at = held.get();
    begin = slash + 1;
  }
  return ::openat(at, relative.c_str() + begin, flags, mode);
}

// Throw Error (bad_input) naming `path` when `info` is not owned by us or is writable by others.
void check_owner(const std::string& path, const struct stat& info) {
  if (info.st_uid != ::geteuid()) {
    throw Error(path + ": owned by uid " + std::to_string(info.st_uid) + ", not by the invoking user (uid " +
                    std::to_string(::geteuid()) + "); a run folder must be the user's own (copy it to use it)",
                ExitCode::bad_input);
  }
  if ((info.st_mode & S_IWOTH) != 0) {
    throw Error(path + ": writable by every user; a run folder must not be (chmod o-w it after checking its files)",
                ExitCode::bad_input);
  }
}

// Throw Error (bad_input) naming the first entry of the folder `name` in `dirfd` (at `path`), down
// `levels` levels of folders, that is a symbolic link or not the user's own.
void check_subtree(int dirfd, const std::string& name, const std::string& path, int levels) {
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  DIR* folder = fd.valid() ? ::fdopendir(fd.get()) : nullptr;
  if (folder == nullptr) {
    return;  // not a folder (the caller refused a link already) or unreadable: nothing to check
  }
  fd.release();  // the DIR owns it now
  std::unique_ptr<DIR, int (*)(DIR*)> closer(folder, ::closedir);
  while (const dirent* entry = ::readdir(folder)) {
    const std::string child = entry->d_name;
    if (child == "." || child == "..") {
      continue;
    }
    struct stat info {};
    if (::fstatat(::dirfd(folder), child.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;
    }
    const std::string child_path = path + "/" + child;
    if (S_ISLNK(info.st_mode)) {
      throw Error(child_path + ": is a symbolic link; files of a run folder are never followed out of it (remove the link)",
                  ExitCode::bad_input);
    }
    check_owner(child_path, info);
    if (levels > 1 && S_ISDIR(info.st_mode)) {
      check_subtree(::dirfd(folder), child, child_path, levels - 1);
    }
  }
}

}  // namespace

int open_run_file(const std::string& dir, const std::string& name, int flags, mode_t mode) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw Error(join(dir, name) + ": not a file name of a run folder", ExitCode::bad_input);
  }
  return open_run_beneath(dir, name, flags, mode);
}

int open_run_beneath(const std::string& dir, const std::string& relative, int flags, mode_t mode) {
  const std::string path = join(dir, relative);
  path_parts(relative, path);
  // The folder is the one the user named (it may be reached through a link); what is in it is not.
  const UniqueFd dirfd(::open(dir.empty() ? "." : dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dirfd.get() < 0) {
    if (errno == ENOENT && (flags & O_CREAT) == 0) {
      return -1;
    }
    throw Error(dir + ": cannot open the folder: " + std::strerror(errno), ExitCode::environment);
  }
  UniqueFd fd(open_beneath(dirfd.get(), relative, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, mode));
  if (!fd.valid()) {
    const int error = errno;
    if (error == ENOENT && (flags & O_CREAT) == 0) {
      return -1;
    }
    if (error == ELOOP || error == EXDEV) {
      throw Error(path + ": is a symbolic link; files of a run folder are never followed out of it (remove the link)",
                  ExitCode::bad_input);
    }
    throw Error(path + ": cannot open: " + std::strerror(error),
                error == ENXIO || error == EISDIR || error == ENOTDIR ? ExitCode::bad_input : ExitCode::environment);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw Error(path + ": not a regular file; a run folder's files are plain files", ExitCode::bad_input);
  }
  // O_NONBLOCK only kept a fifo from blocking the open; a regular file's I/O ignores it, but clear it.
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd.release();
}

int open_run_path(const std::string& path, int flags, mode_t mode) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    return open_run_file(".", path, flags, mode);
  }
  return open_run_file(slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1), flags, mode);
}

std::string read_run_path(const std::string& path) {
  const UniqueFd fd(open_run_path(path, O_RDONLY));
  if (!fd.valid()) {
    return "";
  }
  std::string text;
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      const int error = errno;
      throw Error(path + ": read failed: " + std::strerror(error), ExitCode::environment);
    }
    if (got == 0) {
      break;
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

void check_run_folder_trust(const std::string& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    return;  // a missing folder is the caller's "not a run directory"
  }
  check_owner(dir, info);
  const UniqueFd dirfd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dirfd.get() < 0) {
    return;
  }
  for (const char* name : k_run_entries) {
    struct stat entry {};
    if (::fstatat(dirfd.get(), name, &entry, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;
    }
    const std::string path = join(dir, name);
    if (S_ISLNK(entry.st_mode)) {
      throw Error(path + ": is a symbolic link; files of a run folder are never followed out of it (remove the link)",
                  ExitCode::bad_input);
    }
    check_owner(path, entry);
  }
  for (const Subtree& subtree : k_run_subtrees) {
    check_subtree(dirfd.get(), subtree.name, join(dir, subtree.name), subtree.levels);
  }
}

std::string own_subfolder(const std::string& dir, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw Error(join(dir, name) + ": not a folder name of a run folder", ExitCode::bad_input);
  }
  return own_run_subpath(dir, name);
}

std::string own_run_subpath(const std::string& dir, const std::string& relative) {
  const std::string whole = join(dir, relative);
  const std::vector<std::string> parts = path_parts(relative, whole);
  UniqueFd at(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at.valid()) {
    throw Error(dir + ": cannot open the folder: " + std::strerror(errno), ExitCode::environment);
  }
  std::string path = dir;
  // One level at a time, each made or taken without following a link, and the next opened from it.
  for (const std::string& name : parts) {
    path = join(path, name);
    if (::mkdirat(at.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
      throw Error(path + ": cannot create: " + std::strerror(errno), ExitCode::environment);
    }
    struct stat info {};
    if (::fstatat(at.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      throw Error(path + ": cannot stat: " + std::strerror(errno), ExitCode::environment);
    }
    if (S_ISLNK(info.st_mode)) {
      throw Error(path + ": is a symbolic link; files of a run folder are never followed out of it (remove the link)",
                  ExitCode::bad_input);
    }
    if (!S_ISDIR(info.st_mode)) {
      throw Error(path + ": not a folder", ExitCode::bad_input);
    }
    check_owner(path, info);
    at.reset(::openat(at.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!at.valid()) {
      throw Error(path + ": cannot open the folder: " + std::strerror(errno), ExitCode::environment);
    }
  }
  return whole;
}

}  // namespace envbisect
