#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace envbisect {

// What a git work tree is at: HEAD's commit, the branch, the remote, uncommitted files.
struct RepoFacts {
  std::string path;                // as given
  std::string head;                // 40 hex digits; empty when `error` is set
  std::string branch;              // short branch name; empty when HEAD is detached
  std::string url;                 // remote "origin" with any password or token redacted; empty when there is none
  std::vector<std::string> dirty;  // modified, staged, deleted or untracked files (not ignored), sorted
  std::string error;               // why the repository could not be read; empty when it was
};

// Read the repository at `path` through libgit2. Never throw: a missing or broken repository gives
// RepoFacts with `error` set.
RepoFacts read_repo_facts(const std::string& path);

// Return the commit HEAD pointed at at time `epoch_seconds`, from HEAD's reflog (the newest entry at or
// before that time), or nullopt when the reflog is missing or starts later. Never throw.
std::optional<std::string> head_at_time(const std::string& path, std::int64_t epoch_seconds);

}  // namespace envbisect
