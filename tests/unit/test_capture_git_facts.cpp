#include "capture/git_facts.hpp"

#include "exec/runner.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace envbisect;

namespace {

// A repository made with the git CLI in a temporary folder (removed at the end).
struct GitRepo {
  fs::path dir;
  fs::path repo;
  LocalRunner runner;

  GitRepo() {
    std::string pattern = (fs::temp_directory_path() / "envbisect-capgit-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
    repo = dir / "repo";
    fs::create_directories(repo);
    git({"init", "-q", "-b", "main"});
  }
  ~GitRepo() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  // Run git in the repository with fixed identities and dates (also the reflog's).
  void git(const std::vector<std::string>& args, const std::string& date = "2026-11-12T10:00:00Z") {
    ProcessSpec spec;
    spec.argv = {"git", "-C", repo.string(), "-c", "commit.gpgsign=false"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", dir.string()}, {"GIT_CONFIG_NOSYSTEM", "1"},
                {"GIT_AUTHOR_NAME", "t"}, {"GIT_AUTHOR_EMAIL", "t@example.com"}, {"GIT_COMMITTER_NAME", "t"},
                {"GIT_COMMITTER_EMAIL", "t@example.com"}, {"GIT_AUTHOR_DATE", date}, {"GIT_COMMITTER_DATE", date}};
    spec.stderr_path = (dir / "git.err").string();
    REQUIRE(runner.run(spec).exit_code == 0);
  }

  void write(const std::string& name, const std::string& text) {
    fs::create_directories((repo / name).parent_path());
    std::ofstream(repo / name) << text;
  }

  void commit(const std::string& message, const std::string& date) {
    git({"add", "-A"}, date);
    git({"commit", "-q", "-m", message}, date);
  }
};

}  // namespace

TEST_CASE("read_repo_facts reads HEAD, branch, origin and every uncommitted file", "[capture][git]") {
  GitRepo r;
  r.write("a.txt", "a\n");
  r.write("b.txt", "b\n");
  r.commit("one", "2026-11-12T10:00:00Z");
  RepoFacts clean = read_repo_facts(r.repo.string());
  CHECK(clean.error.empty());
  CHECK(clean.head.size() == 40);
  CHECK(clean.branch == "main");
  CHECK(clean.url.empty());
  CHECK(clean.dirty.empty());

  r.git({"remote", "add", "origin", "https://example.com/dflash.git"});
  r.write("a.txt", "changed\n");           // modified
  r.write("new/dir/c.txt", "c\n");         // untracked, in an untracked folder
  r.write("staged.txt", "s\n");
  r.git({"add", "staged.txt"});            // staged
  r.git({"rm", "-q", "b.txt"});            // deleted
  r.write(".gitignore", "*.log\n");        // untracked
  r.write("ignored.log", "x\n");           // ignored: not listed
  const RepoFacts dirty = read_repo_facts(r.repo.string());
  CHECK(dirty.head == clean.head);
  CHECK(dirty.url == "https://example.com/dflash.git");
  CHECK(dirty.dirty == std::vector<std::string>{".gitignore", "a.txt", "b.txt", "new/dir/c.txt", "staged.txt"});

  r.git({"checkout", "-q", "--detach"});
  CHECK(read_repo_facts(r.repo.string()).branch.empty());

  // An origin with a password or token in it: the capture keeps user and host, never the secret.
  r.git({"remote", "set-url", "origin", "https://ci-bot:s3cret-pw@example.com/dflash.git"});
  CHECK(read_repo_facts(r.repo.string()).url == "https://ci-bot:<redacted>@example.com/dflash.git");
}

TEST_CASE("read_repo_facts reports a missing repository or an unborn HEAD as an error value", "[capture][git]") {
  GitRepo r;
  CHECK_THAT(read_repo_facts(r.repo.string()).error, Catch::Contains("HEAD"));
  CHECK_THAT(read_repo_facts((r.dir / "nowhere").string()).error, Catch::Contains("cannot open git repository"));
}

TEST_CASE("head_at_time finds where HEAD was from the reflog", "[capture][git]") {
  GitRepo r;
  r.write("a.txt", "1\n");
  r.commit("one", "2026-11-12T10:00:00Z");  // 1794477600
  const std::string first = read_repo_facts(r.repo.string()).head;
  r.write("a.txt", "2\n");
  r.commit("two", "2026-11-12T12:00:00Z");
  const std::string second = read_repo_facts(r.repo.string()).head;
  r.git({"checkout", "-q", first}, "2026-11-12T14:00:00Z");

  CHECK(head_at_time(r.repo.string(), 1794477600 - 1) == std::nullopt);
  CHECK(head_at_time(r.repo.string(), 1794477600 + 3600) == first);
  CHECK(head_at_time(r.repo.string(), 1794477600 + 3 * 3600) == second);
  CHECK(head_at_time(r.repo.string(), 1794477600 + 5 * 3600) == first);
  CHECK(head_at_time((r.dir / "nowhere").string(), 1794477600) == std::nullopt);
}
