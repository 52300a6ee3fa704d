#include "exec/slurm_array.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

#include "exec_test_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using envbisect::SlurmArrayRequest;
using envbisect::SlurmArrayTask;
using envbisect::test::slurp;
using envbisect::test::TempDir;

namespace {

SlurmArrayTask task(int index, std::vector<std::string> argv, const fs::path& dir) {
  SlurmArrayTask out;
  out.index = index;
  out.spec.argv = std::move(argv);
  out.spec.env = {{"PATH", "/usr/bin:/bin"}, {"CELL", "cell " + std::to_string(index)}};
  out.spec.cwd = dir.string();
  out.spec.stdout_path = (dir / ("out-" + std::to_string(index))).string();
  out.spec.stderr_path = (dir / ("err-" + std::to_string(index))).string();
  return out;
}

}  // namespace

TEST_CASE("slurm_array_indices lists task ids as sorted ranges", "[exec][slurm_array]") {
  CHECK(envbisect::slurm_array_indices({0, 1, 2, 3}) == "0-3");
  CHECK(envbisect::slurm_array_indices({7, 0, 2, 5, 6}) == "0,2,5-7");
  CHECK(envbisect::slurm_array_indices({4}) == "4");
  CHECK(envbisect::slurm_array_indices({1, 3, 5}) == "1,3,5");
  CHECK_THROWS_AS(envbisect::slurm_array_indices({}), envbisect::Error);
  CHECK_THROWS_WITH(envbisect::slurm_array_indices({2, 2}), Catch::Contains("task 2 is listed twice"));
  CHECK_THROWS_WITH(envbisect::slurm_array_indices({-1, 0}), Catch::Contains("task -1"));
}

TEST_CASE("parse_scontrol_array reads one line per started task and ranges of pending ones", "[exec][slurm_array]") {
  // As Slurm 22.05 printed it for `sbatch --array=0,2,5-7%2` while two tasks ran.
  const std::string text =
      "JobId=6 ArrayJobId=6 ArrayTaskId=5-7%2 ArrayTaskThrottle=2 JobName=a.sh JobState=PENDING Reason=JobArrayTaskLimit "
      "ExitCode=0:0\n"
      "JobId=8 ArrayJobId=6 ArrayTaskId=2 JobName=a.sh JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0\n"
      "JobId=7 ArrayJobId=6 ArrayTaskId=0 JobName=a.sh JobState=COMPLETED Reason=None ExitCode=0:0\n";
  const auto tasks = envbisect::parse_scontrol_array(text);
  REQUIRE(tasks.size() == 5);
  CHECK(tasks.at(0).state == "COMPLETED");
  CHECK(tasks.at(0).finished);
  CHECK(tasks.at(0).exit_code == 0);
  CHECK(tasks.at(2).state == "FAILED");
  CHECK(tasks.at(2).exit_code == 2);
  for (int pending : {5, 6, 7}) {
    CHECK(tasks.at(pending).state == "PENDING");
    CHECK_FALSE(tasks.at(pending).finished);
  }

  // Before anything starts, the whole array is one record; a list with single ids and ranges.
  const auto queued = envbisect::parse_scontrol_array("JobId=1 ArrayJobId=1 ArrayTaskId=0-3 JobState=PENDING ExitCode=0:0");
  CHECK(queued.size() == 4);
  CHECK(queued.count(3) == 1);
  CHECK(envbisect::parse_scontrol_array("JobId=1 ArrayJobId=1 ArrayTaskId=1,4-5 JobState=PENDING").size() == 3);

  // A cancelled task, a job that is no array, an error message, a malformed id: only the task counts.
  const auto mixed = envbisect::parse_scontrol_array(
      "JobId=20 ArrayJobId=19 ArrayTaskId=1 JobState=CANCELLED ExitCode=0:15\n"
      "JobId=21 JobName=plain JobState=RUNNING ExitCode=0:0\n"
      "slurm_load_jobs error: Invalid job id specified\n"
      "JobId=22 ArrayJobId=19 ArrayTaskId=x-2 JobState=RUNNING\n");
  REQUIRE(mixed.size() == 1);
  CHECK(mixed.at(1).state == "CANCELLED");
  CHECK(mixed.at(1).signal == 15);
  CHECK(envbisect::parse_scontrol_array("").empty());
}

TEST_CASE("sbatch_array_argv submits one array with Slurm's own output per task", "[exec][slurm_array]") {
  SlurmArrayRequest request;
  request.dir = "/night/slurm";
  request.job_name = "envbisect-matrix";
  request.tasks = {task(3, {"true"}, "/c3"), task(0, {"true"}, "/c0"), task(1, {"true"}, "/c1")};
  request.task_limit = std::chrono::milliseconds(90000);
  auto argv = envbisect::sbatch_array_argv(request, "/night/slurm/array.sh");
  CHECK(argv == std::vector<std::string>{"sbatch", "--parsable", "--job-name=envbisect-matrix", "--array=0-1,3",
                                         "--nodes=1", "--ntasks=1", "--chdir=/night/slurm",
                                         "--output=/night/slurm/task-%a.out", "--error=/night/slurm/task-%a.err",
                                         "--time=3", "/night/slurm/array.sh"});
  request.target.gpus = 2;
  request.target.partition = "gpu";
  request.task_limit = std::chrono::milliseconds(0);
  argv = envbisect::sbatch_array_argv(request, "/s.sh");
  CHECK(std::find(argv.begin(), argv.end(), "--gres=gpu:2") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "--partition=gpu") != argv.end());
  CHECK(std::none_of(argv.begin(), argv.end(), [](const std::string& a) { return a.rfind("--time", 0) == 0; }));
  CHECK(argv.back() == "/s.sh");
  // A throttle: at most 2 tasks at once.
  request.max_running = 2;
  argv = envbisect::sbatch_array_argv(request, "/s.sh");
  CHECK(std::find(argv.begin(), argv.end(), "--array=0-1,3%2") != argv.end());
}

