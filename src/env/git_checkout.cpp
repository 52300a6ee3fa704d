#include "env/git_checkout.hpp"

#include "util/error.hpp"
#include "util/git_handle.hpp"

#include <git2.h>
#include <git2/sys/repository.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <vector>

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
    throw Error("git repository " + repo_path + ": cannot resolve revision '" + rev + "': " + last_git_error(repo));
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

std::string ambiguous_ref(const std::string& repo_path, const std::string& rev) {
  const RepoPtr repo = open_repo(repo_path);
  std::vector<std::string> found;
  std::set<std::string> commits;
  // git's order for a short name (git rev-parse, gitrevisions(7)).
  for (const std::string& full : {"refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev}) {
    git_object* object = nullptr;
    if (git_reference_is_valid_name(full.c_str()) != 1 || git_revparse_single(&object, repo.get(), full.c_str()) != 0) {
      continue;
    }
    const ObjectPtr target(object);
    git_object* commit = nullptr;
    if (git_object_peel(&commit, target.get(), GIT_OBJECT_COMMIT) != 0) {
      continue;
    }
    const ObjectPtr peeled(commit);
    char hex[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(hex, sizeof hex, git_object_id(peeled.get()));
    commits.insert(hex);
    found.push_back(full + " (" + std::string(hex).substr(0, 12) + ")");
  }
  std::string text;
  if (commits.size() > 1) {
    for (const std::string& one : found) {
      text += (text.empty() ? "" : ", ") + one;
    }
  }
  return text;
}

void checkout_commit(const std::string& repo_path, const std::string& rev, const std::string& target_dir) {
  const std::string commit_id = resolve_commit(repo_path, rev);

  std::error_code ec;
  if (fs::exists(target_dir, ec)) {
    throw Error("checkout target " + target_dir + " already exists (repository " + repo_path + ", revision " +
                rev + ")", ExitCode::environment);
  }
  fs::create_directories(fs::path(target_dir).parent_path(), ec);

  // A local clone: its .git holds the objects (hard links to the repository's own files on one
  // filesystem, a copy otherwise) and every tag, so git describe, setuptools-scm and versioneer work
  // inside it. It is self-contained on purpose: alternates would point outside the checkout, which an
  // isolated benchmark cannot see and a remote host does not have. The repository is only read.
  git_clone_options options = GIT_CLONE_OPTIONS_INIT;
  options.local = GIT_CLONE_LOCAL;
  options.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
  git_repository* raw_clone = nullptr;
  if (git_clone(&raw_clone, repo_path.c_str(), target_dir.c_str(), &options) != 0) {
    throw Error("git repository " + repo_path + ": cannot clone into " + target_dir + ": " + last_git_error(),
                ExitCode::environment);
  }
  const RepoPtr clone(raw_clone);
  const ObjectPtr commit = find_commit(clone.get(), target_dir, commit_id);

  // HEAD detached at the commit, its files written and the index matching them: a clean tree.
  git_checkout_options checkout = GIT_CHECKOUT_OPTIONS_INIT;
  checkout.checkout_strategy = GIT_CHECKOUT_FORCE;
  if (git_checkout_tree(clone.get(), commit.get(), &checkout) != 0 ||
      git_repository_set_head_detached(clone.get(), git_object_id(commit.get())) != 0) {
    throw Error("git repository " + repo_path + ": cannot check out '" + rev + "' into " + target_dir + ": " +
                last_git_error(), ExitCode::environment);
  }
}

std::vector<std::string> checkout_gaps(const std::string& target_dir) {
  const RepoPtr repo = open_repo(target_dir);
  git_index* raw_index = nullptr;
  if (git_repository_index(&raw_index, repo.get()) != 0) {
    throw Error("git repository " + target_dir + ": cannot read its index: " + last_git_error(), ExitCode::environment);
  }
  const IndexPtr index(raw_index);
  std::vector<std::string> submodules;
  std::map<std::string, std::vector<std::string>> filtered;  // filter name -> paths
  const std::size_t count = git_index_entrycount(index.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_index_entry* entry = git_index_get_byindex(index.get(), i);
    if (entry->mode == GIT_FILEMODE_COMMIT) {
      submodules.emplace_back(entry->path);
      continue;
    }
    const char* filter = nullptr;
    if (git_attr_get(&filter, repo.get(), GIT_ATTR_CHECK_INDEX_ONLY, entry->path, "filter") == 0 &&
        git_attr_value(filter) == GIT_ATTR_VALUE_STRING) {
      filtered[filter].emplace_back(entry->path);
    }
  }
  // At most a few paths each: a repository may hold thousands of LFS files.
  auto some = [](const std::vector<std::string>& paths) {
    std::string text;
    for (std::size_t i = 0; i < paths.size() && i < 5; ++i) {
      text += (i > 0 ? ", " : "") + paths[i];
    }
    return paths.size() > 5 ? text + " and " + std::to_string(paths.size() - 5) + " more" : text;
  };
  std::vector<std::string> gaps;
  if (!submodules.empty()) {
    gaps.push_back("submodules left as empty folders (as `git clone` without --recurse-submodules leaves them): " +
                   some(submodules));
  }
  for (const auto& [filter, paths] : filtered) {
    gaps.push_back("files with the attribute filter=" + filter + " written as stored in git" +
                   (filter == "lfs" ? " (Git LFS pointer files, not their content)" : "") +
                   ", the filter not run: " + some(paths));
  }
  return gaps;
}

}  // namespace envbisect
