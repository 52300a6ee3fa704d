#include "env/link_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error("cannot " + what + " " + path + ": " + std::strerror(errno), ExitCode::environment);
}

// Copy the file `name` of `from_dir` into `to_dir` with its permission bits.
void copy_at(int from_dir, const char* from_name, int to_dir, const char* to_name, const std::string& shown) {
  int in = ::openat(from_dir, from_name, O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    fail("read", shown);
  }
  struct stat st {};
  ::fstat(in, &st);
  // Replace, never write into what is there: it may be a hard link into the store or a symlink.
  if (::unlinkat(to_dir, to_name, 0) != 0 && errno != ENOENT) {
    ::close(in);
    fail("replace", shown);
  }
  int out = ::openat(to_dir, to_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777);
  if (out < 0) {
    ::close(in);
    fail("create", shown);
  }
  off_t left = st.st_size;
  while (left > 0) {
    ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, static_cast<std::size_t>(left), 0);
    if (n <= 0) {
      // Fall back to read/write (old kernels, special files).
      char buffer[1 << 16];
      ssize_t r = ::read(in, buffer, sizeof buffer);
      if (r < 0 && errno == EINTR) {
        continue;
      }
      if (r <= 0) {
        break;
      }
      if (::write(out, buffer, static_cast<std::size_t>(r)) != r) {
        ::close(in);
        ::close(out);
        fail("write", shown);
      }
      n = r;
    }
    left -= n;
  }
  ::close(in);
  ::close(out);
}

void walk(int from_dir, int to_dir, const std::string& shown, TreeMode mode, bool& try_links, LinkTreeStats& stats) {
  DIR* d = ::fdopendir(::dup(from_dir));
  if (d == nullptr) {
    fail("read directory", shown);
  }
  std::vector<std::pair<std::string, unsigned char>> children;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      children.emplace_back(e->d_name, e->d_type);
    }
  }
  ::closedir(d);
  for (auto& [name, type] : children) {
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(from_dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        fail("stat", shown + "/" + name);
      }
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
    }
    if (type == DT_DIR) {
      if (::mkdirat(to_dir, name.c_str(), 0755) != 0 && errno != EEXIST) {
        fail("create directory", shown + "/" + name);
      }
      int sub_from = ::openat(from_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      int sub_to = ::openat(to_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (sub_from < 0 || sub_to < 0) {
        fail("open directory", shown + "/" + name);
      }
      ++stats.dirs;
      walk(sub_from, sub_to, shown + "/" + name, mode, try_links, stats);
      ::close(sub_from);
      ::close(sub_to);
    } else if (type == DT_LNK) {
      char target[4096];
      const ssize_t n = ::readlinkat(from_dir, name.c_str(), target, sizeof target - 1);
      if (n < 0) {
        fail("read link", shown + "/" + name);
      }
      target[n] = '\0';
      if (::symlinkat(target, to_dir, name.c_str()) != 0) {
        fail("create link", shown + "/" + name);
      }
    } else {
      ++stats.files;
      if (try_links && mode == TreeMode::link) {
        if (::linkat(from_dir, name.c_str(), to_dir, name.c_str(), 0) == 0) {
          ++stats.linked;
          continue;
        }
        if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
          fail("link", shown + "/" + name);
        }
        try_links = false;  // another filesystem or no permission: copy from now on
      }
      copy_at(from_dir, name.c_str(), to_dir, name.c_str(), shown + "/" + name);
      ++stats.copied;
    }
  }
}

}  // namespace

LinkTreeStats link_tree(const std::string& from, const std::string& to, TreeMode mode) {
  LinkTreeStats stats;
  if (::mkdir(to.c_str(), 0755) != 0 && errno != EEXIST) {
    fail("create directory", to);
  }
  int from_fd = ::open(from.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (from_fd < 0) {
    fail("open directory", from);
  }
  int to_fd = ::open(to.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (to_fd < 0) {
    ::close(from_fd);
    fail("open directory", to);
  }
  bool try_links = true;
  try {
    walk(from_fd, to_fd, from, mode, try_links, stats);
  } catch (...) {
    ::close(from_fd);
    ::close(to_fd);
    throw;
  }
  ::close(from_fd);
  ::close(to_fd);
  return stats;
}

void copy_regular_file(const std::string& from, const std::string& to) {
  copy_at(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), from + " to " + to);
}

}  // namespace envbisect
