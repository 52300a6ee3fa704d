#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// How one attempt of a benchmark ended, as `git bisect run` reads exit codes.
enum class RunStatus {
  ok,        // exit 0 and a metric was read
  failed,    // non-zero exit (not 125), a signal, or exit 0 without a metric
  timeout,   // killed after the recipe's timeout
  skip,      // exit 125: the benchmark says it cannot test this candidate
};

// One attempt of the benchmark in one candidate environment. A value, never an exception.
struct RunResult {
  RunStatus status = RunStatus::failed;
  int exit_code = -1;              // when the process exited
  int signal = 0;                  // terminating signal, 0 when it exited
  std::optional<double> metric;    // read from the last JSON line on stdout
  std::optional<std::string> checksum;  // the recipe's checksum field, as text
  std::string error_class;         // error class the benchmark printed, or the last stderr line
  std::string cause;               // why it gave no result, as a class ("no_metric_key", ...); "" when ok
  std::string diagnosis;           // that cause in a sentence naming what to fix
  double wall_seconds = 0.0;
  std::string stdout_path;
  std::string stderr_path;
};

// The verdict on one candidate.
enum class Verdict {
  good,          // indistinguishable from the good anchor
  bad,           // indistinguishable from the bad anchor
  intermediate,  // clearly between the anchors: a partial cause
  unstable,      // samples do not settle within the run cap
  skip,          // untestable: build failed, unresolvable, benchmark said skip
};

// Return the mean wall time of the runs, 0 without any.
double mean_wall_seconds(const std::vector<RunResult>& runs);

// Return the lower-case name of a run status ("ok", "failed", "timeout", "skip").
std::string_view to_string(RunStatus status);

// Return the lower-case name of a verdict ("good", "bad", ...).
std::string_view to_string(Verdict verdict);

}  // namespace envbisect
