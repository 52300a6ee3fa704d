#include "exec/runner.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "exec_test_support.hpp"

namespace fs = std::filesystem;
using envbisect::LocalRunner;
using envbisect::ProcessResult;
using envbisect::ProcessSpec;
using envbisect::test::shell_spec;
using envbisect::test::slurp;
using envbisect::test::TempDir;

namespace {

bool process_exists(pid_t pid) {
  return fs::exists("/proc/" + std::to_string(pid));
}

}  // namespace

TEST_CASE("runner reports exit codes and signals apart", "[exec][runner]") {
  LocalRunner runner;
  const ProcessResult ok = runner.run(shell_spec("exit 0"));
  CHECK(ok.spawned);
  CHECK(ok.exit_code == 0);
  CHECK(ok.signal == 0);

  const ProcessResult nine = runner.run(shell_spec("exit 9"));
  CHECK(nine.exit_code == 9);
  CHECK(nine.signal == 0);

  const ProcessResult killed = runner.run(shell_spec("kill -9 $$"));
  CHECK(killed.exit_code == -1);
  CHECK(killed.signal == SIGKILL);
  CHECK_FALSE(killed.timed_out);

  const ProcessResult termed = runner.run(shell_spec("kill -TERM $$"));
  CHECK(termed.signal == SIGTERM);
}

TEST_CASE("runner writes stdout and stderr to their files", "[exec][runner]") {
  TempDir dir;
  LocalRunner runner;
  ProcessSpec spec = shell_spec("echo out; echo err >&2; read x || echo stdin-empty");
  spec.stdout_path = (dir.path / "out.log").string();
  spec.stderr_path = (dir.path / "err.log").string();
  const ProcessResult result = runner.run(spec);
  CHECK(result.exit_code == 0);
  CHECK(slurp(dir.path / "out.log") == "out\nstdin-empty\n");
  CHECK(slurp(dir.path / "err.log") == "err\n");
}

TEST_CASE("runner gives the child exactly the given environment", "[exec][runner]") {
  TempDir dir;
  ::setenv("ENVBISECT_TEST_LEAK", "leaked", 1);
  LocalRunner runner;
  ProcessSpec spec;
  spec.argv = {"env"};
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"ONLY_THIS", "a=b c"}};
  spec.stdout_path = (dir.path / "env.log").string();
  REQUIRE(runner.run(spec).exit_code == 0);
  CHECK(slurp(dir.path / "env.log") == "ONLY_THIS=a=b c\nPATH=/usr/bin:/bin\n");
  ::unsetenv("ENVBISECT_TEST_LEAK");
}

TEST_CASE("runner passes argv verbatim, never through a shell", "[exec][runner]") {
  TempDir dir;
  LocalRunner runner;
  ProcessSpec spec;
  spec.argv = {"printf", "[%s]\\n", "a b", "$(touch pwned)", "; rm -rf / |", "'\"", ""};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.cwd = dir.path.string();
  spec.stdout_path = (dir.path / "out.log").string();
  REQUIRE(runner.run(spec).exit_code == 0);
  CHECK(slurp(dir.path / "out.log") == "[a b]\n[$(touch pwned)]\n[; rm -rf / |]\n['\"]\n[]\n");
  CHECK_FALSE(fs::exists(dir.path / "pwned"));
}

