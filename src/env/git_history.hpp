#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace envbisect {

// Whether a commit range follows only the first parent of each merge (`git rev-list --first-parent`).
enum class FirstParent { yes, no };

// One commit of a range, with its parents that are inside the range.
struct RangeCommit {
  std::string id;                    // full hex commit id
  std::string summary;               // first line of the commit message
  std::vector<std::size_t> parents;  // indices into CommitRange::commits, always lower than this one's
  std::vector<std::string> outside_parents;  // full ids of its parents outside the range (reachable from good)
  bool root = false;                 // no parent at all: a root commit inside the range
};

// The commits to bisect between a good and a bad revision: `git rev-list bad ^good`, as a DAG.
struct CommitRange {
  std::string good_id;               // the good revision, resolved to a full commit id
  std::string bad_id;                // the bad revision, resolved; always commits.back().id
  std::vector<RangeCommit> commits;  // topological order (parents first, oldest first among equals);
                                     // the bad commit is last; the good commit is not included
  bool good_is_ancestor = true;      // false when good is on another branch than bad (see merge_base)
  std::string merge_base;            // best common ancestor of good and bad (== good_id when an ancestor)
  std::vector<std::string> merge_bases;  // every best common ancestor (`git merge-base --all`): more than one
                                         // where branches merged into each other both ways
};

// Return every commit reachable from `bad_rev` and not from `good_rev` in the repository at
// `repo_path`, with its in-range parents, in topological order (like `git rev-list bad ^good`);
// FirstParent::yes follows first parents only, giving a chain. When good is not an ancestor of bad,
// the range is still `bad ^good` (git's rule) and good_is_ancestor is false: the caller must first
// test merge_bases, as git bisect does (bad there means the change was fixed, not introduced).
// Throw Error naming the repo and the revisions when a revision does not resolve to a commit, when
// the histories share no commit, or when bad is good or an ancestor of good (nothing to bisect).
CommitRange commits_between(const std::string& repo_path, const std::string& good_rev, const std::string& bad_rev,
                            FirstParent first_parent);

}  // namespace envbisect
