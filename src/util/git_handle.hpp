#pragma once

#include <git2.h>

#include <memory>
#include <string>

namespace envbisect {

// Set up libgit2's process-wide state once, before the first libgit2 call of the process.
inline void ensure_libgit2() {
  static const int initialised = git_libgit2_init();
  (void)initialised;
}

// Return libgit2's message for the last failed call.
inline std::string last_git_error() {
  const git_error* error = git_error_last();
  return error != nullptr && error->message != nullptr ? error->message : "unknown libgit2 error";
}

// Return libgit2's message for the last failed call on `repo`, saying so when `repo` is a shallow clone:
// libgit2 does not read .git/shallow, so a walk or a revision reaching past its cut-off history fails
// with "object not found" for a commit the clone never had.
inline std::string last_git_error(git_repository* repo) {
  std::string message = last_git_error();
  if (repo != nullptr && git_repository_is_shallow(repo) == 1) {
    message += " (the repository is a shallow clone, its history cut off at the commits in .git/shallow: "
               "`git fetch --unshallow` there, or name a full clone)";
  }
  return message;
}

// Frees a libgit2 object with its own free function.
template <typename T, void (*Free)(T*)>
struct GitFree {
  // Free the object.
  void operator()(T* object) const { Free(object); }
};

// Owning pointers to libgit2 objects.
template <typename T, void (*Free)(T*)>
using GitPtr = std::unique_ptr<T, GitFree<T, Free>>;
using RepoPtr = GitPtr<git_repository, git_repository_free>;
using ObjectPtr = GitPtr<git_object, git_object_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using WalkPtr = GitPtr<git_revwalk, git_revwalk_free>;
using IndexPtr = GitPtr<git_index, git_index_free>;
using ReferencePtr = GitPtr<git_reference, git_reference_free>;
using RemotePtr = GitPtr<git_remote, git_remote_free>;
using StatusListPtr = GitPtr<git_status_list, git_status_list_free>;
using ReflogPtr = GitPtr<git_reflog, git_reflog_free>;

}  // namespace envbisect
