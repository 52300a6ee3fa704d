#include "env/git_history.hpp"

#include "util/error.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <git2.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using envbisect::CommitRange;
using envbisect::FirstParent;
using envbisect::env_test::TempDir;

namespace {

// A repository built in-process with libgit2: commits with empty trees, fixed times, named parents.
struct DagRepo {
  TempDir dir{"history"};  // removed after the destructor frees the repository
  git_repository* repo = nullptr;
  git_oid empty_tree{};
  std::map<std::string, std::string> ids;  // name -> hex id
  std::map<std::string, git_oid> oids;
  long long time = 1767225600;  // 2026-01-01, one minute more per commit

  DagRepo() {
    git_libgit2_init();
    REQUIRE(git_repository_init(&repo, dir.path.string().c_str(), 0) == 0);
    git_treebuilder* builder = nullptr;
    REQUIRE(git_treebuilder_new(&builder, repo, nullptr) == 0);
    REQUIRE(git_treebuilder_write(&empty_tree, builder) == 0);
    git_treebuilder_free(builder);
  }
  ~DagRepo() {
    git_repository_free(repo);
    git_libgit2_shutdown();
  }

  // Create commit `name` with `parents` (names); `ref` is moved to it when given.
  void commit(const std::string& name, const std::vector<std::string>& parents, const std::string& ref = "") {
    git_signature* signature = nullptr;
    REQUIRE(git_signature_new(&signature, "t", "t@example.com", time, 0) == 0);
    time += 60;
    git_tree* tree = nullptr;
    REQUIRE(git_tree_lookup(&tree, repo, &empty_tree) == 0);
    std::vector<git_commit*> parent_commits;
    for (const std::string& parent : parents) {
      git_commit* found = nullptr;
      REQUIRE(git_commit_lookup(&found, repo, &oids.at(parent)) == 0);
      parent_commits.push_back(found);
    }
    std::vector<const git_commit*> const_parents(parent_commits.begin(), parent_commits.end());
    git_oid oid;
    const std::string message = name + "\n\nbody of " + name + "\n";
    REQUIRE(git_commit_create(&oid, repo, ref.empty() ? nullptr : ref.c_str(), signature, signature, nullptr,
                              message.c_str(), tree, const_parents.size(), const_parents.data()) == 0);
    for (git_commit* parent : parent_commits) {
      git_commit_free(parent);
    }
    git_tree_free(tree);
    git_signature_free(signature);
    oids[name] = oid;
    char text[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(text, sizeof text, &oid);
    ids[name] = text;
  }

  std::string path() const { return dir.path.string(); }
};

// Return the names of a range's commits and, per commit, its parents' names.
std::vector<std::string> names(const DagRepo& fixture, const CommitRange& range) {
  std::map<std::string, std::string> by_id;
  for (const auto& [name, id] : fixture.ids) {
    by_id[id] = name;
  }
  std::vector<std::string> out;
  for (const envbisect::RangeCommit& commit : range.commits) {
    std::string entry = by_id.at(commit.id) + "<";
    for (std::size_t parent : commit.parents) {
      entry += by_id.at(range.commits.at(parent).id);
    }
    out.push_back(entry);
  }
  return out;
}

}  // namespace

TEST_CASE("commits_between lists a linear range oldest first, bad last", "[env][git_history]") {
  DagRepo fixture;
  fixture.commit("a", {});
  fixture.commit("b", {"a"});
  fixture.commit("c", {"b"});
  fixture.commit("d", {"c"}, "refs/heads/main");
  const CommitRange range = envbisect::commits_between(fixture.path(), fixture.ids["a"], "main", FirstParent::no);
  CHECK(names(fixture, range) == std::vector<std::string>{"b<", "c<b", "d<c"});
  CHECK(range.good_id == fixture.ids["a"]);
  CHECK(range.bad_id == fixture.ids["d"]);
  CHECK(range.good_is_ancestor);
  CHECK(range.merge_base == fixture.ids["a"]);
  CHECK(range.commits[0].summary == "b");
  // Abbreviated ids and relative revisions resolve like git's.
  CHECK(envbisect::commits_between(fixture.path(), "main~2", fixture.ids["d"].substr(0, 8), FirstParent::no)
            .commits.size() == 2);
}

TEST_CASE("commits_between keeps merges as a DAG, or a chain with --first-parent", "[env][git_history]") {
  //   a - m1 ------ M - t      (main; M merges side)
  //    \           /
  //     s1 - s2 --'
  DagRepo fixture;
  fixture.commit("a", {});
  fixture.commit("m1", {"a"});
  fixture.commit("s1", {"a"});
  fixture.commit("s2", {"s1"}, "refs/heads/side");
  fixture.commit("M", {"m1", "s2"});
  fixture.commit("t", {"M"}, "refs/heads/main");

  const CommitRange all = envbisect::commits_between(fixture.path(), fixture.ids["a"], "main", FirstParent::no);
  CHECK(names(fixture, all) == std::vector<std::string>{"m1<", "s1<", "s2<s1", "M<m1s2", "t<M"});
  CHECK(all.good_is_ancestor);

  const CommitRange first = envbisect::commits_between(fixture.path(), fixture.ids["a"], "main", FirstParent::yes);
  CHECK(names(fixture, first) == std::vector<std::string>{"m1<", "M<m1", "t<M"});

  // A good commit on the side branch removes its ancestors only: `main ^s1`.
  const CommitRange from_side = envbisect::commits_between(fixture.path(), "side~1", "main", FirstParent::no);
  CHECK(names(fixture, from_side) == std::vector<std::string>{"m1<", "s2<", "M<m1s2", "t<M"});
  CHECK(from_side.good_is_ancestor);
}

TEST_CASE("commits_between reports a good commit that is not an ancestor of bad", "[env][git_history]") {
  DagRepo fixture;
  fixture.commit("a", {});
  fixture.commit("m1", {"a"}, "refs/heads/main");
  fixture.commit("s1", {"a"}, "refs/heads/side");
  const CommitRange range = envbisect::commits_between(fixture.path(), "side", "main", FirstParent::no);
  CHECK_FALSE(range.good_is_ancestor);
  CHECK(range.merge_base == fixture.ids["a"]);
  CHECK(range.merge_bases == std::vector<std::string>{fixture.ids["a"]});
  CHECK(names(fixture, range) == std::vector<std::string>{"m1<"});
}

TEST_CASE("commits_between lists every merge base of a criss-cross, as git bisect tests each", "[env][git_history]") {
  //   x1 - X (merges y1) - gx     good: gx
  //  /    X                        bad:  gy
  // a - y1 - Y (merges x1) - gy    merge bases of gx and gy: x1 and y1
  DagRepo fixture;
  fixture.commit("a", {});
  fixture.commit("x1", {"a"});
  fixture.commit("y1", {"a"});
  fixture.commit("X", {"x1", "y1"});
  fixture.commit("Y", {"y1", "x1"});
  fixture.commit("gx", {"X"}, "refs/heads/good");
  fixture.commit("gy", {"Y"}, "refs/heads/bad");
  const CommitRange range = envbisect::commits_between(fixture.path(), "good", "bad", FirstParent::no);
  CHECK_FALSE(range.good_is_ancestor);
  std::vector<std::string> bases = range.merge_bases;
  std::sort(bases.begin(), bases.end());
  std::vector<std::string> expected{fixture.ids["x1"], fixture.ids["y1"]};
  std::sort(expected.begin(), expected.end());
  CHECK(bases == expected);
  CHECK(names(fixture, range) == std::vector<std::string>{"Y<", "gy<Y"});
  // Y's parents both lie outside the range; gy's one parent is inside it.
  CHECK(range.commits[0].outside_parents == std::vector<std::string>{fixture.ids["y1"], fixture.ids["x1"]});
  CHECK(range.commits[1].outside_parents.empty());
  CHECK_FALSE(range.commits[0].root);
  // An ancestor good has itself as its one merge base.
  CHECK(envbisect::commits_between(fixture.path(), fixture.ids["a"], "bad", FirstParent::no).merge_bases ==
        std::vector<std::string>{fixture.ids["a"]});
}

TEST_CASE("commits_between marks a root commit merged into the range", "[env][git_history]") {
  //   a - b - M     good: b, bad: M (merges the unrelated root r)
  //          /
  //         r
  DagRepo fixture;
  fixture.commit("a", {});
  fixture.commit("b", {"a"}, "refs/heads/main");
  fixture.commit("r", {});
  fixture.commit("M", {"b", "r"}, "refs/heads/main");
  const CommitRange range = envbisect::commits_between(fixture.path(), fixture.ids["b"], "main", FirstParent::no);
  CHECK(names(fixture, range) == std::vector<std::string>{"r<", "M<r"});
  CHECK(range.commits[0].root);
  CHECK(range.commits[0].outside_parents.empty());
  CHECK(range.commits[1].outside_parents == std::vector<std::string>{fixture.ids["b"]});
}

TEST_CASE("commits_between errors name the repository and the revisions", "[env][git_history]") {
  DagRepo fixture;
  fixture.commit("a", {}, "refs/heads/main");
  fixture.commit("b", {"a"}, "refs/heads/main");
  fixture.commit("x", {}, "refs/heads/other");  // an unrelated root
  const std::string repo = fixture.path();
  CHECK_THROWS_WITH(envbisect::commits_between(repo, "nope", "main", FirstParent::no),
                    Catch::Contains(repo) && Catch::Contains("'nope'"));
  CHECK_THROWS_WITH(envbisect::commits_between(repo, "main", "main~1", FirstParent::no),
                    Catch::Contains(repo) && Catch::Contains("'main~1' is an ancestor of good 'main'"));
  CHECK_THROWS_WITH(envbisect::commits_between(repo, "main", fixture.ids["b"], FirstParent::no),
                    Catch::Contains("same commit"));
  CHECK_THROWS_WITH(envbisect::commits_between(repo, "other", "main", FirstParent::no),
                    Catch::Contains("'other'") && Catch::Contains("'main'") && Catch::Contains("share no history"));
  const std::string missing = repo + "/no-such-dir";
  CHECK_THROWS_WITH(envbisect::commits_between(missing, "a", "b", FirstParent::no), Catch::Contains(missing));
}
