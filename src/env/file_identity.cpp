#include "env/file_identity.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/fd.hpp"

namespace envbisect {

namespace {

std::string nanoseconds(const timespec& t) {
  return std::to_string(static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec);
}

// Append the lines of the folder `fd` (relative path `rel`) and below, in sorted order.
void walk(UniqueFd fd, const std::string& rel, const std::set<std::string>& skip, Pycache pycache, std::string& out) {
  const std::unique_ptr<DIR, int (*)(DIR*)> d(::fdopendir(fd.get()), ::closedir);
  if (d == nullptr) {
    throw Error("cannot read " + rel + ": " + std::strerror(errno), ExitCode::environment);
  }
  fd.release();  // the DIR owns it now
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d.get())) {
    const char* n = e->d_name;
    if (std::strcmp(n, ".") != 0 && std::strcmp(n, "..") != 0 && (!rel.empty() || skip.count(n) == 0)) {
      names.emplace_back(n);
    }
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    struct stat st {};
    if (::fstatat(::dirfd(d.get()), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;  // vanished meanwhile: absent from the listing, which is the change it is
    }
    const std::string path = rel.empty() ? name : rel + "/" + name;
    if (S_ISDIR(st.st_mode)) {
      if (name == "__pycache__" && pycache == Pycache::skip) {
        continue;
      }
      out += path + "\td\n";
      UniqueFd sub(::openat(::dirfd(d.get()), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (sub.valid()) {
        walk(std::move(sub), path, skip, pycache, out);
      }
      continue;
    }
    out += path + (S_ISLNK(st.st_mode) ? "\tl " : "\tf ") + std::to_string(st.st_ino) + " " +
           std::to_string(st.st_size) + " " + nanoseconds(st.st_mtim) + " " + std::to_string(st.st_mode) + "\n";
  }
}

std::map<std::string, std::string> by_path(const std::string& text) {
  std::map<std::string, std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) {
      end = text.size();
    }
    const std::string line = text.substr(pos, end - pos);
    lines[line.substr(0, line.find('\t'))] = line;
    pos = end + 1;
  }
  return lines;
}

// Whether `path` is a __pycache__ folder or lies below one.
bool below_pycache(const std::string& path) {
  const std::string name = "__pycache__";
  return path == name || path.rfind(name + "/", 0) == 0 || path.find("/" + name + "/") != std::string::npos ||
         (path.size() > name.size() && path.compare(path.size() - name.size() - 1, name.size() + 1, "/" + name) == 0);
}

}  // namespace

std::string file_identity(const std::string& dir, const std::set<std::string>& skip, Pycache pycache) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    throw Error("cannot read " + dir + ": " + std::strerror(errno), ExitCode::environment);
  }
  std::string out;
  walk(std::move(fd), "", skip, pycache, out);
  return out;
}

std::vector<std::string> identity_changes(const std::string& recorded, const std::string& now, std::size_t max,
                                          NewBytecode new_bytecode) {
  std::vector<std::string> changed;
  if (recorded == now) {
    return changed;
  }
  const std::map<std::string, std::string> before = by_path(recorded);
  const std::map<std::string, std::string> after = by_path(now);
  for (const auto& [path, line] : before) {
    const auto found = after.find(path);
    if (found == after.end() || found->second != line) {
      changed.push_back(path);
    }
  }
  for (const auto& [path, line] : after) {
    if (before.count(path) == 0 && !(new_bytecode == NewBytecode::allowed && below_pycache(path))) {
      changed.push_back(path);
    }
  }
  if (changed.empty() && !(new_bytecode == NewBytecode::allowed)) {
    // The listings differ, yet no path does: a file name holding a tab or a newline (which a git tree
    // may track) makes two lines one path. The change counts, named by its first differing line.
    // (Where new bytecode is allowed, a difference left unnamed is Python's own .pyc.)
    std::size_t at = 0;
    while (at < recorded.size() && at < now.size() && recorded[at] == now[at]) {
      ++at;
    }
    const std::size_t start = recorded.rfind('\n', at == 0 ? 0 : at - 1);
    const std::string& text = at < recorded.size() ? recorded : now;
    const std::size_t from = start == std::string::npos || at == 0 ? 0 : start + 1;
    changed.push_back(text.substr(from, text.find_first_of("\t\n", from) - from));
  }
  std::sort(changed.begin(), changed.end());
  if (changed.size() > max) {
    changed.resize(max);
  }
  return changed;
}

}  // namespace envbisect
