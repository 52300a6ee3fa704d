#include "exec/remote_cleanup.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "exec_test_support.hpp"

namespace fs = std::filesystem;
using envbisect::run_cleanup_command;
using envbisect::test::slurp;
using envbisect::test::TempDir;

namespace {

const std::map<std::string, std::string> k_env = {{"PATH", "/usr/bin:/bin"}};

}  // namespace

TEST_CASE("a cleanup command succeeds only when it exits 0", "[exec][cleanup]") {
  CHECK(run_cleanup_command({"sh", "-c", "exit 0"}, k_env, std::chrono::seconds(10)));
  CHECK_FALSE(run_cleanup_command({"sh", "-c", "exit 3"}, k_env, std::chrono::seconds(10)));
  CHECK_FALSE(run_cleanup_command({"sh", "-c", "kill -9 $$"}, k_env, std::chrono::seconds(10)));
  CHECK_FALSE(run_cleanup_command({"no-such-cleanup-tool"}, k_env, std::chrono::seconds(10)));
  CHECK_FALSE(run_cleanup_command({}, k_env, std::chrono::seconds(10)));
}

TEST_CASE("a cleanup command gets exactly the given environment and no input", "[exec][cleanup]") {
  TempDir dir;
  const std::string out = (dir.path / "env.txt").string();
  std::map<std::string, std::string> env = k_env;
  env["CLEANUP_MARK"] = "a b";
  REQUIRE(run_cleanup_command({"sh", "-c", "env | sort > '" + out + "'; cat >> '" + out + "'"}, env,
                              std::chrono::seconds(10)));
  // sh adds PWD itself; nothing of the test's own environment comes through.
  CHECK(slurp(out) == "CLEANUP_MARK=a b\nPATH=/usr/bin:/bin\nPWD=" + fs::current_path().string() + "\n");
}

TEST_CASE("a cleanup command past its limit is killed with its group", "[exec][cleanup]") {
  TempDir dir;
  const std::string pid_file = (dir.path / "child.pid").string();
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(run_cleanup_command({"sh", "-c", "sleep 30 & echo $! > '" + pid_file + "'; wait"}, k_env,
                                  std::chrono::milliseconds(300)));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  const std::string grandchild = slurp(pid_file);
  REQUIRE_FALSE(grandchild.empty());
  // Killed by the group SIGKILL; reaped by init or by a subreaper soon after.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool gone = false;
  while (!gone && std::chrono::steady_clock::now() < deadline) {
    const std::string stat_path = "/proc/" + std::to_string(std::stoi(grandchild)) + "/stat";
    gone = !fs::exists(stat_path) || slurp(stat_path).find(") Z ") != std::string::npos;
  }
  CHECK(gone);
}
