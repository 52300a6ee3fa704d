#include "exec/staging.hpp"

#include <catch2/catch.hpp>

#include <fstream>

#include "exec_test_support.hpp"
#include "util/error.hpp"

using envbisect::map_local_paths;
using envbisect::outermost_paths;

TEST_CASE("map_local_paths renames whole paths only", "[exec][staging]") {
  const std::vector<std::string> paths = {"/w/run", "/w/run/envs/abc", "/opt/recipe"};
  const std::string root = "/remote";
  CHECK(map_local_paths("/w/run", paths, root) == "/remote/w/run");
  CHECK(map_local_paths("/w/run/attempts/1/cache-x", paths, root) == "/remote/w/run/attempts/1/cache-x");
  // Inside PATH-like lists and after '=' as in --flag=VALUE.
  CHECK(map_local_paths("/w/run/envs/abc/bin:/usr/bin", paths, root) == "/remote/w/run/envs/abc/bin:/usr/bin");
  CHECK(map_local_paths("--out=/opt/recipe/x.json", paths, root) == "--out=/remote/opt/recipe/x.json");
  // Not a prefix of a longer name, not a path inside another path.
  CHECK(map_local_paths("/w/run2/x", paths, root) == "/w/run2/x");
  CHECK(map_local_paths("/w/runs", paths, root) == "/w/runs");
  CHECK(map_local_paths("/x/w/run", paths, root) == "/x/w/run");
  CHECK(map_local_paths("a/w/run", paths, root) == "a/w/run");
  // Every occurrence, once each: the renamed text is not renamed again.
  CHECK(map_local_paths("/w/run:/opt/recipe:/w/run", paths, root) == "/remote/w/run:/remote/opt/recipe:/remote/w/run");
  CHECK(map_local_paths("no paths here", paths, root) == "no paths here");
  CHECK(map_local_paths("", paths, root).empty());
  // The root itself is never a path to rename.
  CHECK(map_local_paths("/usr/bin", {"/"}, root) == "/usr/bin");
}

TEST_CASE("outermost_paths keeps the folders that hold the others", "[exec][staging]") {
  CHECK(outermost_paths({"/a/b/c", "/a/b", "/a/bc", "/d/", "/a/b"}) ==
        std::vector<std::string>{"/a/b", "/a/bc", "/d"});
  CHECK(outermost_paths({"/a/./b/../c"}) == std::vector<std::string>{"/a/c"});
  CHECK(outermost_paths({""}).empty());
}

TEST_CASE("StagingRunner refuses a root that is not an absolute folder", "[exec][staging]") {
  using envbisect::Error;
  using envbisect::SshTarget;
  using envbisect::StagingRunner;
  CHECK_THROWS_AS(StagingRunner(SshTarget{"root@h", "", ""}, "relative/dir"), Error);
  CHECK_THROWS_AS(StagingRunner(SshTarget{"root@h", "", ""}, "/"), Error);
  CHECK_THROWS_AS(StagingRunner(SshTarget{"", "", ""}, "/srv/stage"), Error);
  StagingRunner runner(SshTarget{"root@h", "", ""}, "/srv/stage/");
  CHECK(runner.remote_path("/w/run/x") == "/srv/stage/w/run/x");
  CHECK(runner.local_path("/srv/stage/w/run/x") == "/w/run/x");
  CHECK(runner.local_path("/srv/stagex/y") == "/srv/stagex/y");
  CHECK(runner.where() == "root@h:/srv/stage");
}

TEST_CASE("LocalRunner feeds a file as stdin when the spec names one", "[exec][staging]") {
  const envbisect::test::TempDir dir("stdin");
  {
    std::ofstream(dir.path / "in.txt") << "tar stream stand-in\n";
  }
  envbisect::ProcessSpec spec = envbisect::test::shell_spec("cat");
  spec.stdin_path = (dir.path / "in.txt").string();
  spec.stdout_path = (dir.path / "out.txt").string();
  envbisect::LocalRunner runner;
  CHECK(runner.run(spec).exit_code == 0);
  CHECK(envbisect::test::slurp(dir.path / "out.txt") == "tar stream stand-in\n");
  spec.stdin_path.clear();
  CHECK(runner.run(spec).exit_code == 0);
  CHECK(envbisect::test::slurp(dir.path / "out.txt").empty());  // /dev/null by default
}
