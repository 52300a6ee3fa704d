#pragma once

#include <string>

namespace envbisect {

// A file's content as of a git revision, and which commit that was.
struct FileAtRevision {
  std::string text;
  std::string commit;  // full hex id the revision resolved to
};

// Read `file` (a path inside a git working tree) as it was at `revision` (a tag, branch, `HEAD~20`,
// any rev-parse expression) from the repository's history through libgit2, without touching the
// working tree. Throw Error (exit 2) naming the file and revision when there is no repository, the
// revision does not resolve to a commit, or the file is not in that commit.
FileAtRevision read_file_at_revision(const std::string& file, const std::string& revision);

}  // namespace envbisect
