#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exec/runner.hpp"
#include "exec/slurm_runner.hpp"

namespace envbisect {

// One task of a Slurm job array: the array task id and the process it runs (argv, the complete
// environment, cwd, and the files its stdout and stderr go to; the spec's timeout is not used).
struct SlurmArrayTask {
  int index = 0;
  ProcessSpec spec;
};

// What to submit as one job array.
struct SlurmArrayRequest {
  std::vector<SlurmArrayTask> tasks;           // distinct indices, each >= 0
  SlurmTarget target;                          // GPUs and partition every task asks for
  std::string dir;                             // the script, sbatch's answer, Slurm's own task-%a.out/.err
  std::string job_name = "envbisect";
  std::chrono::milliseconds task_limit{0};     // per task, counted from its start; 0 = none
  int max_running = 0;                         // tasks running at once (--array=...%N); 0 = as Slurm schedules
};

// How one array task ended, as scontrol last reported it (or as we ended it).
struct SlurmArrayTaskOutcome {
  int index = 0;
  SlurmJobStatus status;  // state "UNKNOWN" when scontrol lost the task before it finished
  bool timed_out = false; // cancelled by us after the request's task_limit
};

// How the whole array ended.
struct SlurmArrayOutcome {
  std::string array_id;                        // sbatch's answer; "" when the submission was refused
  std::string submit_error;                    // why sbatch refused it
  bool interrupted = false;                    // SIGINT/SIGTERM: the array was cancelled
  std::vector<SlurmArrayTaskOutcome> tasks;    // in the request's order
};

// Return the `--array=` value for `indices`: sorted, consecutive runs as ranges ("0-3", "0,2,5-7").
// Throw Error (bad_input) for an empty list, a negative or a repeated index.
std::string slurm_array_indices(std::vector<int> indices);

// Return the array's batch script: a `case` on SLURM_ARRAY_TASK_ID that runs each task's argv with
// exactly its environment (`exec /usr/bin/env -i -- ...`), in its cwd, stdout and stderr into its files;
// an index not in the list exits 125; CUDA_VISIBLE_DEVICES as `cuda` says.
std::string slurm_array_script(const std::vector<SlurmArrayTask>& tasks, JobCudaDevices cuda);

// Return the sbatch argv that submits `script_path` as the request's array (--parsable, --array with
// %max_running when set, Slurm's own output as DIR/task-%a.out and .err, --time a minute above task_limit, GPUs, partition).
std::vector<std::string> sbatch_array_argv(const SlurmArrayRequest& request, const std::string& script_path);

// Return each array task's status in `scontrol show job -o ARRAYID` output, keyed by task id: one line
// per task that started, and lines whose ArrayTaskId is a list of ranges ("2-4", "0,2,5-7%2") for
// tasks still pending together. Lines without ArrayTaskId or JobState are left out.
std::map<int, SlurmJobStatus> parse_scontrol_array(std::string_view text);

// Submit the request as one job array (the script and sbatch's answer go to request.dir), poll
// `scontrol show job -o ARRAYID` every ~100 ms until every task has finished, cancel a task running
// past task_limit, and `scancel ARRAYID` on interrupt. Never throws for a failing task or a refused
// submission (outcome values); throw Error (environment) only when request.dir cannot be written.
SlurmArrayOutcome run_slurm_array(const SlurmArrayRequest& request);

}  // namespace envbisect
