#include "env/warm_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

namespace {

// Whether a method failed once for reasons of the system (no reflink on this filesystem, no right to
// mount): not tried again in this process.
std::atomic<bool> g_no_reflink{false};
std::atomic<bool> g_no_overlay{false};

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error("warm cache: " + what + " " + path + ": " + std::strerror(errno));
}

// Close a descriptor at scope end.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

// Copy one regular file's bytes: clone its extents when `clone` (and the filesystem allows), else
// copy_file_range, else read/write. Return whether it was cloned.
bool copy_file(const std::string& from, const std::string& to, mode_t mode, bool clone) {
  Fd in{::open(from.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) {
    fail("cannot open", from);
  }
  Fd out{::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777)};
  if (out.fd < 0) {
    fail("cannot create", to);
  }
  if (clone && ::ioctl(out.fd, FICLONE, in.fd) == 0) {
    return true;
  }
  for (;;) {
    const ssize_t n = ::copy_file_range(in.fd, nullptr, out.fd, nullptr, 1 << 30, 0);
    if (n == 0) {
      return false;
    }
    if (n < 0) {
      break;  // not supported between these files: read and write
    }
  }
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(in.fd, buffer.data(), buffer.size());
    if (n < 0) {
      fail("cannot read", from);
    }
    if (n == 0) {
      return false;
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out.fd, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0) {
        fail("cannot write", to);
      }
      done += w;
    }
  }
}

// Copy the tree `from` to `to` (absent), by string paths; clone files when `clone`. Return whether every
// file was cloned (true for a tree without files).
bool copy_walk(const std::string& from, const std::string& to, bool clone) {
  struct stat top{};
  if (::lstat(from.c_str(), &top) != 0) {
    fail("cannot read", from);
  }
  if (::mkdir(to.c_str(), top.st_mode & 07777) != 0) {
    fail("cannot create", to);
  }
  bool all_cloned = true;
  std::vector<std::pair<std::string, std::string>> dirs = {{from, to}};
  while (!dirs.empty()) {
    auto [src, dst] = std::move(dirs.back());
    dirs.pop_back();
    DIR* dir = ::opendir(src.c_str());
    if (dir == nullptr) {
      fail("cannot list", src);
    }
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") {
        continue;
      }
      const std::string s = src + "/" + name;
      const std::string d = dst + "/" + name;
      struct stat st{};
      if (::lstat(s.c_str(), &st) != 0) {
        ::closedir(dir);
        fail("cannot read", s);
      }
      if (S_ISDIR(st.st_mode)) {
        if (::mkdir(d.c_str(), st.st_mode & 07777) != 0) {
          ::closedir(dir);
          fail("cannot create", d);
        }
        dirs.emplace_back(s, d);
      } else if (S_ISLNK(st.st_mode)) {
        std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
        const ssize_t n = ::readlink(s.c_str(), target.data(), target.size());
        if (n < 0 || ::symlink(target.substr(0, static_cast<std::size_t>(n)).c_str(), d.c_str()) != 0) {
          ::closedir(dir);
          fail("cannot copy the link", s);
        }
      } else if (S_ISREG(st.st_mode)) {
        const bool cloned = copy_file(s, d, st.st_mode, clone && all_cloned);
        all_cloned = all_cloned && cloned;
      }
    }
    ::closedir(dir);
  }
  return all_cloned;
}

// Return the first regular file under `dir` (breadth first), or "" when it holds none.
std::string first_file(const std::string& dir) {
  std::vector<std::string> dirs = {dir};
  for (std::size_t i = 0; i < dirs.size() && i < 64; ++i) {
    DIR* d = ::opendir(dirs[i].c_str());
    if (d == nullptr) {
      continue;
    }
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") {
        continue;
      }
      const std::string path = dirs[i] + "/" + name;
      struct stat st{};
      if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        ::closedir(d);
        return path;
      }
      if (S_ISDIR(st.st_mode)) {
        dirs.push_back(path);
      }
    }
    ::closedir(d);
  }
  return "";
}

