#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace envbisect::report {

// Return a metric value as people quote it: 4 significant digits below 1000, thousands grouped by a space
// from 10 000 on ("20 938", "1030", "0.0179").
std::string format_number(double value);

// Return a p-value or ratio with 3 significant digits ("0.00794").
std::string format_p(double value);

// Return a duration for people: "0.18 s", "42 s", "2 min 02 s".
std::string format_duration(double seconds);

// Return a journal time (seconds since the epoch) as "YYYY-MM-DD HH:MM:SS UTC"; "-" for 0.
std::string format_utc(double t);

// Return the first 12 digits of a hash (the report's display form).
std::string short_id(const std::string& hash);

// Return the HTML id of a candidate's section: "candidate-" and the letters and digits of the first 12
// characters of its hash (a journal's hash may hold quotes and brackets; an id never does).
std::string candidate_anchor(const std::string& hash);

// Return `text` escaped for HTML text and attribute values.
std::string html_escape(const std::string& text);

// Return `text` as literal text in Markdown, one line, safe inside a table cell under any renderer:
// & < > as HTML entities (raw HTML never reaches the page), \ | [ ] ` backslash-escaped,
// newlines as spaces, control characters as visible escapes ("\x1b").
std::string md_cell(const std::string& text);

// Return `text` as Markdown inline code, with a fence long enough for its backticks (pipes escaped,
// newlines as spaces, control characters as visible escapes; HTML inside a code span is literal).
std::string md_code(const std::string& text);

// Return the last `max_lines` lines of `text`, at most `max_bytes` bytes, with a leading "..." line
// when something was cut, and every secret-looking value replaced by "<redacted>" (util/redact.hpp).
std::string tail_lines(const std::string& text, std::size_t max_lines, std::size_t max_bytes);

// What the journal says about the outcome, gathered for the top of a report.
struct VerdictSummary {
  bool have_result = false;
  bool found = false;
  std::string outcome;                    // found | ambiguous | not_found | not_verified | retracted; "" before
  std::vector<std::size_t> cause;        // indices into the model's deltas
  bool forward = false;                   // good + cause -> bad
  bool reverse = false;                   // bad - cause -> good
  bool rereads_anchors = false;           // the cause is every difference: good + cause is the bad anchor and
                                          // bad - cause the good one, so "verified" only re-read the anchors
  const Decision* forward_decision = nullptr;
  const Decision* reverse_decision = nullptr;
  std::string note;
  int evaluations = 0;
  int attempts_run = 0;
  int attempts_reused = 0;
  double seconds = 0;
  std::string metric;
  std::vector<std::string> modifiers;     // sentences from probes and refinements
  std::string effect;                     // the cause's effect with its interval, as a sentence; "" when none
  std::string effort;                     // what the search cost, with counters that count what they say
  std::string stopped;                    // without a result: the input error that stopped the run
  std::string indistinct;                 // without a result: why the anchors could not be told apart
  std::string run_dir;                    // the folder `resume` continues (interrupted or stopped at its budget)
  std::string resume;                     // stopped at its budget: the command that continues it, as the run printed it
};

// Return the summary of the model's result (have_result false when the run did not finish).
VerdictSummary summarize(const ReportModel& model);

// Return the headline sentence of the verdict ("cause found: 2 differences, together").
std::string headline(const VerdictSummary& summary);

// Return the host the run's last session ran on as one sentence (hostname, kernel, CPU, cores, load,
// free memory, GPUs with driver and clocks); "" when the journal records none.
std::string host_sentence(const ReportModel& model);

// Return one sentence per decision whose runs saw a load average above the anchors' (more than 1.5x
// and 0.5 above their mean): the decision, its load and the anchors'.
std::vector<std::string> load_flags(const ReportModel& model);

// Return the count and the noun, with an "s" unless the count is 1 ("1 session", "3 attempts").
std::string count_noun(long long count, const std::string& noun);

// Return " (UNIT)" for table headers of metric columns, "" when the recipe names no unit.
std::string unit_suffix(const ReportModel& model);

// A command a reader can paste, with what it does.
struct Command {
  std::string purpose;
  std::string line;
};

// Return the reproduction commands of the run: run again, resume, replay, report, the benchmark template.
std::vector<Command> reproduction_commands(const ReportModel& model);

// Return the command line of an attempt: its argv when journaled, else the recipe's command template
// with the placeholders the journal determines filled in ({python}, {recipe_dir}, {run_dir}, {seed},
// {attempt}); "" when the recipe is not available.
std::string attempt_command(const ReportModel& model, const Attempt& attempt);

// Return the attempt's log path shown in reports: relative to the run directory when inside it.
std::string display_path(const ReportModel& model, const std::string& path);

// Return what the candidate changes on top of the good state: "dimension/name = value" per applied
// difference, then the decision's label when a refine or probe stage set something more.
std::vector<std::string> candidate_changes(const ReportModel& model, const CandidateView& view);

// Return a one-line status of an attempt: "ok", "failed: exit 1 (RuntimeError)", "killed by signal 9".
std::string attempt_status(const Attempt& attempt);

}  // namespace envbisect::report
