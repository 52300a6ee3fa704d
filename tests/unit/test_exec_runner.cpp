#include "exec/runner.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <new>
#include <optional>
#include <string>
#include <vector>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "exec/group_watchdog.hpp"
#include "exec_test_support.hpp"
#include "util/fd.hpp"

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

// While g_alloc_watch_parent holds this process's pid, an allocation in any other process (a forked
// child before its execve) writes one byte to g_alloc_watch_fd: write(2) is safe there, malloc is not.
std::atomic<pid_t> g_alloc_watch_parent{0};
std::atomic<int> g_alloc_watch_fd{-1};

void* watched_allocation(std::size_t size) noexcept {
  const pid_t parent = g_alloc_watch_parent.load(std::memory_order_relaxed);
  if (parent != 0 && ::getpid() != parent) {
    (void)!::write(g_alloc_watch_fd.load(), "n", 1);
  }
  return std::malloc(size == 0 ? 1 : size);
}

}  // namespace

// The whole unaligned family is replaced, so that every new and delete of the binary pairs malloc with
// free (ASan checks the pairs; the aligned forms stay the runtime's, paired among themselves).
void* operator new(std::size_t size) {
  if (void* memory = watched_allocation(size)) {
    return memory;
  }
  throw std::bad_alloc();
}

void* operator new[](std::size_t size) {
  return operator new(size);
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return watched_allocation(size);
}

void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return watched_allocation(size);
}

// GCC, seeing new inlined beside free, would call the pair a mismatch.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* memory) noexcept {
  std::free(memory);
}

void operator delete[](void* memory) noexcept {
  std::free(memory);
}

void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, std::size_t) noexcept {
  std::free(memory);
}

void operator delete(void* memory, const std::nothrow_t&) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, const std::nothrow_t&) noexcept {
  std::free(memory);
}
#pragma GCC diagnostic pop

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

TEST_CASE("the child inherits no descriptor but stdin, stdout and stderr", "[exec][runner]") {
  TempDir dir;
  LocalRunner runner;
  // Not close-on-exec, and opened before the runner's own descriptors: a low number that only an
  // explicit close keeps from the child.
  const int leaked = ::open("/dev/null", O_RDONLY);
  REQUIRE(leaked >= 3);
  ProcessSpec spec = shell_spec("if [ -e /proc/$$/fd/" + std::to_string(leaked) + " ]; then echo open; else echo closed; fi");
  spec.stdout_path = (dir.path / "out.log").string();
  const ProcessResult result = runner.run(spec);
  ::close(leaked);
  REQUIRE(result.exit_code == 0);
  CHECK(slurp(dir.path / "out.log") == "closed\n");
}

namespace {

// Set by the test below: an exit handler that leaves a mark when it runs in any process but this one.
pid_t g_exit_mark_owner = 0;
char g_exit_mark_path[512] = {};

void mark_foreign_exit() {
  if (g_exit_mark_owner != 0 && ::getpid() != g_exit_mark_owner) {
    const int fd = ::open(g_exit_mark_path, O_WRONLY | O_CREAT, 0600);
    if (fd >= 0) {
      ::close(fd);
    }
  }
}

}  // namespace