// Return whether the filesystem clones files: `sample` cloned into a probe beside `to`.
bool reflink_works(const std::string& sample, const std::string& to) {
  const std::string probe = to + ".reflink-probe";
  bool ok = false;
  {
    Fd in{::open(sample.c_str(), O_RDONLY | O_CLOEXEC)};
    Fd out{::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
    ok = in.fd >= 0 && out.fd >= 0 && ::ioctl(out.fd, FICLONE, in.fd) == 0;
  }
  ::unlink(probe.c_str());
  return ok;
}

// Mount an overlay of `snapshot` at `to`, its writes in `to`.upper; return whether it was mounted.
// Paths holding the option syntax (',', ':', '\\') or a mount refused leave the caller to copy.
bool mount_overlay(const std::string& snapshot, const std::string& to) {
  const std::string upper = to + ".upper", work = to + ".work";
  for (const std::string* path : {&snapshot, &upper, &work}) {
    if (path->find_first_of(",:\\") != std::string::npos) {
      return false;
    }
  }
  if (::mkdir(to.c_str(), 0755) != 0 || ::mkdir(upper.c_str(), 0755) != 0 || ::mkdir(work.c_str(), 0700) != 0) {
    fail("cannot create", to);
  }
  const std::string options = "lowerdir=" + snapshot + ",upperdir=" + upper + ",workdir=" + work;
  if (::mount("overlay", to.c_str(), "overlay", MS_NODEV | MS_NOSUID, options.c_str()) == 0) {
    return true;
  }
  ::rmdir(work.c_str());
  ::rmdir(upper.c_str());
  ::rmdir(to.c_str());
  return false;
}

}  // namespace

std::string_view to_string(WarmCacheMethod method) {
  switch (method) {
    case WarmCacheMethod::reflink:
      return "reflink";
    case WarmCacheMethod::overlay:
      return "overlay";
    case WarmCacheMethod::copy:
      return "copy";
  }
  return "copy";
}

WarmCache::WarmCache(WarmCache&& other) noexcept
    : m_method(other.m_method), m_mount(std::exchange(other.m_mount, std::string())) {}

WarmCache& WarmCache::operator=(WarmCache&& other) noexcept {
  if (this != &other) {
    release();
    m_method = other.m_method;
    m_mount = std::exchange(other.m_mount, std::string());
  }
  return *this;
}

WarmCache::~WarmCache() { release(); }

void WarmCache::release() noexcept {
  if (!m_mount.empty()) {
    if (::umount2(m_mount.c_str(), 0) != 0) {
      ::umount2(m_mount.c_str(), MNT_DETACH);  // a process still inside: detach now, gone when it leaves
    }
    m_mount.clear();
  }
}

WarmCache WarmCache::prepare(const std::string& snapshot, const std::string& to, WarmCacheAllow allow) {
  WarmCache cache;
  const std::string sample = first_file(snapshot);
  if (sample.empty()) {
    copy_walk(snapshot, to, false);  // folders only: nothing to share
    return cache;
  }
  // Reflink first: no mount to undo, no data copied. One probe decides for the process.
  if (allow == WarmCacheAllow::any || allow == WarmCacheAllow::no_overlay) {
    if (!g_no_reflink && reflink_works(sample, to)) {
      if (copy_walk(snapshot, to, true)) {
        cache.m_method = WarmCacheMethod::reflink;
        return cache;
      }
      cache.m_method = WarmCacheMethod::copy;  // cloning stopped part way: the rest was copied
      return cache;
    }
    g_no_reflink = true;
  }
  // An overlay: one mount, whatever the size; the snapshot is its read-only lower layer.
  if (allow == WarmCacheAllow::any && !g_no_overlay) {
    if (mount_overlay(snapshot, to)) {
      cache.m_method = WarmCacheMethod::overlay;
      cache.m_mount = to;
      return cache;
    }
    g_no_overlay = true;
  }
  copy_walk(snapshot, to, false);
  cache.m_method = WarmCacheMethod::copy;
  return cache;
}

}  // namespace envbisect
