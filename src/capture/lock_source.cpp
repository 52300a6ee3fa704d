#include "capture/lock_source.hpp"

#include <filesystem>

#include "capture/git_blob.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace envbisect {

namespace fs = std::filesystem;

std::optional<std::string> read_file_beside(const std::string& lock_path, const std::string& at, const std::string& relative) {
  const std::string path = (fs::path(lock_path).parent_path() / relative).lexically_normal().string();
  if (at.empty()) {
    std::error_code error;
    if (!fs::is_regular_file(path, error)) {
      return std::nullopt;
    }
    return read_file(path);
  }
  try {
    return read_file_at_revision(path, at).text;
  } catch (const Error&) {
    return std::nullopt;  // not in that revision: the caller says what it assumes instead
  }
}

RepoPin repo_pin_of(const LockedRepo& repo, const std::string& lock_path, const std::string& lock_commit,
                    const std::string& state_dir) {
  RepoPin pin;
  if (repo.kind == "git" || !repo.url.empty()) {
    pin.url = repo.url;
    pin.commit = repo.commit;
    pin.subdirectory = repo.subdirectory;
    return pin;
  }
  std::error_code error;
  const fs::path folder = fs::absolute(fs::path(lock_path).parent_path() / repo.path, error).lexically_normal();
  const fs::path base = fs::absolute(state_dir.empty() ? "." : state_dir, error).lexically_normal();
  const fs::path relative = folder.lexically_relative(base);
  pin.path = relative.empty() ? folder.string() : relative.string();
  if (!pin.path.empty() && pin.path.back() == '/') {
    pin.path.pop_back();
  }
  pin.commit = lock_commit;
  return pin;
}

}  // namespace envbisect
