#include "env/git_history.hpp"

#include "util/error.hpp"
#include "util/git_handle.hpp"

#include <git2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace envbisect {

namespace {

std::string hex(const git_oid& oid) {
  char text[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(text, sizeof text, &oid);
  return text;
}

// Return the commit id that revision `rev` of `repo` peels to.
git_oid resolve(git_repository* repo, const std::string& repo_path, const std::string& rev) {
  git_object* object = nullptr;
  if (git_revparse_single(&object, repo, rev.c_str()) != 0) {
    throw Error("git repository " + repo_path + ": cannot resolve revision '" + rev + "': " + last_git_error(repo));
  }
  const ObjectPtr found(object);
  git_object* commit = nullptr;
  if (git_object_peel(&commit, found.get(), GIT_OBJECT_COMMIT) != 0) {
    throw Error("git repository " + repo_path + ": revision '" + rev + "' is not a commit: " + last_git_error());
  }
  const ObjectPtr peeled(commit);
  return *git_object_id(peeled.get());
}

// Return the range's ends: both ids, the merge base(s), whether good is an ancestor of bad. Throw
// Error naming the repository and both revisions for what cannot be bisected (the same commit, bad
// before good, unrelated histories).
CommitRange range_ends(git_repository* repo, const std::string& repo_path, const git_oid& good, const git_oid& bad,
                       const std::string& good_rev, const std::string& bad_rev, const std::string& both) {
  if (git_oid_equal(&good, &bad) != 0) {
    throw Error("git repository " + repo_path + ": " + both + " are the same commit: nothing to bisect");
  }
  if (git_graph_descendant_of(repo, &good, &bad) == 1) {
    throw Error("git repository " + repo_path + ": bad '" + bad_rev + "' is an ancestor of good '" + good_rev +
                "': nothing to bisect (are good and bad swapped?)");
  }
  git_oid base;
  const int base_status = git_merge_base(&base, repo, &good, &bad);
  if (base_status == GIT_ENOTFOUND) {
    throw Error("git repository " + repo_path + ": " + both + " share no history: cannot bisect unrelated commits");
  }
  if (base_status != 0) {
    throw Error("git repository " + repo_path + ": cannot find the merge base of " + both + ": " + last_git_error(repo));
  }
  CommitRange range;
  range.good_id = hex(good);
  range.bad_id = hex(bad);
  range.merge_base = hex(base);
  range.good_is_ancestor = git_oid_equal(&base, &good) != 0;
  range.merge_bases.push_back(range.merge_base);
  if (!range.good_is_ancestor) {
    // Criss-cross merges leave several best common ancestors; git bisect tests each of them.
    git_oidarray bases = {nullptr, 0};
    if (git_merge_bases(&bases, repo, &good, &bad) != 0) {
      throw Error("git repository " + repo_path + ": cannot find the merge bases of " + both + ": " +
                  last_git_error(repo));
    }
    range.merge_bases.clear();
    for (std::size_t i = 0; i < bases.count; ++i) {
      range.merge_bases.push_back(hex(bases.ids[i]));
    }
    git_oidarray_dispose(&bases);
  }
  return range;
}

// The commits of `bad ^good` in the walk's order, each with its parents inside the range (indices),
// its parents outside it (ids) and its children inside it.
struct WalkedRange {
  std::vector<CommitPtr> commits;
  std::vector<std::vector<std::size_t>> parents;
  std::vector<std::vector<std::string>> outside;
  std::vector<std::vector<std::size_t>> children;
};

// Walk `bad ^good` (first parents only when asked); the walk's order is not trusted, only its set.
WalkedRange walk_range(git_repository* repo, const std::string& repo_path, const git_oid& good, const git_oid& bad,
                       const std::string& both, FirstParent first_parent) {
  git_revwalk* raw_walk = nullptr;
  if (git_revwalk_new(&raw_walk, repo) != 0) {
    throw Error("git repository " + repo_path + ": cannot walk history: " + last_git_error(), ExitCode::environment);
  }
  const WalkPtr walk(raw_walk);
  if (first_parent == FirstParent::yes) {
    git_revwalk_simplify_first_parent(walk.get());
  }
  if (git_revwalk_push(walk.get(), &bad) != 0 || git_revwalk_hide(walk.get(), &good) != 0) {
    throw Error("git repository " + repo_path + ": cannot walk " + both + ": " + last_git_error(repo));
  }
  WalkedRange walked;
  std::map<std::string, std::size_t> walk_index;
  git_oid oid;
  int status = 0;
  while ((status = git_revwalk_next(&oid, walk.get())) == 0) {
    git_commit* commit = nullptr;
    if (git_commit_lookup(&commit, repo, &oid) != 0) {
      throw Error("git repository " + repo_path + ": cannot read commit " + hex(oid) + ": " + last_git_error(repo));
    }
    walk_index.emplace(hex(oid), walked.commits.size());
    walked.commits.emplace_back(commit);
  }
  if (status != GIT_ITEROVER) {
    throw Error("git repository " + repo_path + ": walking " + both + " failed: " + last_git_error(repo));
  }

  // In-range parents of each walked commit (only the first parent with FirstParent::yes).
  const std::size_t count = walked.commits.size();
  walked.parents.resize(count);
  walked.outside.resize(count);
  walked.children.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned parent_count = git_commit_parentcount(walked.commits[i].get());
    const unsigned used = first_parent == FirstParent::yes ? std::min(parent_count, 1U) : parent_count;
    for (unsigned p = 0; p < used; ++p) {
      const auto it = walk_index.find(hex(*git_commit_parent_id(walked.commits[i].get(), p)));
      if (it != walk_index.end()) {
        walked.parents[i].push_back(it->second);
        walked.children[it->second].push_back(i);
      } else {
        walked.outside[i].push_back(hex(*git_commit_parent_id(walked.commits[i].get(), p)));
      }
    }
  }
  return walked;
}

// Return the walked commits in a deterministic topological order: a commit comes once all its
// in-range parents have; among ready ones the oldest committer time first, then the lowest id.
std::vector<std::size_t> topological_order(const WalkedRange& walked) {
  const std::size_t count = walked.commits.size();
  std::vector<std::size_t> missing(count);
  using Ready = std::tuple<git_time_t, std::string, std::size_t>;
  std::set<Ready> ready;
  auto ready_entry = [&](std::size_t i) {
    return Ready{git_commit_time(walked.commits[i].get()), hex(*git_commit_id(walked.commits[i].get())), i};
  };
  for (std::size_t i = 0; i < count; ++i) {
    missing[i] = walked.parents[i].size();
    if (missing[i] == 0) {
      ready.insert(ready_entry(i));
    }
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t i = std::get<2>(*ready.begin());
    ready.erase(ready.begin());
    order.push_back(i);
    for (std::size_t child : walked.children[i]) {
      if (--missing[child] == 0) {
        ready.insert(ready_entry(child));
      }
    }
  }
  // At this point every walked commit is placed: a commit graph has no cycles.
  return order;
}

}  // namespace

