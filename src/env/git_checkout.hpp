#pragma once

#include <string>
#include <vector>

namespace envbisect {

// Resolve `rev` (full or abbreviated hex, or a ref name) in the repository at `repo_path` to a full
// commit id. Throw Error naming the repo and the revision when it cannot be found.
std::string resolve_commit(const std::string& repo_path, const std::string& rev);

// Return, when `rev` is a short ref name that more than one of refs/NAME, refs/tags/NAME,
// refs/heads/NAME and refs/remotes/NAME names, with different commits, the full names and commits
// it could mean ("refs/tags/x (1a2b3c4d5e6f), refs/heads/x (...)"); the first is the one git and
// resolve_commit take. Empty otherwise.
std::string ambiguous_ref(const std::string& repo_path, const std::string& rev);

// Make `target_dir` (created; must not exist) a git working tree of the repository at `repo_path`:
// a self-contained local clone with its tags, HEAD detached at commit `rev`, files and index clean;
// the repository itself is only read. Throw Error on failure.
void checkout_commit(const std::string& repo_path, const std::string& rev, const std::string& target_dir);

// Return what the checkout at `target_dir` holds differently from `git checkout` with its usual
// helpers, one sentence each (empty when nothing): submodules are left as empty folders, and files
// with a `filter=` attribute (Git LFS above all) are written as stored in git, their filter not run.
std::vector<std::string> checkout_gaps(const std::string& target_dir);

}  // namespace envbisect
