#pragma once

#include <optional>
#include <string>

#include "capture/lockfile.hpp"
#include "core/state.hpp"

namespace envbisect {

// Return the text of `relative` (a path relative to the folder of `lock_path`, "pyproject.toml") as
// of git revision `at` ("" = the file on disk); nullopt when that revision or folder has no such file.
std::optional<std::string> read_file_beside(const std::string& lock_path, const std::string& at, const std::string& relative);

// Return the state's pin of a lock's git or local source: a git one by its URL and commit (no local
// path: `run` asks for a clone), a local folder by its path beside the lock at `lock_commit`, written
// relative to `state_dir` (the folder the state is written to), as states name paths.
RepoPin repo_pin_of(const LockedRepo& repo, const std::string& lock_path, const std::string& lock_commit,
                    const std::string& state_dir);

}  // namespace envbisect
