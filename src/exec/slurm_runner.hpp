#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/runner.hpp"

namespace envbisect {

// What every Slurm job of a run asks for.
struct SlurmTarget {
  int gpus = 0;           // `--gres=gpu:N` when > 0 (the recipe's GPU split)
  std::string partition;  // `--partition`; "" = the cluster's default
};

// A job's state as `scontrol show job -o` reports it.
struct SlurmJobStatus {
  std::string state;      // JobState, e.g. PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT
  int exit_code = -1;     // the first half of ExitCode=rc:signal
  int signal = 0;         // the second half
  bool finished = false;  // true for a state the job never leaves
};

// Return the status in one line of `scontrol show job -o` output, or nothing when it names no JobState.
std::optional<SlurmJobStatus> parse_scontrol_job(std::string_view text);

// Return the environment for the Slurm clients (sbatch, scontrol, scancel): the allowed parent
// variables plus SLURM_CONF, which says which cluster to talk to, and a default PATH.
std::map<std::string, std::string> slurm_client_env();

// Whose CUDA_VISIBLE_DEVICES a job's benchmark sees: the spec's, or the one Slurm sets for the job's
// GPUs (--gres), which then wins over the spec's.
enum class JobCudaDevices { from_spec, from_slurm };

// Return the batch script that runs `spec` on the node: `exec /usr/bin/env -i -- K=V... argv...`, every
// word quoted for sh, CUDA_VISIBLE_DEVICES as `cuda` says.
std::string slurm_batch_script(const ProcessSpec& spec, JobCudaDevices cuda);

// Return the sbatch argv that submits `script_path` for `spec` (--parsable, output files, cwd, time).
std::vector<std::string> sbatch_argv(const ProcessSpec& spec, const SlurmTarget& target,
                                     const std::string& script_path);

// Runs each process as a Slurm batch job: sbatch --parsable with a generated script, then
// `scontrol show job -o ID` every ~100 ms until the job ends; the exit code comes from scontrol.
// The node must see the spec's paths (a shared filesystem): stdout and stderr are written by Slurm
// straight into spec.stdout_path and spec.stderr_path.
class SlurmRunner : public Runner {
public:
  // Prepare to submit jobs that ask for `target`.
  explicit SlurmRunner(SlurmTarget target);

  // Submit, poll until the job ends and return how it ended; `scancel` on timeout (counted from the
  // job's start, not its queueing) or interrupt. A refused submission gives spawned=false.
  ProcessResult run(const ProcessSpec& spec) override;

private:
  SlurmTarget m_target;
  LocalRunner m_local;
};

}  // namespace envbisect
