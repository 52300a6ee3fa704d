#include "exec/slurm_runner.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "exec_test_support.hpp"

namespace fs = std::filesystem;
using envbisect::ProcessSpec;
using envbisect::test::contains;
using envbisect::test::slurp;
using envbisect::test::TempDir;

TEST_CASE("parse_scontrol_job reads JobState and ExitCode of a one-line record", "[exec][slurm]") {
  auto running = envbisect::parse_scontrol_job(
      "JobId=12 JobName=envbisect UserId=root(0) JobState=RUNNING Reason=None ExitCode=0:0 RunTime=00:00:01");
  REQUIRE(running);
  CHECK(running->state == "RUNNING");
  CHECK_FALSE(running->finished);

  auto failed = envbisect::parse_scontrol_job("JobId=13 JobState=FAILED Reason=NonZeroExitCode ExitCode=125:0\n");
  REQUIRE(failed);
  CHECK(failed->finished);
  CHECK(failed->exit_code == 125);
  CHECK(failed->signal == 0);

  auto killed = envbisect::parse_scontrol_job("JobId=14 JobState=CANCELLED Reason=None DerivedExitCode=0:0 ExitCode=0:9");
  REQUIRE(killed);
  CHECK(killed->state == "CANCELLED");
  CHECK(killed->signal == 9);

  CHECK_FALSE(envbisect::parse_scontrol_job("slurm_load_jobs error: Invalid job id specified"));
}

TEST_CASE("slurm_batch_script runs argv with exactly the spec's environment", "[exec][slurm]") {
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "env | grep -v ^PWD= | sort; echo \"arg:$0\"", "a 'b' $c"};
  spec.env = {{"PATH", "/usr/bin:/bin"}, {"SPACED", "x y"}, {"CUDA_VISIBLE_DEVICES", "0,1"}};
  const fs::path script = dir.path / "job.sh";
  std::ofstream(script) << envbisect::slurm_batch_script(spec, envbisect::JobCudaDevices::from_spec);
  const std::string command = "SLURM_JOB_ID=9 sh " + script.string() + " > " + (dir.path / "out").string();
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string out = slurp(dir.path / "out");
  CHECK(out == "CUDA_VISIBLE_DEVICES=0,1\nPATH=/usr/bin:/bin\nSPACED=x y\narg:a 'b' $c\n");

  // With GPUs asked of Slurm, the devices Slurm gave the job win over the recipe's.
  std::ofstream(script) << envbisect::slurm_batch_script(spec, envbisect::JobCudaDevices::from_slurm);
  const std::string gres = "CUDA_VISIBLE_DEVICES=3 sh " + script.string() + " > " + (dir.path / "out").string();
  REQUIRE(std::system(gres.c_str()) == 0);
  CHECK(slurp(dir.path / "out").find("CUDA_VISIBLE_DEVICES=3\n") != std::string::npos);
}

TEST_CASE("sbatch_argv asks for the output files, the folder, a backstop time and the GPUs", "[exec][slurm]") {
  ProcessSpec spec;
  spec.argv = {"python3"};
  spec.cwd = "/runs/a/attempts/x/0";
  spec.stdout_path = "/runs/a/attempts/x/0/stdout.txt";
  spec.timeout = std::chrono::milliseconds(60000);
  auto argv = envbisect::sbatch_argv(spec, {2, "gpu"}, "/runs/job.sh");
  CHECK(argv.front() == "sbatch");
  CHECK(contains(argv, "--parsable"));
  CHECK(contains(argv, "--output=/runs/a/attempts/x/0/stdout.txt"));
  CHECK(contains(argv, "--error=/dev/null"));
  CHECK(contains(argv, "--chdir=/runs/a/attempts/x/0"));
  CHECK(contains(argv, "--time=2"));
  CHECK(contains(argv, "--gres=gpu:2"));
  CHECK(contains(argv, "--partition=gpu"));
  CHECK(argv.back() == "/runs/job.sh");
  CHECK_FALSE(contains(envbisect::sbatch_argv(spec, {0, ""}, "/j.sh"), "--gres=gpu:0"));
}

// Needs a live cluster: `eval "$(scripts/slurm-local start DIR)"`, then
// `envbisect_tests "[.slurm-live]"`. Hidden from the default run (no daemons there).
TEST_CASE("SlurmRunner returns exit codes from scontrol and cancels a job past its timeout", "[.slurm-live]") {
  REQUIRE(std::getenv("SLURM_CONF") != nullptr);
  TempDir dir;
  envbisect::SlurmRunner runner({0, ""});
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo out; echo err >&2; exit 125"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  spec.cwd = dir.path.string();
  spec.stdout_path = (dir.path / "stdout.txt").string();
  spec.stderr_path = (dir.path / "stderr.txt").string();
  envbisect::ProcessResult done = runner.run(spec);
  CHECK(done.spawned);
  CHECK(done.exit_code == 125);
  CHECK(slurp(dir.path / "stdout.txt") == "out\n");
  CHECK(slurp(dir.path / "stderr.txt") == "err\n");

  spec.argv = {"sleep", "60"};
  spec.timeout = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  envbisect::ProcessResult late = runner.run(spec);
  CHECK(late.timed_out);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(15));
  const std::string job = slurp(dir.path / "envbisect-slurm-submit.txt");
  const std::string command = "sleep 1; scontrol show job -o " + job.substr(0, job.find('\n')) + " | grep -q JobState=CANCELLED";
  CHECK(std::system(command.c_str()) == 0);
}
