#include "env/git_checkout.hpp"

#include "util/error.hpp"
#include "util/git_handle.hpp"

#include <git2.h>
#include <git2/sys/repository.h>

#include <filesystem>
#include <memory>

namespace envbisect {

namespace {

namespace fs = std::filesystem;

RepoPtr open_repo(const std::string& repo_path) {
  ensure_libgit2();
  git_repository* repo = nullptr;
  if (git_repository_open(&repo, repo_path.c_str()) != 0) {
    throw Error("cannot open git repository " + repo_path + ": " + last_git_error());
  }
  return RepoPtr(repo);
}

// Return revision `rev` of `repo` peeled to its commit.
ObjectPtr find_commit(git_repository* repo, const std::string& repo_path, const std::string& rev) {
  git_object* object = nullptr;
  if (git_revparse_single(&object, repo, rev.c_str()) != 0) {
    throw Error("git repository " + repo_path + ": cannot resolve revision '" + rev + "': " + last_git_error());
  }
  const ObjectPtr found(object);
  git_object* commit = nullptr;
  if (git_object_peel(&commit, found.get(), GIT_OBJECT_COMMIT) != 0) {
    throw Error("git repository " + repo_path + ": revision '" + rev + "' is not a commit: " + last_git_error());
  }
  return ObjectPtr(commit);
}

}  // namespace

std::string resolve_commit(const std::string& repo_path, const std::string& rev) {
  const RepoPtr repo = open_repo(repo_path);
  const ObjectPtr commit = find_commit(repo.get(), repo_path, rev);
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, git_object_id(commit.get()));
  return hex;
}

void checkout_commit(const std::string& repo_path, const std::string& rev, const std::string& target_dir) {
  const RepoPtr repo = open_repo(repo_path);
  const ObjectPtr commit = find_commit(repo.get(), repo_path, rev);

  std::error_code ec;
  if (fs::exists(target_dir, ec)) {
    throw Error("checkout target " + target_dir + " already exists (repository " + repo_path + ", revision " +
                rev + ")", ExitCode::environment);
  }
  fs::create_directories(target_dir, ec);
  if (ec) {
    throw Error("cannot create checkout directory " + target_dir + ": " + ec.message(), ExitCode::environment);
  }

  // Check out against an empty in-memory index, so every file of the commit is written to the
  // target and the repository's own index, HEAD and work tree are neither read nor changed.
  git_index* raw_index = nullptr;
  if (git_index_new(&raw_index) != 0) {
    throw Error("cannot create an in-memory git index: " + last_git_error(), ExitCode::environment);
  }
  const IndexPtr index(raw_index);
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX | GIT_CHECKOUT_NO_REFRESH;
  options.target_directory = target_dir.c_str();
  options.baseline_index = index.get();
  git_repository_set_index(repo.get(), index.get());
  if (git_checkout_tree(repo.get(), commit.get(), &options) != 0) {
    throw Error("git repository " + repo_path + ": cannot check out '" + rev + "' into " + target_dir + ": " +
                last_git_error(), ExitCode::environment);
  }
}

}  // namespace envbisect
