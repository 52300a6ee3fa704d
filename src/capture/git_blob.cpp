#include "capture/git_blob.hpp"

#include <filesystem>

#include "util/error.hpp"
#include "util/git_handle.hpp"

namespace envbisect {

namespace fs = std::filesystem;

namespace {

using BlobPtr = GitPtr<git_blob, git_blob_free>;
using TreeEntryPtr = GitPtr<git_tree_entry, git_tree_entry_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;

}  // namespace

FileAtRevision read_file_at_revision(const std::string& file, const std::string& revision) {
  ensure_libgit2();
  const std::string context = file + " at " + revision;
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec);
  fs::path folder = absolute.parent_path();
  // The folder may no longer exist in the working tree; walk up to one that does for discovery.
  while (!folder.empty() && !fs::is_directory(folder, ec) && folder != folder.root_path()) {
    folder = folder.parent_path();
  }
  git_buf found = GIT_BUF_INIT;
  if (git_repository_discover(&found, folder.c_str(), 0, nullptr) != 0) {
    throw Error(context + ": no git repository holds " + folder.string(), ExitCode::bad_input);
  }
  std::string git_dir(found.ptr, found.size);
  git_buf_dispose(&found);
  git_repository* raw_repo = nullptr;
  if (git_repository_open(&raw_repo, git_dir.c_str()) != 0) {
    throw Error(context + ": cannot open " + git_dir + ": " + last_git_error(), ExitCode::bad_input);
  }
  RepoPtr repo(raw_repo);
  const char* workdir = git_repository_workdir(repo.get());
  if (workdir == nullptr) {
    throw Error(context + ": " + git_dir + " is a bare repository; give the path inside a working tree",
                ExitCode::bad_input);
  }
  fs::path work = fs::weakly_canonical(workdir, ec);
  fs::path inside = fs::weakly_canonical(absolute, ec).lexically_relative(work);
  if (inside.empty() || *inside.begin() == "..") {
    throw Error(context + ": the file is outside the repository's working tree " + work.string(), ExitCode::bad_input);
  }
  git_object* raw_commit = nullptr;
  if (git_revparse_single(&raw_commit, repo.get(), (revision + "^{commit}").c_str()) != 0) {
    throw Error(context + ": '" + revision + "' is not a commit in " + work.string() + ": " + last_git_error(),
                ExitCode::bad_input);
  }
  ObjectPtr commit_object(raw_commit);
  git_commit* commit = reinterpret_cast<git_commit*>(commit_object.get());
  git_tree* raw_tree = nullptr;
  if (git_commit_tree(&raw_tree, commit) != 0) {
    throw Error(context + ": cannot read the commit's tree: " + last_git_error(), ExitCode::bad_input);
  }
  TreePtr tree(raw_tree);
  git_tree_entry* raw_entry = nullptr;
  const std::string path_in_repo = inside.generic_string();
  if (git_tree_entry_bypath(&raw_entry, tree.get(), path_in_repo.c_str()) != 0) {
    throw Error(context + ": " + path_in_repo + " is not in commit " + git_oid_tostr_s(git_commit_id(commit)),
                ExitCode::bad_input);
  }
  TreeEntryPtr entry(raw_entry);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) {
    throw Error(context + ": " + path_in_repo + " is not a file in that commit", ExitCode::bad_input);
  }
  git_blob* raw_blob = nullptr;
  if (git_blob_lookup(&raw_blob, repo.get(), git_tree_entry_id(entry.get())) != 0) {
    throw Error(context + ": cannot read the file: " + last_git_error(), ExitCode::bad_input);
  }
  BlobPtr blob(raw_blob);
  // The same cap as input files on disk (app/inputs.hpp): a lock is never this large.
  constexpr git_object_size_t k_max_blob = 64ULL << 20;
  if (git_blob_rawsize(blob.get()) > k_max_blob) {
    throw Error(context + ": " + path_in_repo + " is " + std::to_string(git_blob_rawsize(blob.get())) +
                    " bytes, more than a lock file can be (64 MiB)",
                ExitCode::bad_input);
  }
  FileAtRevision out;
  out.text.assign(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                  static_cast<std::size_t>(git_blob_rawsize(blob.get())));
  out.commit = git_oid_tostr_s(git_commit_id(commit));
  return out;
}

}  // namespace envbisect