TEST_CASE("runner resolves argv[0] on the child's PATH only", "[exec][runner]") {
  LocalRunner runner;
  ProcessSpec spec;
  spec.argv = {"true"};
  spec.env = {{"PATH", "/nonexistent-dir"}};
  const ProcessResult missing_on_path = runner.run(spec);
  CHECK_FALSE(missing_on_path.spawned);
  CHECK_THAT(missing_on_path.spawn_error, Catch::Contains("true") && Catch::Contains("/nonexistent-dir"));

  spec.argv = {"envbisect-no-such-program"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  const ProcessResult unknown = runner.run(spec);
  CHECK_FALSE(unknown.spawned);
  CHECK_THAT(unknown.spawn_error, Catch::Contains("envbisect-no-such-program"));

  spec.argv = {"/no/such/binary"};
  const ProcessResult absolute = runner.run(spec);
  CHECK_FALSE(absolute.spawned);
  CHECK_THAT(absolute.spawn_error, Catch::Contains("/no/such/binary") && Catch::Contains("No such file"));
}

TEST_CASE("runner runs in the given working directory", "[exec][runner]") {
  TempDir dir;
  LocalRunner runner;
  ProcessSpec spec = shell_spec("pwd");
  spec.cwd = dir.path.string();
  spec.stdout_path = (dir.path / "pwd.log").string();
  REQUIRE(runner.run(spec).exit_code == 0);
  CHECK(slurp(dir.path / "pwd.log") == fs::canonical(dir.path).string() + "\n");

  spec.cwd = (dir.path / "missing").string();
  const ProcessResult bad = runner.run(spec);
  CHECK_FALSE(bad.spawned);
  CHECK_THAT(bad.spawn_error, Catch::Contains("missing"));
}

TEST_CASE("runner timeout kills the child's whole group", "[exec][runner]") {
  envbisect::install_process_guards();
  TempDir dir;
  LocalRunner runner;
  // The grandchild ignores SIGTERM, so only the SIGKILL after the grace period stops it.
  ProcessSpec spec = shell_spec("(trap '' TERM; exec sleep 30) & echo $! > gc.pid; sleep 30");
  spec.cwd = dir.path.string();
  spec.timeout = std::chrono::milliseconds(200);
  const ProcessResult result = runner.run(spec);
  CHECK(result.spawned);
  CHECK(result.timed_out);
  CHECK_FALSE(result.interrupted);
  CHECK(result.signal == SIGTERM);
  CHECK(result.wall_seconds < 1.5);
  const pid_t grandchild = std::stoi(slurp(dir.path / "gc.pid"));
  CHECK_FALSE(process_exists(grandchild));
}

TEST_CASE("runner kills what a finished child left in its group", "[exec][runner]") {
  envbisect::install_process_guards();
  TempDir dir;
  LocalRunner runner;
  ProcessSpec spec = shell_spec("sleep 30 & echo $! > daemon.pid; exit 4");
  spec.cwd = dir.path.string();
  const ProcessResult result = runner.run(spec);
  CHECK(result.exit_code == 4);
  CHECK(result.wall_seconds < 1.0);
  const pid_t daemon = std::stoi(slurp(dir.path / "daemon.pid"));
  CHECK_FALSE(process_exists(daemon));
}

TEST_CASE("runner stops the child soon after SIGTERM reaches us", "[exec][runner]") {
  // In a forked copy of the test process, so the interrupt flag does not leak into other tests.
  const pid_t tester = ::fork();
  REQUIRE(tester >= 0);
  if (tester == 0) {
    envbisect::install_process_guards();
    std::thread signaller([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ::kill(::getpid(), SIGTERM);
    });
    LocalRunner runner;
    const ProcessResult result = runner.run(shell_spec("sleep 30"));
    signaller.join();
    const bool good = envbisect::interrupt_requested() && result.interrupted && !result.timed_out &&
                      result.signal == SIGTERM && result.wall_seconds < 0.5;
    ::_exit(good ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(tester, &status, 0) == tester);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("allowed_parent_env keeps only the allow-list", "[exec][runner]") {
  ::setenv("PIP_FIND_LINKS", "/opt/wheels", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "3", 1);
  const auto env = envbisect::allowed_parent_env();
  CHECK(env.count("PATH") == 1);
  CHECK(env.count("PIP_FIND_LINKS") == 0);
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);
  const auto with_cuda = envbisect::allowed_parent_env(envbisect::InheritCudaDevices::yes);
  CHECK(with_cuda.at("CUDA_VISIBLE_DEVICES") == "3");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
}