CommitRange commits_between(const std::string& repo_path, const std::string& good_rev, const std::string& bad_rev,
                            FirstParent first_parent) {
  ensure_libgit2();
  git_repository* raw_repo = nullptr;
  if (git_repository_open(&raw_repo, repo_path.c_str()) != 0) {
    throw Error("cannot open git repository " + repo_path + ": " + last_git_error());
  }
  const RepoPtr repo(raw_repo);
  const git_oid good = resolve(repo.get(), repo_path, good_rev);
  const git_oid bad = resolve(repo.get(), repo_path, bad_rev);
  const std::string both = "good '" + good_rev + "' (" + hex(good).substr(0, 12) + ") and bad '" + bad_rev + "' (" +
                           hex(bad).substr(0, 12) + ")";

  // Refuse what cannot be bisected before walking anything.
  CommitRange range = range_ends(repo.get(), repo_path, good, bad, good_rev, bad_rev, both);
  const WalkedRange walked = walk_range(repo.get(), repo_path, good, bad, both, first_parent);
  const std::vector<std::size_t> order = topological_order(walked);
  std::vector<std::size_t> position(walked.commits.size());
  for (std::size_t at = 0; at < order.size(); ++at) {
    position[order[at]] = at;
  }
  for (std::size_t i : order) {
    git_commit* const commit = walked.commits[i].get();
    RangeCommit entry;
    entry.id = hex(*git_commit_id(commit));
    const char* summary = git_commit_summary(commit);
    entry.summary = summary != nullptr ? summary : "";
    for (std::size_t parent : walked.parents[i]) {
      entry.parents.push_back(position[parent]);
    }
    entry.outside_parents = walked.outside[i];
    entry.root = git_commit_parentcount(commit) == 0;
    range.commits.push_back(std::move(entry));
  }
  if (range.commits.empty() || range.commits.back().id != range.bad_id) {
    // Only possible when bad is not the unique tip of its own range, which rev-list semantics exclude.
    throw Error("git repository " + repo_path + ": the range " + both + " does not end at the bad commit",
                ExitCode::environment);
  }
  return range;
}

}  // namespace envbisect
