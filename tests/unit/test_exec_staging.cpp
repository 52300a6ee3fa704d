#include "exec/staging.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
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


TEST_CASE("StagingRunner sends, runs under the root, fetches back, and never counts a transfer as the run's",
          "[exec][staging]") {
  const envbisect::test::TempDir dir("staging");
  const std::filesystem::path bin = dir.path / "bin";
  const std::filesystem::path root = dir.path / "root";
  const std::filesystem::path attempt = dir.path / "run" / "attempt";
  std::filesystem::create_directories(bin);
  std::filesystem::create_directories(attempt);
  std::ofstream(attempt / "input.txt") << "sent\n";
  envbisect::ProcessSpec spec = envbisect::test::shell_spec("cat input.txt; echo made >output.txt; pwd");
  spec.cwd = attempt.string();
  spec.write_paths = {attempt.string()};
  spec.stdout_path = (dir.path / "stdout.txt").string();
  spec.stderr_path = (dir.path / "stderr.txt").string();
  {
    const envbisect::test::LoopbackSsh ssh(bin, "no line refused");
    envbisect::StagingRunner runner(envbisect::SshTarget{"root@loopback", "", ""}, root.string());
    const envbisect::ProcessResult result = runner.run(spec);
    CHECK(result.exit_code == 0);
    // It ran in the remote copy of the attempt folder, and what it wrote came back.
    CHECK(envbisect::test::slurp(dir.path / "stdout.txt") == "sent\n" + (root.string() + attempt.string()) + "\n");
    CHECK(envbisect::test::slurp(attempt / "output.txt") == "made\n");
  }
  // The runner's end removed the fetched folder on the remote side.
  CHECK_FALSE(std::filesystem::exists(root.string() + attempt.string()));

  // A fetch that fails is an environment error naming the path and the host, and what the run wrote
  // is still there on the remote side (removed only once it is here).
  std::filesystem::remove(attempt / "output.txt");
  const envbisect::test::LoopbackSsh ssh(bin, "tar -cf");
  envbisect::StagingRunner runner(envbisect::SshTarget{"root@loopback", "", ""}, root.string());
  try {
    runner.run(spec);
    FAIL("a failed fetch must throw");
  } catch (const envbisect::Error& error) {
    CHECK(error.code() == envbisect::ExitCode::environment);
    CHECK(std::string(error.what()).find("fetching " + attempt.string() + " from root@loopback") != std::string::npos);
    CHECK(std::string(error.what()).find("Connection reset by peer") != std::string::npos);
  }
  CHECK(envbisect::test::slurp(root.string() + attempt.string() + "/output.txt") == "made\n");
}

TEST_CASE("StagingRunner: a send that fails stops the run instead of failing the benchmark", "[exec][staging]") {
  const envbisect::test::TempDir dir("staging-send");
  std::filesystem::create_directories(dir.path / "bin");
  std::filesystem::create_directories(dir.path / "attempt");
  const envbisect::test::LoopbackSsh ssh(dir.path / "bin", "tar ");
  envbisect::StagingRunner runner(envbisect::SshTarget{"root@loopback", "", ""}, (dir.path / "root").string());
  envbisect::ProcessSpec spec = envbisect::test::shell_spec("true");
  spec.write_paths = {(dir.path / "attempt").string()};
  try {
    runner.run(spec);
    FAIL("a failed send must throw");
  } catch (const envbisect::Error& error) {
    CHECK(error.code() == envbisect::ExitCode::environment);
    CHECK(std::string(error.what()).find("sending 1 paths to root@loopback") != std::string::npos);
  }
}
