#include "env/warm_cache.hpp"

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
#include "util/fd.hpp"
#include "util/fs.hpp"

namespace envbisect {

namespace {

// Whether a method failed once for reasons of the system (no reflink on this filesystem, no right to
// mount): not tried again in this process.
std::atomic<bool> g_no_reflink{false};
std::atomic<bool> g_no_overlay{false};

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error("warm cache: " + what + " " + path + ": " + std::strerror(errno));
}

// Return the first regular file under `dir` (breadth first), or "" when it holds none.
std::string first_file(const std::string& dir) {
  std::vector<std::string> dirs = {dir};
  for (std::size_t i = 0; i < dirs.size() && i < 64; ++i) {
    for (const std::string& name : list_dir(dirs[i])) {
      const std::string path = dirs[i] + "/" + name;
      struct stat st{};
      if (::lstat(path.c_str(), &st) != 0) {
        continue;
      }
      if (S_ISREG(st.st_mode)) {
        return path;
      }
      if (S_ISDIR(st.st_mode)) {
        dirs.push_back(path);
      }
    }
  }
  return "";
}

// Return whether the filesystem clones files: `sample` cloned into a probe beside `to`.
bool reflink_works(const std::string& sample, const std::string& to) {
  const std::string probe = to + ".reflink-probe";
  bool ok = false;
  {
    const UniqueFd in(::open(sample.c_str(), O_RDONLY | O_CLOEXEC));
    const UniqueFd out(::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    ok = in.valid() && out.valid() && ::ioctl(out.get(), FICLONE, in.get()) == 0;
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
    copy_tree(snapshot, to, LinkFiles::no);  // folders only: nothing to share
    return cache;
  }
  // Reflink first: no mount to undo, no data copied. One probe decides for the process.
  if (allow == WarmCacheAllow::any || allow == WarmCacheAllow::no_overlay) {
    if (!g_no_reflink && reflink_works(sample, to)) {
      if (copy_tree(snapshot, to, LinkFiles::clone)) {
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
  copy_tree(snapshot, to, LinkFiles::no);
  cache.m_method = WarmCacheMethod::copy;
  return cache;
}

}  // namespace envbisect