TEST_CASE("a child that cannot start runs none of our exit handlers", "[exec][runner]") {
  TempDir dir;
  const std::string mark = (dir.path / "exit-handler-ran-in-child").string();
  REQUIRE(mark.size() < sizeof g_exit_mark_path);
  mark.copy(g_exit_mark_path, mark.size());
  g_exit_mark_path[mark.size()] = '\0';
  g_exit_mark_owner = ::getpid();
  static const bool registered = std::atexit(mark_foreign_exit) == 0;
  REQUIRE(registered);
  LocalRunner runner;
  ProcessSpec spec = shell_spec("exit 0");
  spec.cwd = (dir.path / "missing").string();  // chdir fails in the child, after the fork
  const ProcessResult result = runner.run(spec);
  g_exit_mark_owner = 0;
  CHECK_FALSE(result.spawned);
  CHECK_THAT(result.spawn_error, Catch::Contains("No such file"));
  CHECK_FALSE(fs::exists(mark));
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

namespace {

// Return true while `pid` runs (a zombie or a vanished process does not).
bool process_runs(pid_t pid) {
  return envbisect::identify_process(pid).has_value();
}

// Wait up to `limit` for `pid` to stop running, reaping it when it is our child. The claim the tests
// check is that the process ends, not how fast: a loaded 2-core machine (an ASan build beside a test
// run) has taken over a second to schedule the watchdog and reap the group, so the limit is generous
// and the wait returns as soon as the process is gone.
bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (process_runs(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::waitpid(pid, nullptr, WNOHANG);
  return true;
}

}  // namespace

TEST_CASE("a child dies with the process that spawned it (PR_SET_PDEATHSIG)", "[exec][runner][pdeathsig]") {
  TempDir dir;
  const std::string pid_file = (dir.path / "pid").string();
  const pid_t spawner = ::fork();
  REQUIRE(spawner >= 0);
  if (spawner == 0) {
    // A stand-in for envbisect: it waits on its benchmark until it is killed with SIGKILL.
    LocalRunner runner;
    runner.run(shell_spec("echo $$ > " + pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file + "; exec sleep 30"));
    ::_exit(0);
  }
  pid_t benchmark = 0;
  for (int i = 0; i < 500 && benchmark == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::string text = slurp(pid_file);
    benchmark = text.empty() ? 0 : static_cast<pid_t>(std::stol(text));
  }
  REQUIRE(benchmark > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let sh exec sleep
  REQUIRE(process_runs(benchmark));
  ::kill(spawner, SIGKILL);
  ::waitpid(spawner, nullptr, 0);
  const bool gone = gone_within(benchmark, std::chrono::seconds(10));
  if (!gone) {
    ::kill(benchmark, SIGKILL);
  }
  CHECK(gone);
}

TEST_CASE("on_spawn gets the identity of the child's process group leader", "[exec][runner]") {
  LocalRunner runner;
  ProcessSpec spec = shell_spec("sleep 0.1");
  std::optional<envbisect::ProcessIdentity> seen;
  spec.on_spawn = [&](const envbisect::ProcessIdentity& identity) { seen = identity; };
  const ProcessResult result = runner.run(spec);
  CHECK(result.exit_code == 0);
  REQUIRE(seen.has_value());
  CHECK(seen->group == seen->pid);
  CHECK(seen->start_ticks > 0);
  CHECK(seen->boot_id == envbisect::current_boot_id());
  CHECK_FALSE(seen->boot_id.empty());
}

TEST_CASE("a log past max_log_bytes keeps its beginning and its end, and the run still counts",
          "[exec][runner][logcap]") {
  TempDir dir;
  LocalRunner runner;
  ProcessSpec spec = shell_spec("echo FIRST; head -c 20000000 /dev/zero | tr '\\0' x; echo; echo LAST");
  spec.stdout_path = (dir.path / "out.log").string();
  spec.stderr_path = (dir.path / "err.log").string();
  spec.max_log_bytes = 1 << 20;
  const ProcessResult result = runner.run(spec);
  CHECK(result.exit_code == 0);
  CHECK(result.log_bytes_cut > 18000000);
  const std::string log = slurp(dir.path / "out.log");
  CHECK(log.size() < (1 << 20) + 512);
  CHECK(log.rfind("FIRST\n", 0) == 0);
  CHECK(log.size() > 5);
  CHECK(log.substr(log.size() - 5) == "LAST\n");
  CHECK(log.find("bytes of output cut here") != std::string::npos);
}

TEST_CASE("a capped log keeps head and tail exactly", "[exec][runner][logcap]") {
  TempDir dir;
  const std::string path = (dir.path / "log").string();
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    envbisect::CappedLog log(fd, 10);  // 5 bytes of head, 5 of tail
    log.write("0123", 4);
    log.write("456789AB", 8);
    log.write("CDEF", 4);
    log.finish();
    CHECK(log.dropped() == 6);
    ::close(fd);
  }
  const std::string text = slurp(path);
  CHECK(text.rfind("01234\n[envbisect: 6 bytes of output cut here", 0) == 0);
  CHECK(text.substr(text.size() - 5) == "BCDEF");
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    envbisect::CappedLog log(fd, 10);
    log.write("0123456789", 10);  // exactly the cap: nothing cut, no marker
    log.finish();
    CHECK(log.dropped() == 0);
    ::close(fd);
  }
  CHECK(slurp(path) == "0123456789");
}

TEST_CASE("end_stale_group kills a recorded group and spares a reused pid", "[exec][runner][stale]") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(child, child);
  std::optional<envbisect::ProcessIdentity> identity;
  for (int i = 0; i < 100 && !(identity && identity->group == child); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    identity = envbisect::identify_process(child);
  }
  REQUIRE(identity.has_value());
  // Another start time: the pid would name another program now, which must be left alone.
  envbisect::ProcessIdentity reused = *identity;
  reused.start_ticks += 1;
  CHECK(envbisect::end_stale_group(reused).empty());
  envbisect::ProcessIdentity other_boot = *identity;
  other_boot.boot_id = "another-boot";
  CHECK(envbisect::end_stale_group(other_boot).empty());
  CHECK(process_runs(child));
  CHECK(envbisect::end_stale_group(*identity) == std::vector<pid_t>{child});
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("the group watchdog ends a benchmark's whole group when envbisect is killed", "[exec][runner][watchdog]") {
  TempDir dir;
  const std::string pid_file = (dir.path / "helper").string();
  const pid_t spawner = ::fork();
  REQUIRE(spawner >= 0);
  if (spawner == 0) {
    // A stand-in for envbisect with its watchdog; the benchmark leaves a helper in its group.
    envbisect::start_group_watchdog();
    LocalRunner runner;
    runner.run(shell_spec("sleep 30 & echo $! > " + pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file +
                          "; sleep 30"));
    ::_exit(0);
  }
  pid_t helper = 0;
  for (int i = 0; i < 500 && helper == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::string text = slurp(pid_file);
    helper = text.empty() ? 0 : static_cast<pid_t>(std::stol(text));
  }
  REQUIRE(helper > 0);
  REQUIRE(process_runs(helper));
  ::kill(spawner, SIGKILL);
  ::waitpid(spawner, nullptr, 0);
  const bool gone = gone_within(helper, std::chrono::seconds(10));
  if (!gone) {
    ::kill(helper, SIGKILL);
  }
  CHECK(gone);
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

TEST_CASE("nothing allocates in the child between fork and execve", "[exec][runner][fork]") {
  // Runs start from several threads (--slots, staging): a lock another thread holds at fork() stays
  // held in the child forever, so the child may take none before execve, an allocator's included.
  // Asio's fork notification once allocated there, and under ASan a child spun on the allocator's
  // lock while its run waited for the exec, for good. operator new (above) reports any allocation
  // made in another process than this one while the watch is on.
  int ends[2];
  REQUIRE(::pipe2(ends, O_CLOEXEC | O_NONBLOCK) == 0);
  const envbisect::UniqueFd report(ends[0]);
  const envbisect::UniqueFd reporter(ends[1]);
  g_alloc_watch_fd.store(reporter.get());
  g_alloc_watch_parent.store(::getpid());
  TempDir dir;
  LocalRunner runner;
  ProcessSpec plain;
  plain.argv = {"/bin/true"};
  ProcessSpec full = shell_spec("exit 3");  // an environment, a working directory, output files
  full.cwd = dir.path.string();
  full.stdout_path = (dir.path / "out").string();
  full.stderr_path = (dir.path / "err").string();
  ProcessSpec missing;
  missing.argv = {"/nonexistent/program"};  // execve fails: the child reports errno and ends
  const ProcessResult plain_result = runner.run(plain);
  const ProcessResult full_result = runner.run(full);
  const ProcessResult missing_result = runner.run(missing);
  g_alloc_watch_parent.store(0);
  g_alloc_watch_fd.store(-1);
  char seen[64];
  const ssize_t allocations = ::read(report.get(), seen, sizeof seen);
  CHECK(plain_result.exit_code == 0);
  CHECK(full_result.exit_code == 3);
  CHECK_FALSE(missing_result.spawned);
  CHECK(allocations <= 0);
}
