#include "env/git_checkout.hpp"

#include "exec/runner.hpp"
#include "util/error.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using envbisect::env_test::slurp;
using envbisect::env_test::TempDir;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A repository made with the git CLI: three commits with fixed dates, ids kept in `commits`.
struct ThreeCommitRepo {
  TempDir dir{"git"};
  fs::path repo = dir.path / "repo";
  std::vector<std::string> commits;
  envbisect::LocalRunner runner;

  void git(std::vector<std::string> args, const std::string& date = "2026-01-01T00:00:00Z") { git_in(repo, args, date); }

  // Run git in `where` (the repository or a checkout); its output lands in git.out.
  void git_in(const fs::path& where, std::vector<std::string> args, const std::string& date = "2026-01-01T00:00:00Z") {
    envbisect::ProcessSpec spec;
    spec.argv = {"git", "-C", where.string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", dir.path.string()}, {"GIT_CONFIG_NOSYSTEM", "1"},
                {"GIT_AUTHOR_NAME", "t"}, {"GIT_AUTHOR_EMAIL", "t@example.com"}, {"GIT_COMMITTER_NAME", "t"},
                {"GIT_COMMITTER_EMAIL", "t@example.com"}, {"GIT_AUTHOR_DATE", date}, {"GIT_COMMITTER_DATE", date}};
    spec.stdout_path = (dir.path / "git.out").string();
    spec.stderr_path = (dir.path / "git.err").string();
    const envbisect::ProcessResult result = runner.run(spec);
    INFO(slurp(dir.path / "git.err"));
    REQUIRE(result.exit_code == 0);
  }

  void commit(const std::string& message, const std::string& date) {
    git({"add", "-A"});
    git({"commit", "-q", "-m", message}, date);
    git({"rev-parse", "HEAD"});
    commits.push_back(slurp(dir.path / "git.out").substr(0, 40));
  }

  ThreeCommitRepo() {
    fs::create_directories(repo);
    git({"init", "-q", "-b", "main"});
    write(repo / "a.txt", "one\n");
    write(repo / "sub" / "b.txt", "bee\n");
    write(repo / "run.sh", "#!/bin/sh\n");
    fs::permissions(repo / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
    commit("first", "2026-01-01T00:00:00Z");
    git({"tag", "-a", "v0.1", "-m", "release 0.1"});
    write(repo / "a.txt", "two\n");
    write(repo / "c.txt", "sea\n");
    commit("second", "2026-01-02T00:00:00Z");
    write(repo / "a.txt", "three\n");
    fs::remove_all(repo / "sub");
    commit("third", "2026-01-03T00:00:00Z");
  }
};

// Built once: the tests only read the repository (checkouts go next to it).
ThreeCommitRepo& shared_repo() {
  static ThreeCommitRepo fixture;
  return fixture;
}

}  // namespace

TEST_CASE("resolve_commit gives full ids for abbreviations and refs", "[env][git]") {
  ThreeCommitRepo& fixture = shared_repo();
  const std::string repo = fixture.repo.string();
  CHECK(envbisect::resolve_commit(repo, "HEAD") == fixture.commits[2]);
  CHECK(envbisect::resolve_commit(repo, "main") == fixture.commits[2]);
  CHECK(envbisect::resolve_commit(repo, fixture.commits[0].substr(0, 7)) == fixture.commits[0]);
  CHECK(envbisect::resolve_commit(repo, fixture.commits[1]) == fixture.commits[1]);
  CHECK(envbisect::resolve_commit(repo, "HEAD~2") == fixture.commits[0]);
}

TEST_CASE("resolve_commit errors name the repository and the revision", "[env][git]") {
  ThreeCommitRepo& fixture = shared_repo();
  const std::string repo = fixture.repo.string();
  CHECK_THROWS_WITH(envbisect::resolve_commit(repo, "no-such-branch"),
                    Catch::Contains(repo) && Catch::Contains("'no-such-branch'"));
  CHECK_THROWS_WITH(envbisect::resolve_commit(repo, "HEAD:a.txt"),
                    Catch::Contains(repo) && Catch::Contains("not a commit"));
  const std::string not_repo = (fixture.dir.path / "nothing").string();
  CHECK_THROWS_AS(envbisect::resolve_commit(not_repo, "HEAD"), envbisect::Error);
  CHECK_THROWS_WITH(envbisect::resolve_commit(not_repo, "HEAD"), Catch::Contains(not_repo));
}

