#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

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

std::string read_file_or_empty(const std::string& path) {
  try {
    return read_file(path);
  } catch (const Error&) {
    return "";
  }
}

std::string read_file_tail(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return "";
  }
  std::string tail;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    const auto size = static_cast<std::size_t>(info.st_size);
    const std::size_t want = std::min(size, max_bytes);
    tail.resize(want);
    std::size_t done = 0;
    while (done < want) {
      const ssize_t got = ::pread(fd, tail.data() + done, want - done, static_cast<off_t>(size - want + done));
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
  ::close(fd);
  return tail;
}

std::string clean_path(const std::string& path) {
  std::string clean = std::filesystem::path(path).lexically_normal().string();
  while (clean.size() > 1 && clean.back() == '/') {
    clean.pop_back();
  }
  return clean;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error(path + ": cannot write: " + std::strerror(errno), ExitCode::environment);
  }
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw Error(path + ": write failed: " + std::strerror(saved), ExitCode::environment);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temp.c_str());
    throw Error(path + ": cannot rename into place: " + std::strerror(saved), ExitCode::environment);
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

void copy_tree(const std::string& from, const std::string& to, LinkFiles link) {
  std::error_code error;
  fs::create_directories(to, error);
  if (error) {
    throw Error(to + ": cannot create directory: " + error.message(), ExitCode::environment);
  }
  bool try_links = link == LinkFiles::yes;
  for (auto it = fs::recursive_directory_iterator(from, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    fs::path target = fs::path(to) / fs::relative(it->path(), from);
    if (it->is_symlink()) {
      fs::copy_symlink(it->path(), target, error);
    } else if (it->is_directory()) {
      fs::create_directories(target, error);
    } else {
      if (try_links) {
        fs::create_hard_link(it->path(), target, error);
        if (!error) {
          continue;
        }
        try_links = false;  // other filesystem or no permission: copy from now on
        error.clear();
      }
      fs::copy_file(it->path(), target, error);
    }
    if (error) {
      break;
    }
  }
  if (error) {
    throw Error("cannot copy " + from + " to " + to + ": " + error.message(), ExitCode::environment);
  }
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
