#include "util/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/fd.hpp"

namespace envbisect {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  // An ifstream opens a directory and reads it as empty: say what it is instead of "malformed JSON".
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(path + ": cannot read: is a directory, not a file", ExitCode::bad_input);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    throw Error(path + ": read failed", ExitCode::bad_input);
  }
  return content.str();
}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes) {
  // Look before opening: opening a fifo for reading would wait for a writer.
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0) {
    throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
  }
  auto refuse_kind = [&](const struct stat& info) {
    if (S_ISDIR(info.st_mode)) {
      throw Error(path + ": cannot read: is a directory, not a file", ExitCode::bad_input);
    }
    if (!S_ISREG(info.st_mode)) {
      const char* kind = S_ISFIFO(info.st_mode)   ? "a fifo"
                         : S_ISCHR(info.st_mode)  ? "a character device"
                         : S_ISBLK(info.st_mode)  ? "a block device"
                         : S_ISSOCK(info.st_mode) ? "a socket"
                                                  : "not a regular file";
      throw Error(path + ": cannot read: is " + std::string(kind) + ", not a regular file", ExitCode::bad_input);
    }
    if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
      throw Error(path + ": cannot read: " + std::to_string(info.st_size) + " bytes, more than the " +
                      std::to_string(max_bytes) + " an input file may have",
                  ExitCode::bad_input);
    }
  };
  refuse_kind(before);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
  }
  // The file may have been replaced between stat and open: what was opened is what counts.
  struct stat opened {};
  std::string content;
  if (::fstat(fd.get(), &opened) != 0) {
    throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
  }
  refuse_kind(opened);
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw Error(path + ": read failed: " + std::strerror(errno), ExitCode::bad_input);
    }
    if (n == 0) {
      break;
    }
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > max_bytes) {
      throw Error(path + ": cannot read: more than the " + std::to_string(max_bytes) + " bytes an input file may have",
                  ExitCode::bad_input);
    }
  }
  return content;
}

std::string read_file_or_empty(const std::string& path) {
  try {
    return read_file(path);
  } catch (const Error&) {
    return "";
  }
}

std::string read_file_tail(const std::string& path, std::size_t max_bytes) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return "";
  }
  std::string tail;
  struct stat info {};
  if (::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode)) {
    const auto size = static_cast<std::size_t>(info.st_size);
    const std::size_t want = std::min(size, max_bytes);
    tail.resize(want);
    std::size_t done = 0;
    while (done < want) {
      const ssize_t got = ::pread(fd.get(), tail.data() + done, want - done, static_cast<off_t>(size - want + done));
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got <= 0) {
        break;
      }
      done += static_cast<std::size_t>(got);
    }
    tail.resize(done);
  }
  return tail;
}

std::string clean_path(const std::string& path) {
  std::string clean = std::filesystem::path(path).lexically_normal().string();
  while (clean.size() > 1 && clean.back() == '/') {
    clean.pop_back();
  }
  return clean;
}

void write_file_atomic(const std::string& path, const std::string& content, mode_t mode, Flush flush) {
  // Threads of one process share a pid: the temp name carries a counter too. One left by a killed
  // process of the same pid is replaced.
  static std::atomic<unsigned> counter{0};
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  ::unlink(temp.c_str());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) {
    throw Error(path + ": cannot write: " + std::strerror(errno), ExitCode::environment);
  }
  std::size_t done = 0;
  int error = 0;
  while (done < content.size() && error == 0) {
    const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
    } else if (errno != EINTR) {
      error = errno;
    }
  }
  // Past the umask: scripts must be executable.
  if (error == 0 && (mode & 0111) != 0 && ::fchmod(fd.get(), mode) != 0) {
    error = errno;
  }
  if (error == 0 && flush == Flush::yes && ::fsync(fd.get()) != 0) {
    error = errno;
  }
  if (fd.close() != 0 && error == 0) {
    error = errno;
  }
  if (error != 0) {
    ::unlink(temp.c_str());
    throw Error(path + ": write failed: " + std::strerror(error), ExitCode::environment);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    error = errno;
    ::unlink(temp.c_str());
    throw Error(path + ": cannot rename into place: " + std::strerror(error),
                error == EISDIR || error == ENOTDIR || error == ENOTEMPTY ? ExitCode::bad_input : ExitCode::environment);
  }
}

void make_dirs(const std::string& path) {
  std::error_code error;
  fs::create_directories(path, error);
  if (error) {
    throw Error(path + ": cannot create directory: " + error.message(), ExitCode::environment);
  }
}

std::string absolute_path(const std::string& path, const std::string& base) {
  fs::path p(path);
  if (p.is_relative()) {
    p = fs::path(base) / p;
  }
  if (p.is_relative()) {
    p = fs::current_path() / p;
  }
  std::string out = p.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') {
    out.pop_back();
  }
  return out;
}