TEST_CASE("checkout_commit makes a git working tree: HEAD detached at the commit, tags, clean", "[env][git]") {
  ThreeCommitRepo& fixture = shared_repo();
  const std::string repo = fixture.repo.string();
  const fs::path target = fixture.dir.path / "checkouts" / "worktree";
  envbisect::checkout_commit(repo, "HEAD~1", target.string());

  REQUIRE(fs::exists(target / ".git"));
  fixture.git_in(target, {"rev-parse", "HEAD"});
  CHECK(slurp(fixture.dir.path / "git.out") == fixture.commits[1] + "\n");
  fixture.git_in(target, {"describe", "--tags", "--dirty"});
  CHECK(slurp(fixture.dir.path / "git.out") == "v0.1-1-g" + fixture.commits[1].substr(0, 7) + "\n");
  fixture.git_in(target, {"status", "--porcelain"});
  CHECK(slurp(fixture.dir.path / "git.out").empty());
  // Detached: no branch of the checkout moves when something commits there.
  fixture.git_in(target, {"rev-parse", "--abbrev-ref", "HEAD"});
  CHECK(slurp(fixture.dir.path / "git.out") == "HEAD\n");

  // Self-contained: the objects are inside the checkout, no alternates pointing elsewhere.
  CHECK_FALSE(fs::exists(target / ".git" / "objects" / "info" / "alternates"));

  // What a benchmark does in its checkout stays there: another checkout of the same commit and the
  // repository see none of it.
  const fs::path other = fixture.dir.path / "checkouts" / "worktree-2";
  envbisect::checkout_commit(repo, fixture.commits[1], other.string());
  write(target / "a.txt", "changed by a benchmark\n");
  fixture.git_in(target, {"commit", "-q", "-a", "-m", "local"});
  CHECK(slurp(other / "a.txt") == "two\n");
  fixture.git_in(other, {"rev-parse", "HEAD"});
  CHECK(slurp(fixture.dir.path / "git.out") == fixture.commits[1] + "\n");
  CHECK(envbisect::resolve_commit(repo, "HEAD") == fixture.commits[2]);
  CHECK(slurp(fixture.repo / "a.txt") == "three\n");
}

TEST_CASE("checkout_commit writes an old tree elsewhere and leaves the repository alone", "[env][git]") {
  ThreeCommitRepo& fixture = shared_repo();
  const std::string repo = fixture.repo.string();
  const std::string index_before = slurp(fixture.repo / ".git" / "index");
  const fs::path target = fixture.dir.path / "checkouts" / "first";

  envbisect::checkout_commit(repo, fixture.commits[0].substr(0, 10), target.string());
  CHECK(slurp(target / "a.txt") == "one\n");
  CHECK(slurp(target / "sub" / "b.txt") == "bee\n");
  CHECK_FALSE(fs::exists(target / "c.txt"));
  CHECK((fs::status(target / "run.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);

  // The repository's HEAD, index and work tree are as they were.
  CHECK(envbisect::resolve_commit(repo, "HEAD") == fixture.commits[2]);
  CHECK(slurp(fixture.repo / ".git" / "index") == index_before);
  CHECK(slurp(fixture.repo / "a.txt") == "three\n");
  CHECK_FALSE(fs::exists(fixture.repo / "sub"));
  fixture.git({"status", "--porcelain"});
  CHECK(slurp(fixture.dir.path / "git.out").empty());

  // An existing target is refused, not overwritten.
  CHECK_THROWS_AS(envbisect::checkout_commit(repo, "HEAD", target.string()), envbisect::Error);
  CHECK(slurp(target / "a.txt") == "one\n");
  CHECK_THROWS_WITH(envbisect::checkout_commit(repo, "deadbeef", (fixture.dir.path / "x").string()),
                    Catch::Contains(repo) && Catch::Contains("deadbeef"));
}
