#include "exec/ssh_runner.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "exec_test_support.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using envbisect::LocalRunner;
using envbisect::ProcessResult;
using envbisect::ProcessSpec;
using envbisect::test::slurp;
using envbisect::test::TempDir;

namespace {

// Run `line` the way sshd does: the login shell gets it as one string after -c.
ProcessResult run_as_remote(const std::string& line, const fs::path& out, std::chrono::milliseconds timeout = {}) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", line};
  spec.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LEAKED", "from-sshd"}};
  spec.stdout_path = out.string();
  spec.stderr_path = out.string() + ".err";
  spec.timeout = timeout;
  LocalRunner runner;
  return runner.run(spec);
}

}  // namespace

TEST_CASE("remote_shell_quote gives the shell back every word byte for byte", "[exec][ssh]") {
  CHECK(envbisect::remote_shell_quote("plain/path-1.0+cu130") == "plain/path-1.0+cu130");
  CHECK(envbisect::remote_shell_quote("") == "''");
  CHECK(envbisect::remote_shell_quote("it's") == "'it'\\''s'");
  TempDir dir;
  const std::vector<std::string> words = {"", " ", "a b", "it's", "\"q\"", "$HOME", "`id`", "$(id)", "*", "a\nb",
                                          "\\", "!x", ";rm -rf /", "--x=1", "tab\there", "'", "''", "~", "#c"};
  std::string line = "printf '%s\\0'";
  for (const std::string& word : words) {
    line += " " + envbisect::remote_shell_quote(word);
  }
  ProcessResult result = run_as_remote(line, dir.path / "out");
  REQUIRE(result.exit_code == 0);
  std::string printed = slurp(dir.path / "out");
  std::vector<std::string> back;
  std::size_t begin = 0;
  for (std::size_t at = printed.find('\0'); at != std::string::npos; at = printed.find('\0', begin)) {
    back.push_back(printed.substr(begin, at - begin));
    begin = at + 1;
  }
  CHECK(back == words);
}

TEST_CASE("remote_command_line runs argv with exactly the spec's environment, in its cwd", "[exec][ssh]") {
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "pwd; env | sort; echo \"arg:$0\"; exit 7", "it's $x"};
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"SPACED", "a b 'c'"}};
  spec.cwd = dir.path.string();
  const std::string pgid_file = (dir.path / "job.pgid").string();
  ProcessResult result = run_as_remote(envbisect::remote_command_line(spec, "", pgid_file), dir.path / "out");
  CHECK(result.exit_code == 7);
  const std::string out = slurp(dir.path / "out");
  CHECK(out.find(dir.path.string() + "\n") == 0);
  CHECK(out.find("SPACED=a b 'c'\n") != std::string::npos);
  CHECK(out.find("arg:it's $x") != std::string::npos);
  CHECK(out.find("LEAKED") == std::string::npos);  // nothing of the remote login environment
  CHECK_FALSE(fs::exists(pgid_file));              // the wrapper cleans up after itself

  spec.cwd = (dir.path / "missing").string();
  CHECK(run_as_remote(envbisect::remote_command_line(spec, "", pgid_file), dir.path / "out2").exit_code == 125);
}

TEST_CASE("remote_command_line puts the prefix before the wrapper, unquoted", "[exec][ssh]") {
  ProcessSpec spec;
  spec.argv = {"python3", "-V"};
  const std::string line = envbisect::remote_command_line(spec, "pct exec 200 --", "/tmp/x.pgid");
  CHECK(line.rfind("pct exec 200 -- sh -c '", 0) == 0);
  CHECK(line.find(" env -i -- python3 -V") != std::string::npos);
  const auto argv = envbisect::ssh_argv({"root@h", "", "/cfg"}, line);
  CHECK(argv == std::vector<std::string>{"ssh", "-n", "-o", "BatchMode=yes", "-F", "/cfg", "root@h", line});
}

TEST_CASE("remote_kill_line kills the whole remote process group", "[exec][ssh]") {
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "sleep 30 & sleep 30; echo never"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  const std::string pgid_file = (dir.path / "job.pgid").string();
  const auto start = std::chrono::steady_clock::now();
  ProcessResult remote;
  std::thread job([&] { remote = run_as_remote(envbisect::remote_command_line(spec, "", pgid_file), dir.path / "out"); });
  ProcessResult killer = run_as_remote(envbisect::remote_kill_line("", pgid_file), dir.path / "kill");
  job.join();
  CHECK(killer.exit_code == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(remote.exit_code != 0);
  CHECK(slurp(dir.path / "out").find("never") == std::string::npos);
  const std::string pgid = slurp(pgid_file);  // removed by the wrapper or the killer
  CHECK(pgid.empty());
}

TEST_CASE("SshRunner refuses an empty host or one that looks like an option", "[exec][ssh]") {
  CHECK_THROWS_AS(envbisect::SshRunner({"", "", ""}), envbisect::Error);
  CHECK_THROWS_AS(envbisect::SshRunner({"-oProxyCommand=x", "", ""}), envbisect::Error);
}

// Needs a live sshd: `eval "$(scripts/sshd-local start DIR)"; export SSH_CONFIG`, then
// `envbisect_tests "[.ssh-live]"`. Hidden from the default run (no daemon there).
TEST_CASE("SshRunner runs remotely, fetches output back and kills the remote group on timeout", "[.ssh-live]") {
  const char* config = std::getenv("SSH_CONFIG");
  REQUIRE(config != nullptr);
  TempDir dir;
  envbisect::SshRunner runner({"root@127.0.0.1", "env", config});
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo \"out $0\"; echo err >&2; exit 3", "a 'b'"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.cwd = dir.path.string();
  spec.stdout_path = (dir.path / "stdout.txt").string();
  spec.stderr_path = (dir.path / "stderr.txt").string();
  ProcessResult done = runner.run(spec);
  CHECK(done.exit_code == 3);
  CHECK(slurp(dir.path / "stdout.txt") == "out a 'b'\n");
  CHECK(slurp(dir.path / "stderr.txt") == "err\n");

  const std::string marker = (dir.path / "marker").string();
  spec.argv = {"sh", "-c", "sleep 3; touch " + marker};
  spec.timeout = std::chrono::milliseconds(1000);
  ProcessResult late = runner.run(spec);
  CHECK(late.timed_out);
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  CHECK_FALSE(fs::exists(marker));  // the remote group died with the timeout
}