TEST_CASE("slurm_array_script runs the task SLURM_ARRAY_TASK_ID names, in its folder, into its files",
          "[exec][slurm_array]") {
  TempDir dir;
  fs::create_directories(dir.path / "a");
  fs::create_directories(dir.path / "b");
  const std::string show = "env | grep -v ^PWD= | sort; pwd; echo \"arg:$0\"; echo oops >&2";
  const std::vector<SlurmArrayTask> tasks = {task(0, {"sh", "-c", show, "a 'b' $c"}, dir.path / "a"),
                                             task(5, {"sh", "-c", "exit 7"}, dir.path / "b")};
  const fs::path script = dir.path / "array.sh";
  std::ofstream(script) << envbisect::slurm_array_script(tasks, envbisect::JobCudaDevices::from_spec);

  const std::string base = "SLURM_ARRAY_TASK_ID=";
  const std::string leak = " STRAY=1 sh " + script.string();
  REQUIRE(std::system((base + "0" + leak).c_str()) == 0);
  CHECK(slurp(dir.path / "a" / "out-0") ==
        "CELL=cell 0\nPATH=/usr/bin:/bin\n" + (dir.path / "a").string() + "\narg:a 'b' $c\n");
  CHECK(slurp(dir.path / "a" / "err-0") == "oops\n");

  const int failed = std::system((base + "5" + leak).c_str());
  CHECK(WEXITSTATUS(failed) == 7);
  CHECK(fs::exists(dir.path / "b" / "out-5"));

  // An index that is not in the array: exit 125 and say so, run nothing.
  const int unknown = std::system((base + "9" + leak + " 2>" + (dir.path / "unknown.err").string()).c_str());
  CHECK(WEXITSTATUS(unknown) == 125);
  CHECK(slurp(dir.path / "unknown.err").find("array task 9 is not in this script") != std::string::npos);

  // A folder the node cannot enter: exit 125 (skip), not a failure of the cell's benchmark.
  std::vector<SlurmArrayTask> lost = {task(0, {"true"}, dir.path / "a")};
  lost[0].spec.cwd = (dir.path / "gone").string();
  std::ofstream(script) << envbisect::slurm_array_script(lost, envbisect::JobCudaDevices::from_spec);
  const int unreachable = std::system((base + "0 sh " + script.string() + " 2>/dev/null").c_str());
  CHECK(WEXITSTATUS(unreachable) == 125);

  // With GPUs asked of Slurm, the devices Slurm gave the task pass through.
  std::vector<SlurmArrayTask> gpu = {task(0, {"sh", "-c", "echo \"$CUDA_VISIBLE_DEVICES\""}, dir.path / "a")};
  gpu[0].spec.env["CUDA_VISIBLE_DEVICES"] = "0,1";
  std::ofstream(script) << envbisect::slurm_array_script(gpu, envbisect::JobCudaDevices::from_slurm);
  REQUIRE(std::system(("CUDA_VISIBLE_DEVICES=3 SLURM_ARRAY_TASK_ID=0 sh " + script.string()).c_str()) == 0);
  CHECK(slurp(dir.path / "a" / "out-0") == "3\n");
}

// Needs a live cluster: `eval "$(scripts/slurm-local start DIR)"`, then
// `envbisect_tests "[.slurm-live]"`. Hidden from the default run (no daemons there).
TEST_CASE("run_slurm_array returns every task's end and cancels a task past its limit", "[.slurm-live]") {
  REQUIRE(std::getenv("SLURM_CONF") != nullptr);
  TempDir dir;
  SlurmArrayRequest request;
  request.dir = (dir.path / "array").string();
  request.tasks = {task(0, {"sh", "-c", "echo zero"}, dir.path), task(2, {"sh", "-c", "exit 3"}, dir.path),
                   task(5, {"sleep", "60"}, dir.path)};
  request.task_limit = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  const envbisect::SlurmArrayOutcome outcome = envbisect::run_slurm_array(request);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  REQUIRE_FALSE(outcome.array_id.empty());
  CHECK_FALSE(outcome.interrupted);
  REQUIRE(outcome.tasks.size() == 3);
  CHECK(outcome.tasks[0].status.state == "COMPLETED");
  CHECK(outcome.tasks[0].status.exit_code == 0);
  CHECK(slurp(dir.path / "out-0") == "zero\n");
  CHECK(outcome.tasks[1].status.state == "FAILED");
  CHECK(outcome.tasks[1].status.exit_code == 3);
  CHECK(outcome.tasks[2].timed_out);
  CHECK(slurp(dir.path / "array" / "submit.txt").find(outcome.array_id) == 0);
  const std::string command =
      "sleep 1; scontrol show job -o " + outcome.array_id + "_5 | grep -q JobState=CANCELLED";
  CHECK(std::system(command.c_str()) == 0);
}
