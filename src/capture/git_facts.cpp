#include "capture/git_facts.hpp"
#include "util/git_handle.hpp"
#include "util/redact.hpp"

#include <algorithm>
#include <memory>

#include <git2.h>

namespace envbisect {

namespace {

std::string oid_hex(const git_oid* oid) {
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, oid);
  return hex;
}

RepoPtr open_repo(const std::string& path, std::string& error) {
  ensure_libgit2();
  git_repository* repo = nullptr;
  if (git_repository_open(&repo, path.c_str()) != 0) {
    error = "cannot open git repository " + path + ": " + last_git_error();
    return nullptr;
  }
  return RepoPtr(repo);
}

// Return every path git status would list (staged, unstaged, untracked files), sorted and unique.
std::vector<std::string> dirty_files(git_repository* repo) {
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
  git_status_list* raw = nullptr;
  std::vector<std::string> out;
  if (git_status_list_new(&raw, repo, &options) != 0) {
    return out;
  }
  const StatusListPtr list(raw);
  const std::size_t count = git_status_list_entrycount(list.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_status_entry* entry = git_status_byindex(list.get(), i);
    if (entry == nullptr || entry->status == GIT_STATUS_CURRENT || (entry->status & GIT_STATUS_IGNORED) != 0) {
      continue;
    }
    const git_diff_delta* delta = entry->head_to_index != nullptr ? entry->head_to_index : entry->index_to_workdir;
    if (delta != nullptr && delta->new_file.path != nullptr) {
      out.emplace_back(delta->new_file.path);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

RepoFacts read_repo_facts(const std::string& path) {
  RepoFacts facts;
  facts.path = path;
  const RepoPtr repo = open_repo(path, facts.error);
  if (!repo) {
    return facts;
  }
  git_oid head{};
  if (git_reference_name_to_id(&head, repo.get(), "HEAD") != 0) {
    facts.error = "git repository " + path + ": HEAD does not name a commit: " + last_git_error();
    return facts;
  }
  facts.head = oid_hex(&head);
  git_reference* raw_ref = nullptr;
  if (git_repository_head_detached(repo.get()) == 0 && git_repository_head(&raw_ref, repo.get()) == 0) {
    const ReferencePtr ref(raw_ref);
    facts.branch = git_reference_shorthand(ref.get());
  }
  git_remote* raw_remote = nullptr;
  if (git_remote_lookup(&raw_remote, repo.get(), "origin") == 0) {
    const RemotePtr remote(raw_remote);
    const char* url = git_remote_url(remote.get());
    // A remote may carry a password or token ("https://bot:TOKEN@host/..."): the facts never do.
    facts.url = url != nullptr ? redact_url_credentials(url) : "";
  }
  facts.dirty = dirty_files(repo.get());
  return facts;
}

std::optional<std::string> head_at_time(const std::string& path, std::int64_t epoch_seconds) {
  std::string error;
  const RepoPtr repo = open_repo(path, error);
  if (!repo) {
    return std::nullopt;
  }
  git_reflog* raw = nullptr;
  if (git_reflog_read(&raw, repo.get(), "HEAD") != 0) {
    return std::nullopt;
  }
  const ReflogPtr reflog(raw);
  // Entry 0 is the newest; the first one at or before the time is where HEAD was then.
  const std::size_t count = git_reflog_entrycount(reflog.get());
  for (std::size_t i = 0; i < count; ++i) {
    const git_reflog_entry* entry = git_reflog_entry_byindex(reflog.get(), i);
    const git_signature* who = git_reflog_entry_committer(entry);
    if (who != nullptr && who->when.time <= epoch_seconds) {
      return oid_hex(git_reflog_entry_id_new(entry));
    }
  }
  return std::nullopt;
}

}  // namespace envbisect