std::string parent_dir(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return absolute_path(parent.empty() ? "." : parent.string(), ".");
}

namespace {

[[noreturn]] void fail_at(const std::string& what, const std::string& path) {
  throw Error("cannot " + what + " " + path + ": " + std::strerror(errno), ExitCode::environment);
}

// The one directory reader: add the entries of `dir` (no "." or "..") with their d_type to `entries`,
// unsorted. Return false when the folder cannot be opened (errno says why).
bool read_entries(const std::string& dir, std::vector<std::pair<std::string, unsigned char>>& entries) {
  const std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (d == nullptr) {
    return false;
  }
  while (const dirent* e = ::readdir(d.get())) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      entries.emplace_back(e->d_name, e->d_type);
    }
  }
  return true;
}

// Recreate the entries of `from` under `to` (which exists); `try_links` turns false at the first
// file that cannot be hard-linked (another filesystem, no permission) and stays so.
void copy_entries(const std::string& from, const std::string& to, LinkFiles link, bool& try_links) {
  std::vector<std::pair<std::string, unsigned char>> entries;
  if (!read_entries(from, entries)) {
    fail_at("read directory", from);
  }
  for (auto& [name, type] : entries) {
    const std::string source = from + "/" + name;
    const std::string target = to + "/" + name;
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::lstat(source.c_str(), &st) != 0) {
        fail_at("stat", source);
      }
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
    }
    if (type == DT_DIR) {
      if (::mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) {
        fail_at("create directory", target);
      }
      copy_entries(source, target, link, try_links);
    } else if (type == DT_LNK) {
      char link_target[4096];
      const ssize_t n = ::readlink(source.c_str(), link_target, sizeof link_target - 1);
      if (n < 0) {
        fail_at("read link", source);
      }
      link_target[n] = '\0';
      if (::symlink(link_target, target.c_str()) != 0) {
        fail_at("create link", target);
      }
    } else {
      if (try_links && link == LinkFiles::yes) {
        if (::link(source.c_str(), target.c_str()) == 0) {
          continue;
        }
        if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
          fail_at("link", source);
        }
        try_links = false;  // another filesystem or no permission: copy from now on
      }
      const bool clone = try_links && link == LinkFiles::clone;
      if (!copy_regular_file(source, target, clone ? TryClone::yes : TryClone::no)) {
        try_links = false;  // not linked or cloned: the tree is no longer shared whole
      }
    }
  }
}

}  // namespace

bool copy_tree(const std::string& from, const std::string& to, LinkFiles link) {
  make_dirs(to);
  bool try_links = true;
  copy_entries(clean_path(from), clean_path(to), link, try_links);
  return try_links;
}

void copy_regular_file(const std::string& from, const std::string& to) {
  copy_regular_file(from, to, TryClone::no);
}

bool copy_regular_file(const std::string& from, const std::string& to, TryClone clone) {
  const std::string shown = from + " to " + to;
  // Non-blocking: a fifo is refused below, never waited on.
  const UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!in.valid()) {
    fail_at("read", shown);
  }
  struct stat st {};
  if (::fstat(in.get(), &st) != 0) {
    fail_at("stat", shown);
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error("cannot copy " + shown + ": not a regular file", ExitCode::environment);
  }
  // Replace, never write into what is there: it may be a hard link into the store or a symlink.
  if (::unlink(to.c_str()) != 0 && errno != ENOENT) {
    fail_at("replace", shown);
  }
  const UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777));
  if (!out.valid()) {
    fail_at("create", shown);
  }
  if (clone == TryClone::yes && ::ioctl(out.get(), FICLONE, in.get()) == 0) {
    return true;
  }
  off_t left = st.st_size;
  while (left > 0) {
    ssize_t n = ::copy_file_range(in.get(), nullptr, out.get(), nullptr, static_cast<std::size_t>(left), 0);
    if (n <= 0) {
      // Fall back to read/write (old kernels, special file systems).
      char buffer[1 << 16];
      const ssize_t r = ::read(in.get(), buffer, sizeof buffer);
      if (r < 0 && errno == EINTR) {
        continue;
      }
      if (r <= 0) {
        break;
      }
      if (::write(out.get(), buffer, static_cast<std::size_t>(r)) != r) {
        fail_at("write", shown);
      }
      n = r;
    }
    left -= n;
  }
  return false;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::pair<std::string, unsigned char>> entries;
  read_entries(dir, entries);  // unreadable: no names
  std::vector<std::string> names;
  for (auto& entry : entries) {
    names.push_back(std::move(entry.first));
  }
  std::sort(names.begin(), names.end());
  return names;
}

void remove_tree(const std::string& path) noexcept {
  std::error_code error;
  fs::remove_all(path, error);
}

bool path_exists(const std::string& path) {
  std::error_code error;
  return fs::exists(path, error);
}

}  // namespace envbisect
