#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "core/recipe.hpp"
#include "exec/runner.hpp"

namespace envbisect {

// Why an attempt did not give a usable result, in classes a person can act on.
enum class FailureCause {
  none,           // the attempt gave its result
  build_failed,   // the candidate's environment could not be built (bad wheel, `../` entry, no wheel ...)
  not_started,    // the benchmark could not be started (interpreter or program missing)
  timed_out,      // killed after the recipe's timeout
  crashed,        // ended by a signal
  exited_nonzero, // exited with a status other than 0 and 125
  no_json,        // exited 0 but printed no JSON object line on stdout
  no_metric_key,  // printed a JSON line without the recipe's metric key (or with a non-number there)
  declared_skip,  // exited 125: the benchmark itself says it cannot test this candidate
};

// A cause class and the sentence that explains it (names the key, the last line, the builder's error).
struct Diagnosis {
  FailureCause cause = FailureCause::none;
  std::string text;
};

// Return the journal name of a cause ("no_metric_key", ...); "" for none.
std::string to_string(FailureCause cause);

// Return the cause named by `name` (as to_string writes it); none for "" or an unknown name.
FailureCause failure_cause_from(const std::string& name);

// Return why an attempt that ran (or tried to) did not give its result: from how the process ended,
// what its last JSON line held, and the last lines of its stdout and stderr. For a pass/fail recipe
// (recipe.pass_fail) exit 0 alone is a result.
Diagnosis diagnose_attempt(const ProcessResult& process, const BenchReport& report, const std::string& stdout_tail,
                           const std::string& stderr_tail, const Recipe& recipe);

// Return the stderr line that names what went wrong, for a message and for telling failures apart: the
// last line that starts with `error_class` (what the benchmark said it was), else the last line that
// reads as an error ("RuntimeError: ...", "CUDA error: ...", "Segmentation fault"), else the last line
// that is not a traceback frame or a thread dump header (faulthandler prints those after the error),
// else the last line. Trimmed; "" for empty text.
std::string telling_stderr_line(const std::string& text, const std::string& error_class = "");

// Return the diagnosis of a candidate whose environment could not be built, with the builder's reason.
Diagnosis diagnose_build(const std::string& reason);

// Return the one message that stops a run before any search when the anchors' runs show a mistake in
// the inputs, not a difference: an anchor whose environment cannot be built, or every run of both
// anchors failing with the same cause (not a declared skip). nullopt when the anchors can be compared.
std::optional<std::string> anchors_input_error(const std::vector<RunResult>& good, const std::vector<RunResult>& bad);

// Return the hint for an anchors_input_error: where to look and what to change. For a metric the runs
// did not print, the recipe key `metric` they were read for; for a crash or a missing metric, the
// first failed run's log files; "" when nothing is known.
std::string anchors_input_hint(const std::vector<RunResult>& good, const std::string& metric);

}  // namespace envbisect
